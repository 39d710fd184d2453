// multigpu_bench.cpp: `bench heat --gpus ...` and `bench montecarlo --gpus ...` (see multigpu_bench.h).
#include "app/multigpu/multigpu_bench.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include "app/bench.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/text.h"
#include "gpu/common/device_info.h"
#include "gpu/multigpu/comm.h"
#include "gpu/multigpu/multi_heat.h"
#include "gpu/multigpu/multi_mc.h"
#include "gpu/multigpu/nccl_loader.h"
#include "gpu/multigpu/scaling.h"
#include "ui/figure_export.h"
#include "ui/multigpu/scaling_figure.h"
#include "ui/plot_export.h"

namespace bs::cli {

namespace mg = bs::multigpu;

void add_multigpu_options(CLI::App& sub, MultiGpuArgs& a, bool heat) {
  sub.add_option(
      "--gpus", a.gpus,
      "GPU counts to run and compare (strong scaling), e.g. 1,2 or 1-4; counts this machine lacks are "
      "reported as not available");
  sub.add_flag("--virtual", a.virtual_slabs,
               "with --gpus: run k slabs/shares on GPU 0, exchanged by device copies: checks the k-GPU logic "
               "(results equal the 1-GPU run), NOT a scaling figure");
  sub.add_flag(
      "--per-rank", a.per_rank,
      "one process per GPU: this process is one NCCL rank (rank and count from --rank/--nranks or from "
      "mpirun/srun's environment); see docs/SCALING.md");
  sub.add_option("--rank", a.rank, "per-rank mode: this process's rank (0 .. nranks-1)")
      ->each([&a](const std::string&) { a.given_rank = true; });
  sub.add_option("--nranks", a.nranks, "per-rank mode: number of ranks")
      ->each([&a](const std::string&) { a.given_nranks = true; });
  sub.add_option(
      "--nccl-id-file", a.nccl_id_file,
      "per-rank mode: file (shared by all ranks) through which rank 0 hands the NCCL unique id to the "
      "others; or BS_NCCL_ID_FILE");
  sub.add_option("--scaling-out", a.out, "write the scaling plot as <prefix>.svg, .csv and .json");
  sub.add_option("--mg-reps", a.reps, "with --gpus: timed repetitions per GPU count")
      ->check(in_range(1, 1000, "repetitions"));
  if (!heat)
    sub.add_option(
           "--mc-chunks", a.mc_chunks,
           "with --gpus: fixed chunks the samples are cut into (default 48; the price is the same for every "
           "GPU count at one chunk count)")
        ->check(in_range(1, 4096, "chunks"));
  if (!heat)
    sub.add_option("--mc-streams", a.mc_streams,
                   "with --gpus: pricers (each with its stream) per GPU, which take the chunks in turn (default "
                   "1 with --mc-launch gpu, 2 with chunk; the price does not depend on it)")
        ->check(in_range(1, 8, "pricers per GPU"));
  if (!heat)
    sub.add_option("--mc-launch", a.mc_launch,
                   "with --gpus: gpu (default: each pricer launches all its chunks at once, blocks mapped to "
                   "chunks) or chunk (one launch per chunk, the first version, to compare); the price does "
                   "not depend on it")
        ->check(CLI::IsMember({"gpu", "chunk"}));
  if (heat) {
    sub.add_option("--halo", a.halo,
                   "with --gpus: halo rows = steps per exchange (default: chosen by the bandwidth model for the "
                   "field and GPU count, and printed)")
        ->check(in_range(1, 64, "halo rows"));
    sub.add_option("--overlap", a.overlap,
                   "with --gpus: update the interior while the halos travel: on, off or auto (default: the "
                   "bandwidth model's choice)")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    sub.add_flag("--weak", a.weak, "with --gpus: also weak scaling (the --size field per GPU, stacked)");
    sub.add_flag("--predict", a.predict,
                 "print the bandwidth model's prediction for the --gpus counts (default 1,2,4,8) with the "
                 "halo and overlap it would pick; runs nothing, needs no GPU (docs/SCALING.md)");
    sub.add_option("--link-gbs", a.link_gbs, "with --predict: link bandwidth per GPU in GB/s (default 300, NVLink)")
        ->check(in_range(0.1, 1e5, "GB/s"));
    sub.add_option("--latency-us", a.latency_us, "with --predict: one exchange's latency in us (default 28)")
        ->check(in_range(0.0, 1e6, "us"));
    sub.add_option("--dram-gbs", a.dram_gbs,
                   "with --predict: one GPU's DRAM bandwidth in GB/s for its step time (default: GPU 0's peak, "
                   "or an H100's 3352 without a GPU)")
        ->check(in_range(1.0, 1e5, "GB/s"));
    sub.add_option("--t1-ms", a.t1_ms, "with --predict: one GPU's measured ms per step (instead of the estimate)")
        ->check(in_range(1e-6, 1e6, "ms"));
    sub.add_flag("--no-overlap", a.no_overlap,
                 "with --gpus: exchange first, then the whole step (the same as --overlap off)");
  }
}

bool multigpu_requested(const MultiGpuArgs& a) {
  return !a.gpus.empty() || a.per_rank || a.rank >= 0 || a.predict;
}

std::optional<std::string> check_multigpu_args(const MultiGpuArgs& a) {
  const MultiGpuArgs d;
  if (a.rank < -1 || (a.rank == -1 && a.given_rank))
    return "--rank " + std::to_string(a.rank) + ": ranks run from 0 to --nranks - 1";
  if (a.nranks < 0 || (a.nranks == 0 && a.given_nranks))
    return "--nranks " + std::to_string(a.nranks) + ": give the number of ranks, 1 or more";
  if (a.rank >= 0 && a.nranks > 0 && a.rank >= a.nranks)
    return "--rank " + std::to_string(a.rank) + ": ranks run from 0 to --nranks - 1 = " +
           std::to_string(a.nranks - 1);
  if (a.rank >= 0 && a.nranks == 0 && a.rank != 0)
    return "--rank " + std::to_string(a.rank) + ": give --nranks (more than " + std::to_string(a.rank) + ")";
  if (multigpu_requested(a)) return std::nullopt;
  // The multi-GPU options alone would be ignored: say so rather than run the single-GPU bench.
  const std::pair<bool, const char*> alone[] = {
      {!a.out.empty(), "--scaling-out"}, {a.weak, "--weak"},         {a.no_overlap, "--no-overlap"},
      {a.virtual_slabs, "--virtual"},     {a.halo != d.halo, "--halo"}, {a.reps != d.reps, "--mg-reps"},
      {a.mc_chunks != d.mc_chunks, "--mc-chunks"}, {a.nranks != d.nranks, "--nranks"},
      {!a.nccl_id_file.empty(), "--nccl-id-file"}, {a.overlap != d.overlap, "--overlap"},
      {a.mc_streams != d.mc_streams, "--mc-streams"}, {a.mc_launch != d.mc_launch, "--mc-launch"}};
  for (const auto& [given, name] : alone)
    if (given) return std::string(name) + " applies to the multi-GPU runs: add --gpus (e.g. --gpus 1,2) or --per-rank";
  return std::nullopt;
}

namespace {

struct Setup {
  std::vector<int> counts;
  int devices = 0;
  std::optional<mg::RankSpec> rank;
};

// The GPU counts, the device count, the rank; prints what cannot run. nullopt with `code` on an error.
std::optional<Setup> setup(const MultiGpuArgs& a, int* code) {
  Setup s;
  // Bad input first, so that it is reported the same with or without a GPU.
  if (auto bad = check_multigpu_args(a)) {
    *code = print_error(*bad, 2);
    return std::nullopt;
  }
  std::string err;
  auto counts = mg::parse_gpu_list(a.gpus.empty() ? "1" : a.gpus, &err);
  if (!counts) {
    *code = print_error(err, 2);
    return std::nullopt;
  }
  if (!a.out.empty()) {
    // The plot's folder is checked before any GPU time is spent.
    if (!check_write_target(a.out + "_strong.svg", &err)) {
      *code = print_error("--scaling-out: " + err, 2);
      return std::nullopt;
    }
  }
  if ((a.per_rank || a.rank >= 0) &&
      !(a.rank < 0 || (a.nranks > 0 && a.rank < a.nranks) || (a.nranks == 0 && a.rank == 0))) {
    *code = print_error("--rank " + std::to_string(a.rank) + ": ranks run from 0 to --nranks - 1", 2);
    return std::nullopt;
  }
  const DeviceInfo dev = query_device();
  if (!dev.available) {
    std::printf("multi-GPU rows skipped: no CUDA device (%s)\n", dev.reason.c_str());
    *code = 0;
    return std::nullopt;
  }
  s.devices = mg::cuda_device_count();
  if (a.per_rank || a.rank >= 0) {
    mg::RankSpec r;
    if (a.rank >= 0) {
      r.rank = a.rank;
      r.nranks = a.nranks > 0 ? a.nranks : 1;
      r.device = a.rank % std::max(s.devices, 1);
    } else if (auto env = mg::rank_from_env(mg::process_env())) {
      r.rank = env->rank;
      r.nranks = env->nranks;
      r.device = env->local_rank % std::max(s.devices, 1);
      std::printf("rank %d of %d from %s, GPU %d\n", r.rank, r.nranks, env->source.c_str(), r.device);
    } else {
      *code = print_error(
          "--per-rank: no rank given (--rank/--nranks) and none in the environment "
          "(mpirun, srun or BS_RANK/BS_NRANKS)",
          2);
      return std::nullopt;
    }
    r.id_file = a.nccl_id_file;
    if (const char* f = std::getenv("BS_NCCL_ID_FILE"); f && r.id_file.empty()) r.id_file = f;
    if (auto why = mg::nccl_unavailable()) {
      *code = print_error("--per-rank needs NCCL: " + *why, 1);
      return std::nullopt;
    }
    s.rank = r;
    s.counts = {r.nranks};
    return s;
  }
  for (int k : *counts) {
    if (a.virtual_slabs || k <= s.devices)
      s.counts.push_back(k);
    else
      std::printf(
          "%d GPUs: not available: this machine has %d GPU%s (the row is skipped; --virtual runs %d slabs "
          "on one GPU to check the logic, not the speed)\n",
          k, s.devices, s.devices == 1 ? "" : "s", k);
  }
  if (!a.virtual_slabs && std::any_of(s.counts.begin(), s.counts.end(), [](int k) { return k > 1; }))
    if (auto why = mg::nccl_unavailable())
      std::printf("NCCL unavailable (%s): the GPUs exchange by peer copies instead\n", why->c_str());
  return s;
}

mg::Communicator make_comm(const MultiGpuArgs& a, const Setup& s, int k) {
  if (s.rank) return mg::Communicator::make_nccl_rank(*s.rank);
  std::vector<int> devs(static_cast<size_t>(k), 0);
  if (!a.virtual_slabs)
    for (int i = 0; i < k; ++i)
      devs[static_cast<size_t>(i)] = i;
  return mg::make_transport(devs);
}

bool is_root(const Setup& s) {
  return !s.rank || s.rank->rank == 0;
}

void write_figure(const MultiGpuArgs& a, const std::vector<mg::ScalingRow>& rows, ui::ScalingKind kind,
                  const std::string& what, const std::string& subtitle) {
  if (a.out.empty() || rows.empty()) return;
  const fig::Figure f = ui::scaling_figure(rows, kind, what, subtitle);
  const std::string stem = a.out + (kind == ui::ScalingKind::Strong ? "_strong" : "_weak");
  // Through the atomic writer, as every export: a failed write says so and leaves the old file.
  std::string err;
  bool ok = ui::export_svg(f, 1200, 700, stem + ".svg", &err);
  ok = ok && write_text_file(stem + ".csv", ui::figure_csv(f), &err);
  ok = ok && write_text_file(stem + ".json", ui::figure_json(f), &err);
  if (ok)
    std::printf("scaling plot: %s.svg, .csv, .json\n", stem.c_str());
  else
    std::printf("scaling plot not written: %s\n", err.c_str());
}

void print_scaling(const std::vector<mg::ScalingRow>& rows, bool strong,
                   const std::vector<std::string>& extra_head,
                   const std::vector<std::vector<std::string>>& extra) {
  Table t;
  t.header = {"GPUs", "ms", strong ? "ideal ms (t1/k)" : "ideal ms (t1)",
              strong ? "speedup" : "scaled speedup", "efficiency"};
  for (const auto& h : extra_head)
    t.header.push_back(h);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    std::vector<std::string> row{std::to_string(r.gpus), fmt_fixed(r.ms, 4), fmt_fixed(r.ideal_ms, 4),
                                 "x" + fmt_fixed(r.speedup, 2), fmt_fixed(100.0 * r.efficiency, 1) + "%"};
    if (i < extra.size())
      for (const auto& c : extra[i])
        row.push_back(c);
    t.rows.push_back(row);
  }
  t.print(std::cout);
}

bool parse_size(const std::string& text, int64_t* nx, int64_t* ny) {
  if (text.empty()) {
    *nx = *ny = 8192;
    return true;
  }
  const size_t x = text.find_first_of("xX");
  try {
    size_t used = 0;
    if (x == std::string::npos) {
      *nx = *ny = std::stoll(text, &used);
      return used == text.size() && *nx > 0;
    }
    *nx = std::stoll(text.substr(0, x), &used);
    if (used != x) return false;
    *ny = std::stoll(text.substr(x + 1), &used);
    return used == text.size() - x - 1 && *nx > 0 && *ny > 0;
  } catch (...) {
    return false;
  }
}

// The halo depth and overlap of a run on `comm`: the user's where set, else the model's (plan_heat, agreed
// among the ranks in per-rank mode). `how` says what runs and who chose it.
mg::HeatConfig heat_config(const MultiGpuArgs& a, mg::Communicator& comm, const heat::Params& p, std::string* how) {
  const mg::HeatPlan plan = mg::agree_on_plan(comm, mg::plan_heat(p, comm.size(), comm.device(0)));
  mg::HeatConfig cfg;
  cfg.params = p;
  cfg.halo = a.halo > 0 ? a.halo : plan.halo;
  const bool overlap_set = a.no_overlap || a.overlap != "auto";
  cfg.overlap = overlap_set ? !(a.no_overlap || a.overlap == "off") : plan.overlap;
  const std::string runs = std::to_string(cfg.halo) + (cfg.halo == 1 ? " step" : " steps") + " per exchange, " +
                           (cfg.overlap ? "overlapped" : "not overlapped");
  if (a.halo > 0 && overlap_set)
    *how = runs + " (set by --halo and --overlap)";
  else if (a.halo > 0 || overlap_set)
    *how = runs + " (" + (a.halo > 0 ? "halo set by --halo" : "overlap set by --overlap") +
           "; the model alone: " + mg::describe_plan(plan, comm.size()) + ")";
  else
    *how = "the model's plan: " + mg::describe_plan(plan, comm.size());
  return cfg;
}

}  // namespace

