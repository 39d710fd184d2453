// counters_bench.cpp: see counters_bench.h.
#include "app/counters_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace bs::cli {

namespace {

std::string cell(const std::optional<double>& v, int decimals, double scale = 1.0) {
  return v ? fmt_fixed(*v * scale, decimals) : "-";
}

// One table row's counter cells; "-" everywhere when there is no result or it failed.
std::vector<std::string> cells(const std::optional<counters::Result>& r) {
  const size_t n = counter_headers().size();
  if (!r || !r->ok()) return std::vector<std::string>(n, "-");
  const counters::Values& v = r->values;
  std::string stall = "-";
  if (!v.top_stalls.empty())
    stall = v.top_stalls[0].reason + " " + fmt_fixed(v.top_stalls[0].cycles_per_issue, 1);
  return {cell(v.dram_read_bytes, 2, 1e-6),
          cell(v.dram_write_bytes, 2, 1e-6),
          cell(v.ld_sectors_per_request(), 2),
          cell(v.st_sectors_per_request(), 2),
          v.shared_ld_conflicts || v.shared_st_conflicts
              ? fmt_fixed(v.shared_ld_conflicts.value_or(0) + v.shared_st_conflicts.value_or(0), 0)
              : "-",
          cell(v.achieved_occupancy_pct, 1),
          cell(v.warp_efficiency_pct, 1),
          stall};
}

std::string format_raw(double v) {
  char buf[64];
  if (v == static_cast<double>(static_cast<long long>(v)) && std::abs(v) < 1e18)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

}  // namespace

std::vector<std::string> counter_headers() {
  return {"DRAM rd MB", "DRAM wr MB",  "ld sect/req", "st sect/req",
          "smem confl", "occupancy %", "warp eff %",  "top stall (cyc/issue)"};
}

void add_counters_flag(CLI::App& sub, BenchContext& ctx) {
  sub.add_flag(
      "--counters", ctx.counters,
      "add hardware-counter columns (CUPTI): each GPU row's kernel is run once more after the timing "
      "and replayed per counter pass, never timed");
}

std::optional<counters::Result> bench_counters(BenchContext& ctx, const counters::Launch& launch) {
  if (!ctx.counters) return std::nullopt;
  ctx.counters_shown = true;
  std::cerr << "collecting hardware counters (kernel replay) ...\n";
  return counters::collect(launch);
}

bool has_counters(const Table& t) {
  return std::any_of(t.counters.begin(), t.counters.end(), [](const auto& r) { return r.has_value(); });
}

void add_counter_columns(Table& t, const std::vector<std::optional<counters::Result>>& per_row,
                         std::vector<std::string>& notes) {
  for (const auto& h : counter_headers())
    t.header.push_back(h);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::optional<counters::Result> none;
    const auto& r = i < per_row.size() ? per_row[i] : none;
    for (auto& c : cells(r))
      t.rows[i].push_back(std::move(c));
    if (r && !r->ok()) {
      const std::string msg = std::string("counters: ") + counters::to_string(r->status) + ": " + r->message;
      if (std::find(notes.begin(), notes.end(), msg) == notes.end()) notes.push_back(msg);
    }
  }
}

void print_counter_notes(std::ostream& out, const std::vector<std::optional<counters::Result>>& per_row,
                         const std::vector<std::string>& notes) {
  out << "\ncounters: " << counters::replay_note() << "\n";
  for (const auto& n : notes)
    out << n << "\n";
  for (size_t i = 0; i < per_row.size(); ++i) {
    const auto& r = per_row[i];
    if (!r || !r->ok()) continue;
    out << "counters, row " << i + 1 << ": " << r->values.kernels << " kernel(s), " << r->passes
        << " passes, " << fmt_fixed(r->seconds, 3) << " s, chip " << r->chip
        << (r->note.empty() ? "" : "; " + r->note) << "\n";
    for (size_t k = 0; k < r->raw.size(); ++k)
      for (const auto& [name, value] : r->raw[k])
        out << "  " << (r->raw.size() > 1 ? "kernel " + std::to_string(k + 1) + " " : "") << name << " = "
            << format_raw(value) << "\n";
    if (!r->missing.empty()) {
      out << "  not offered by this GPU:";
      for (const auto& m : r->missing)
        out << " " << m;
      out << "\n";
    }
  }
  out.flush();
}

}  // namespace bs::cli
