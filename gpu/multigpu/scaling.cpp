// scaling.cpp: scaling tables, the halo model, --gpus parsing, launcher environment (see scaling.h).
#include "gpu/multigpu/scaling.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace bs::multigpu {

namespace {
std::optional<int> to_int(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
constexpr int k_max_gpus = 1024;
}  // namespace

std::optional<std::vector<int>> parse_gpu_list(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<std::vector<int>> {
    if (error) *error = "--gpus '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  std::vector<int> out;
  if (text.empty()) return fail("empty; expected counts such as 1,2 or 1-4");
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const size_t dash = item.find('-');
    std::optional<int> a, b;
    if (dash == std::string_view::npos) {
      a = b = to_int(item);
    } else {
      a = to_int(item.substr(0, dash));
      b = to_int(item.substr(dash + 1));
    }
    const std::string quoted = std::string(1, '\'').append(item).append(1, '\'');
    if (!a || !b) return fail(quoted + " is not a GPU count or a range such as 1-4");
    if (*a < 1 || *b < *a || *b > k_max_gpus)
      return fail(quoted + ": counts run from 1 to " + std::to_string(k_max_gpus) + ", ranges upwards");
    for (int v = *a; v <= *b; ++v)
      out.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) return fail("a GPU count appears twice");
  return out;
}

std::vector<ScalingRow> strong_scaling(const std::vector<ScalingSample>& samples) {
  std::vector<ScalingRow> out;
  if (samples.empty()) return out;
  const auto base = std::min_element(samples.begin(), samples.end(),
                                     [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
  const double t1 = base->ms * base->gpus;  // a perfect-scaling estimate of one GPU when the base is > 1
  for (const auto& s : samples) {
    ScalingRow r{s.gpus, s.ms, t1 / s.gpus, s.ms > 0 ? t1 / s.ms : 0, 0};
    r.efficiency = r.speedup / s.gpus;
    out.push_back(r);
  }
  return out;
}

std::vector<ScalingRow> weak_scaling(const std::vector<ScalingSample>& samples) {
  std::vector<ScalingRow> out;
  if (samples.empty()) return out;
  const auto base = std::min_element(samples.begin(), samples.end(),
                                     [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
  const double t1 = base->ms;
  for (const auto& s : samples) {
    // k GPUs do k times base->gpus' work; ideal time stays t1.
    const double work = static_cast<double>(s.gpus) / base->gpus;
    ScalingRow r{s.gpus, s.ms, t1, s.ms > 0 ? work * t1 / s.ms : 0, 0};
    r.efficiency = s.ms > 0 ? t1 / s.ms : 0;
    out.push_back(r);
  }
  return out;
}

// Fitted to 4 H200s (NV18), 16384^2, 2026-11-27 (docs/SCALING.md): overlapped, 17.3 / 13.7 / 8.9 / 8.6 / 8.4 us
// per step above t1 / 4 at halo 1 / 2 / 4 / 8 / 16 give ~10 us per round (edge + round) and ~7 us per step
// (3/4 of step_us); not overlapped, halo 1 and 4: ~31-39 us per round (latency + round).
const double k_model_link_gb_per_s = 300;
const double k_model_latency_us = 28;
const double k_model_round_us = 6;
const double k_model_edge_us = 4;
const double k_model_step_us = 9.6;

HaloModelOutput predict_heat(const HaloModelInput& in) {
  HaloModelOutput o;
  const int k = std::max(in.gpus, 1);
  const int64_t max_rows = (in.ny + k - 1) / k;
  const int h = std::max(in.halo, 1);
  // Widened steps compute extra rows: on average (h - 1) extra rows per step (h - 1 - j per side in step j).
  const double extra_rows = k > 1 ? (h - 1) : 0.0;
  const double fixed = std::min(in.step_us * 1e-3, in.one_gpu_ms_per_step);
  o.compute_ms = in.ny > 0 ? (in.one_gpu_ms_per_step - fixed) * (max_rows + extra_rows) / in.ny + fixed : 0;
  o.interior_ms = o.compute_ms * std::max<double>(max_rows - 2, 0) / std::max<double>(max_rows, 1);
  if (k == 1) {
    o.step_ms = o.compute_ms;
    return o;
  }
  const int neighbours = k == 2 ? 1 : 2;
  const double bytes = static_cast<double>(neighbours) * h * in.nx * sizeof(float);
  o.halo_bytes_per_step = static_cast<int64_t>(bytes / h);
  o.exchange_ms = in.latency_us * 1e-3 + bytes / (in.link_gb_per_s * 1e9) * 1e3;
  // Exposed per round: with overlap what of the exchange outlasts the interior, and the edge launches after
  // it; without, all of the exchange. The round's own cost either way.
  const double exposed = (in.overlap ? std::max(0.0, o.exchange_ms - o.interior_ms) + in.edge_us * 1e-3
                                     : o.exchange_ms) +
                         in.round_us * 1e-3;
  o.step_ms = o.compute_ms + exposed / h;
  o.comm_share = o.step_ms > 0 ? (exposed / h) / o.step_ms : 0;
  return o;
}

double estimate_heat_step_ms(int64_t nx, int64_t ny, double peak_dram_gb_per_s) {
  if (peak_dram_gb_per_s <= 0) return 0;
  return static_cast<double>(nx) * static_cast<double>(ny) * 8.0 / (0.82 * peak_dram_gb_per_s * 1e9) * 1e3;
}

HeatPlan choose_heat_plan(const HaloModelInput& base) {
  HeatPlan plan;
  HaloModelInput in = base;
  in.halo = 1;
  in.overlap = true;
  plan.halo1_step_ms = predict_heat(in).step_ms;
  plan.predicted = predict_heat(in);
  const int k = std::max(base.gpus, 1);
  if (k == 1) return plan;
  struct Candidate {
    int halo;
    bool overlap;
    HaloModelOutput out;
  };
  std::vector<Candidate> all;
  for (int h = 1; h <= k_plan_max_halo; h *= 2) {
    if (base.ny / k < h) break;  // every slab must own at least h rows (validate_decomposition)
    for (bool overlap : {true, false}) {
      in.halo = h;
      in.overlap = overlap;
      all.push_back({h, overlap, predict_heat(in)});
    }
  }
  if (all.empty()) return plan;
  double best = all.front().out.step_ms;
  for (const auto& c : all)
    best = std::min(best, c.out.step_ms);
  for (const auto& c : all)
    if (c.out.step_ms <= best * 1.01) {
      plan.halo = c.halo;
      plan.overlap = c.overlap;
      plan.predicted = c.out;
      break;
    }
  return plan;
}

std::string describe_plan(const HeatPlan& plan, int gpus) {
  auto ms = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", v);
    return std::string(b);
  };
  std::string s = std::to_string(plan.halo) + (plan.halo == 1 ? " step" : " steps") + " per exchange, " +
                  (plan.overlap ? "overlapped" : "not overlapped");
  if (gpus <= 1) return s + " (one GPU: nothing to exchange)";
  s += " (model: " + ms(plan.predicted.step_ms) + " ms/step";
  if (plan.halo != 1 || !plan.overlap) s += " against " + ms(plan.halo1_step_ms) + " at 1 step per exchange";
  return s + ")";
}

std::optional<RankEnv> rank_from_env(const EnvMap& env) {
  struct Source {
    const char *rank, *size, *local, *name;
  };
  static constexpr Source sources[] = {
      {"BS_RANK", "BS_NRANKS", "BS_LOCAL_RANK", "BS_RANK/BS_NRANKS"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI (mpirun)"},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm (srun)"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI (MPICH/Intel MPI)"},
  };
  for (const auto& s : sources) {
    auto r = env.find(s.rank), n = env.find(s.size);
    if (r == env.end() || n == env.end()) continue;
    auto rank = to_int(r->second), size = to_int(n->second);
    if (!rank || !size || *size < 1 || *rank < 0 || *rank >= *size) continue;
    RankEnv out{*rank, *size, *rank, s.name};
    if (auto l = env.find(s.local); l != env.end())
      if (auto local = to_int(l->second)) out.local_rank = *local;
    return out;
  }
  return std::nullopt;
}

EnvMap process_env() {
  EnvMap out;
  for (const char* name : {"BS_RANK", "BS_NRANKS", "BS_LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                           "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                           "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "BS_NCCL_ID_FILE"})
    if (const char* v = std::getenv(name)) out[name] = v;
  return out;
}

std::string to_hex(const void* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * n, '0');
  const auto* b = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[b[i] >> 4];
    out[2 * i + 1] = digits[b[i] & 15];
  }
  return out;
}

bool from_hex(std::string_view hex, void* bytes, size_t n) {
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == ' ')) hex.remove_suffix(1);
  if (hex.size() != 2 * n) return false;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto* b = static_cast<unsigned char*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    const int hi = val(hex[2 * i]), lo = val(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    b[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

}  // namespace bs::multigpu