namespace {

// `bench heat --predict`: the model's plan and step for each GPU count; nothing runs.
int predict_heat_table(const MultiGpuArgs& a, heat::Params p, const std::string& size_text) {
  std::string err;
  auto counts = mg::parse_gpu_list(a.gpus.empty() ? "1,2,4,8" : a.gpus, &err);
  if (!counts) return print_error(err, 2);
  if (!parse_size(size_text, &p.nx, &p.ny))
    return print_error("--size '" + size_text + "': expected N or WxH with positive integers", 2);
  double dram = a.dram_gbs;
  std::string dram_from = "--dram-gbs";
  if (dram <= 0) {
    const DeviceInfo d = query_device();
    dram = d.available ? peak_dram_gbs(d) : 3352.0;
    dram_from = d.available ? d.name + "'s peak" : "an H100's peak (no GPU here)";
  }
  mg::HaloModelInput in;
  in.nx = p.nx;
  in.ny = p.ny;
  in.one_gpu_ms_per_step = a.t1_ms > 0 ? a.t1_ms : mg::estimate_heat_step_ms(p.nx, p.ny, dram);
  if (a.link_gbs > 0) in.link_gb_per_s = a.link_gbs;
  if (a.latency_us > 0) in.latency_us = a.latency_us;
  std::printf(
      "PREDICTION (the bandwidth model of docs/SCALING.md; nothing was run): heat %lldx%lld, one GPU %s ms/step "
      "(%s), link %s GB/s, %s us per exchange, %s us per round, %s us of edge launches, %s us per step\n",
      static_cast<long long>(p.nx), static_cast<long long>(p.ny), fmt_fixed(in.one_gpu_ms_per_step, 4).c_str(),
      a.t1_ms > 0 ? "--t1-ms" : ("from " + fmt_fixed(dram, 0) + " GB/s DRAM, " + dram_from).c_str(),
      fmt_fixed(in.link_gb_per_s, 0).c_str(), fmt_fixed(in.latency_us, 0).c_str(),
      fmt_fixed(in.round_us, 0).c_str(), fmt_fixed(in.edge_us, 0).c_str(), fmt_fixed(in.step_us, 1).c_str());
  Table t;
  t.header = {"GPUs", "halo", "overlap", "predicted ms/step", "efficiency", "at halo 1", "exchange ms",
              "exposed share"};
  for (int k : *counts) {
    in.gpus = k;
    mg::HeatPlan plan = mg::choose_heat_plan(in);
    if (auto bad = mg::validate_decomposition(p.ny, k, plan.halo)) return print_error(*bad, 2);
    const double ideal = in.one_gpu_ms_per_step / k;
    t.rows.push_back({std::to_string(k), std::to_string(plan.halo), plan.overlap ? "on" : "off",
                      fmt_fixed(plan.predicted.step_ms, 4), fmt_fixed(100.0 * ideal / plan.predicted.step_ms, 1) + "%",
                      fmt_fixed(100.0 * ideal / plan.halo1_step_ms, 1) + "%", fmt_fixed(plan.predicted.exchange_ms, 4),
                      fmt_fixed(100.0 * plan.predicted.comm_share, 1) + "%"});
  }
  t.print(std::cout);
  return 0;
}

}  // namespace

