// bench.cpp: the shared table printer and the registry of `blockscope bench` subcommands.
#include "app/bench.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include "app/counters_bench.h"
#include "app/kernel/kernel_bench.h"
#include "app/kernel/kernel_check.h"
#include "app/labs.h"
#include "core/error.h"

namespace bs::cli {

void register_all_benches(CLI::App& bench, BenchContext& ctx) {
  for (const LabDescriptor& lab : lab_entries())
    if (lab.register_bench) lab.register_bench(bench, ctx);
  register_interop_bench(bench, ctx);
  register_kernel_bench(bench, ctx);
  register_sim_bench(bench, ctx);
  for (CLI::App* sub : bench.get_subcommands([](CLI::App*) { return true; }))
    add_counters_flag(*sub, ctx);
}

int print_error(const std::string& msg, int code) {
  std::fprintf(stderr, "blockscope: %s\n", printable(msg, 2000).c_str());
  return code;
}

std::string out_of_memory_message(const std::string& command) {
  return (command.empty() ? std::string() : command + ": ") +
         "out of host memory: an allocation failed (std::bad_alloc); choose a smaller problem, or raise the "
         "process's memory limit (ulimit -v, the container's memory.max)";
}

void run_guarded(BenchContext& ctx, const std::function<int()>& body) {
  try {
    ctx.exit_code = body();
  } catch (const InvalidRequest& e) {
    ctx.exit_code = print_error(e.what(), 2);
  } catch (const GpuError& e) {
    ctx.exit_code = print_error(std::string("GPU error: ") + e.what(), 1);
  } catch (const std::bad_alloc&) {
    ctx.exit_code = print_error(out_of_memory_message(ctx.command), 1);
  } catch (const std::exception& e) {
    ctx.exit_code = print_error(e.what(), 1);
  }
}

void Table::print(std::ostream& out) const {
  if (has_counters(*this)) {
    Table with = *this;
    with.counters.clear();
    std::vector<std::string> notes;
    add_counter_columns(with, counters, notes);
    with.print(out);
    print_counter_notes(out, counters, notes);
    return;
  }
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c)
    width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < r.size() ? r[c] : std::string();
      out << cell << std::string(width[c] - cell.size() + (c + 1 < width.size() ? 2 : 0), ' ');
    }
    out << '\n';
  };
  line(header);
  for (const auto& r : rows)
    line(r);
  out.flush();
}

void add_device_option(CLI::App& sub, BenchDevice& device) {
  sub.add_option("--device", device, k_bench_device_names.list())
      ->transform(enum_choice(k_bench_device_names, true));
}

}  // namespace bs::cli