int run_heat_multigpu(const MultiGpuArgs& a, heat::Params p, const std::string& size_text, int steps) {
  // The field first: a bad --size is refused with or without a GPU (setup() skips the rows without one).
  if (!parse_size(size_text, &p.nx, &p.ny))
    return print_error("--size '" + printable(size_text) + "': expected N or WxH with positive integers", 2);
  {
    mg::HeatConfig cfg;
    cfg.params = p;
    cfg.halo = a.halo > 0 ? a.halo : 1;
    if (auto err = mg::validate(cfg, 1)) return print_error("--size: " + *err, 2);
  }
  if (a.predict) return predict_heat_table(a, p, size_text);
  int code = 0;
  auto s = setup(a, &code);
  if (!s) return code;
  const bool root = is_root(*s);
  if (root) {
    const std::string plan =
        a.halo > 0 && (a.no_overlap || a.overlap != "auto")
            ? std::to_string(a.halo) + " step" + (a.halo == 1 ? "" : "s") + " per exchange, " +
                  (a.no_overlap || a.overlap == "off" ? "no overlap" : "halo exchange overlapped with the interior")
            : "steps per exchange and overlap from the bandwidth model per GPU count unless set";
    std::printf(
        "heat across GPUs, %lldx%lld cells, float32, %s boundary, %s; %d steps x %d repetitions (host clock "
        "around all GPUs, median)\n",
        static_cast<long long>(p.nx), static_cast<long long>(p.ny),
        p.boundary == heat::Boundary::Fixed ? "fixed" : "insulated", plan.c_str(), steps, a.reps);
  }
  std::vector<mg::ScalingSample> samples;
  std::vector<std::vector<std::string>> extra;
  std::vector<float> first_field;
  std::string transport;
  for (int k : s->counts) {
    mg::Communicator comm = make_comm(a, *s, k);
    transport = comm.describe();
    std::string how;
    const mg::HeatConfig cfg = heat_config(a, comm, p, &how);
    if (auto err = mg::validate(cfg, comm.size())) return print_error(*err, 2);
    const mg::HeatTiming r = mg::time_heat(comm, cfg, steps, a.reps, !s->rank && s->counts.size() > 1);
    samples.push_back({k, r.ms_per_step});
    mg::HaloModelInput in;
    in.nx = p.nx;
    in.ny = p.ny;
    in.gpus = k;
    in.halo = cfg.halo;
    in.overlap = cfg.overlap;
    in.one_gpu_ms_per_step = samples.front().ms * samples.front().gpus;
    const mg::HaloModelOutput model = mg::predict_heat(in);
    std::string same = "-";
    if (!r.field.empty()) {
      if (first_field.empty())
        first_field = r.field;
      else
        same = std::memcmp(first_field.data(), r.field.data(), first_field.size() * sizeof(float)) == 0
                   ? "bitwise"
                   : "DIFFERS";
    }
    extra.push_back({std::to_string(cfg.halo), cfg.overlap ? "on" : "off", fmt_fixed(r.exchange_ms, 4),
                     fmt_fixed(model.step_ms, 4), fmt_fixed(r.total_heat, 1), same});
    if (root) std::printf("%d: %s; %s\n", k, transport.c_str(), how.c_str());
  }
  if (!root) return 0;
  const auto rows = mg::strong_scaling(samples);
  print_scaling(rows, true,
                {"halo", "overlap", "exchange ms", "model ms (t1 measured)", "total heat",
                 "field vs first row"},
                extra);
  if (a.virtual_slabs)
    std::printf(
        "VIRTUAL: every row ran on GPU 0 (slabs exchanged by device copies); these times check the logic "
        "and show the overhead of the decomposition, they are NOT a scaling figure\n");
  const std::string what = "heat " + std::to_string(p.nx) + "x" + std::to_string(p.ny);
  write_figure(a, rows, ui::ScalingKind::Strong, what, transport + (a.virtual_slabs ? " (virtual)" : ""));

  if (a.weak && !s->rank) {
    std::vector<mg::ScalingSample> weak;
    std::vector<std::vector<std::string>> wextra;
    for (int k : s->counts) {
      mg::Communicator comm = make_comm(a, *s, k);
      heat::Params q = p;
      q.ny = p.ny * k;
      std::string how;
      const mg::HeatConfig cfg = heat_config(a, comm, q, &how);
      if (auto err = mg::validate(cfg, comm.size())) return print_error(*err, 2);
      const mg::HeatTiming r = mg::time_heat(comm, cfg, steps, a.reps, false);
      weak.push_back({k, r.ms_per_step});
      wextra.push_back({std::to_string(cfg.params.nx) + "x" + std::to_string(cfg.params.ny), std::to_string(cfg.halo),
                        cfg.overlap ? "on" : "off"});
    }
    std::printf("weak scaling: %lldx%lld cells per GPU\n", static_cast<long long>(p.nx),
                static_cast<long long>(p.ny));
    const auto wrows = mg::weak_scaling(weak);
    print_scaling(wrows, false, {"field", "halo", "overlap"}, wextra);
    write_figure(a, wrows, ui::ScalingKind::Weak, what + " per GPU", transport);
  }
  return 0;
}

int run_montecarlo_multigpu(const MultiGpuArgs& a, const montecarlo::Params& p, const montecarlo::Launch& l) {
  int code = 0;
  auto s = setup(a, &code);
  if (!s) return code;
  const bool root = is_root(*s);
  const int chunks = a.mc_chunks > 0 ? a.mc_chunks : mg::k_mc_chunks;
  const mg::McLaunch mode = a.mc_launch == "chunk" ? mg::McLaunch::PerChunk : mg::McLaunch::PerGpu;
  const int streams = a.mc_streams > 0 ? a.mc_streams : mg::default_mc_streams(mode);
  if (root)
    std::printf(
        "Monte Carlo across GPUs: %s, %lld paths x %d steps, seed %llu; samples in %d fixed chunks (same "
        "price for every GPU count), %s, %d pricer%s per GPU; %d timed runs after one warm-up (host clock, "
        "median)\n",
        montecarlo::option_long_label(p.option), static_cast<long long>(p.paths), p.steps,
        static_cast<unsigned long long>(p.seed), chunks, mg::mc_launch_label(mode), streams,
        streams == 1 ? "" : "s", a.reps);
  std::vector<mg::ScalingSample> samples;
  std::vector<std::vector<std::string>> extra;
  std::optional<double> first_price;
  std::string transport;
  for (int k : s->counts) {
    mg::Communicator comm = make_comm(a, *s, k);
    transport = comm.describe();
    mg::MultiPricer pricer(comm, l, streams, mode);  // set up once, outside the timed runs
    (void)pricer.price(p, chunks);  // warm-up
    std::vector<double> ms;
    mg::McRunResult r;
    for (int i = 0; i < a.reps; ++i) {
      r = pricer.price(p, chunks);
      ms.push_back(r.ms);
    }
    samples.push_back({k, summarize(ms).median});
    char price[64];
    std::snprintf(price, sizeof price, "%.17g", r.estimate.price);
    std::string same = "-";
    if (!first_price)
      first_price = r.estimate.price;
    else
      same = *first_price == r.estimate.price ? "identical" : "DIFFERS";
    extra.push_back({price, fmt_fixed(r.estimate.std_error, 6), same});
    if (root) std::printf("%d: %s\n", k, transport.c_str());
  }
  if (!root) return 0;
  const auto rows = mg::strong_scaling(samples);
  print_scaling(rows, true, {"price", "SE", "price vs first row"}, extra);
  if (a.virtual_slabs)
    std::printf(
        "VIRTUAL: every row ran on GPU 0; the prices check the split, the times are NOT a scaling figure\n");
  write_figure(a, rows, ui::ScalingKind::Strong, "Monte Carlo " + std::to_string(p.paths) + " paths",
               transport + (a.virtual_slabs ? " (virtual)" : ""));
  return 0;
}

void register_multigpu_bench(CLI::App& bench, BenchContext& ctx) {
  struct Args {
    MultiGpuArgs multi;
    std::string workload = "heat";
    std::string size = "16384";
    int steps = 50;
    int64_t paths = int64_t{16} << 20;
    int mc_steps = 256;
  };
  auto a = std::make_shared<Args>();
  CLI::App* sub = bench.add_subcommand(
      "multigpu",
      "Multi-GPU lab: strong (and weak) scaling of the heat field or Monte Carlo over GPU counts "
      "(default: 1 to every GPU of this machine)");
  sub->add_option("--workload", a->workload, "heat or montecarlo")
      ->check(CLI::IsMember({"heat", "montecarlo"}));
  sub->add_option("--size", a->size, "heat field: N or WxH (default 16384)");
  sub->add_option("--steps", a->steps, "heat steps per timed repetition")->check(in_range(1, 100000, "steps"));
  sub->add_option("--paths", a->paths, "Monte Carlo paths")
      ->check(in_range(int64_t{24}, montecarlo::k_max_paths, "paths"));
  sub->add_option("--mc-steps", a->mc_steps, "Monte Carlo steps per path")
      ->check(in_range(1, montecarlo::k_max_steps, "steps per path"));
  add_multigpu_options(*sub, a->multi, true);
  sub->callback([a, &ctx] {
    run_guarded(ctx, [&] {
      MultiGpuArgs m = a->multi;
      if (m.gpus.empty() && !m.per_rank && m.rank < 0) {
        const int n = std::max(mg::cuda_device_count(), 1);
        m.gpus = n == 1 ? "1" : "1-" + std::to_string(n);
      }
      if (a->workload == "heat") return run_heat_multigpu(m, heat::Params{}, a->size, a->steps);
      montecarlo::Params p;
      p.paths = a->paths;
      p.steps = a->mc_steps;
      return run_montecarlo_multigpu(m, p, {});
    });
  });
}

}  // namespace bs::cli
