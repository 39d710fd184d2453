// memory_bench.cpp: `blockscope bench memory --kernel transpose|stride|banks|aos [--size RxC] [--n N]
// [--variant NAME|all] [--stride S] [--bank-stride S] [--block XxY] [--threads T] [--device gpu|cpu|all]
// [--reps R] [--counts]`: a kernel's ladder of variants on the GPU (CUDA events, median and p10-p90 after a
// warm-up, GB/s, % of the reference row measured in the same run, each checked against the CPU), the
// predicted sectors per request and bank wavefronts per request from the access model (the kernels' own
// index expressions), and the CPU versions on one thread and on all threads.
#include "app/memory/memory_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "app/memory/memory_sim.h"
#include "app/param_flags.h"
#include "core/error.h"
#include "gpu/common/device_info.h"
#include "gpu/memory/memory.h"
#include "gpu/memory/memory_model.h"
#include "ui/memory/memory_schema.h"

namespace bs::cli {

namespace {

namespace mem = bs::memory;

// The schema's parameters as flags (help, defaults, checks); --variant, --reps and --counts are the bench's.
struct MemoryBenchArgs {
  std::unique_ptr<ParamFlags> flags;
  std::string variant = "all";
  int reps = 9;
  bool counts = false;
};

std::string fmt_ms(double ms) {
  const int decimals = ms > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(ms))) + 2, 3, 7) : 3;
  return fmt_fixed(ms, decimals);
}
std::string fmt_gbs(double gbs) {
  return gbs > 0 ? fmt_fixed(gbs, 1) : "-";
}
std::string ratio(int64_t num, int64_t den) {
  return den > 0 ? fmt_fixed(static_cast<double>(num) / static_cast<double>(den), 1) : "-";
}

// "4.0|32.0": sectors per global load request | per store request.
std::string sectors_cell(const mem::Prediction& c) {
  return ratio(c.ld_sectors, c.ld_requests) + "|" + ratio(c.st_sectors, c.st_requests);
}
// "32.0|1.0": shared-memory wavefronts per load request | per store request (1.0: no conflict; 32.0: 32-way).
// The same launches in the PTX simulator (the kernels' own PTX through NVRTC, no GPU): its counts beside the
// model's, "= model" where they agree to the unit.
void print_simulated_counts(const std::vector<std::pair<std::string, mem::Prediction>>& counts,
                            const std::vector<std::pair<mem::Params, mem::Variant>>& launches) {
  const std::vector<mem::SimulatedCounts> sim = mem::simulate_counts(launches);
  Table t{{"variant", "ld requests", "ld sectors", "st requests", "st sectors", "shared ld conflicts",
           "shared st conflicts", "vs model"},
          {}};
  for (size_t i = 0; i < counts.size() && i < sim.size(); ++i) {
    const mem::Prediction& x = counts[i].second;
    if (!sim[i].counts) {
      t.rows.push_back({counts[i].first, sim[i].message, "", "", "", "", "", "-"});
      continue;
    }
    const sim::MemoryCounts& c = *sim[i].counts;
    const bool same = c.ld_requests == uint64_t(x.ld_requests) && c.ld_sectors == uint64_t(x.ld_sectors) &&
                      c.st_requests == uint64_t(x.st_requests) && c.st_sectors == uint64_t(x.st_sectors) &&
                      c.shared_ld_conflicts == uint64_t(x.shared_ld_conflicts) &&
                      c.shared_st_conflicts == uint64_t(x.shared_st_conflicts);
    t.rows.push_back({counts[i].first, std::to_string(c.ld_requests), std::to_string(c.ld_sectors),
                      std::to_string(c.st_requests), std::to_string(c.st_sectors),
                      std::to_string(c.shared_ld_conflicts), std::to_string(c.shared_st_conflicts),
                      same ? "= model" : "DIFFERS"});
  }
  std::printf(
      "simulated counts per launch (the kernels' PTX through NVRTC in blockscope's simulator, no GPU). Bank "
      "conflicts = shared wavefronts - shared warp instructions (per instruction, the most distinct 4-byte words "
      "one bank delivers, minus one); on a GPU: smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum "
      "- smsp__sass_inst_executed_op_shared_ld.sum (and _st; equal to the unit on an H100). L1TEX's "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum can count more on Hopper (global traffic in flight "
      "shares its data stage):\n");
  t.print(std::cout);
}

std::string banks_cell(const mem::Prediction& c) {
  if (c.shared_ld_requests == 0 && c.shared_st_requests == 0) return "-";
  return ratio(c.shared_ld_wavefronts, c.shared_ld_requests) + "|" +
         ratio(c.shared_st_wavefronts, c.shared_st_requests);
}

const char* variant_names_text(mem::Kernel k) {
  switch (k) {
    case mem::Kernel::Transpose:
      return "all, copy, naive, tiled, tiled-padded, tiled-padded-multi";
    case mem::Kernel::Stride:
      return "all, strided, random";
    case mem::Kernel::Banks:
      return "all, plain, padded";
    case mem::Kernel::Aos:
    default:
      return "all, aos, soa";
  }
}

int run(MemoryBenchArgs& a) {
  if (auto err = a.flags->read()) return print_error(*err, 2);
  nlohmann::json state = nlohmann::json::object();
  for (const char* name : {"kernel", "size", "n", "stride", "bank_stride", "block", "threads"})
    state[name] = a.flags->value(name);
  const mem::Params p = ui::memory_params_from(state);
  // A flag the chosen kernel does not read would be silently ignored: every kernel checks what it is given.
  const struct {
    const char* name;
    bool applies;
  } uses[] = {{"size", p.kernel == mem::Kernel::Transpose},
              {"block", p.kernel == mem::Kernel::Transpose},
              {"n", p.kernel != mem::Kernel::Transpose},
              {"threads", p.kernel != mem::Kernel::Transpose},
              {"stride", p.kernel == mem::Kernel::Stride},
              {"bank_stride", p.kernel == mem::Kernel::Banks}};
  for (const auto& u : uses)
    if (a.flags->given(u.name) && !u.applies)
      return print_error(ParamFlags::flag_of(u.name) + ": the " + mem::to_string(p.kernel) +
                             " kernel does not use it (" +
                             (p.kernel == mem::Kernel::Transpose
                                  ? "transpose takes --size and --block"
                                  : "stride, banks and aos take --n and --threads; stride --stride, banks "
                                    "--bank-stride") +
                             ")",
                         2);
  const std::optional<mem::Device> device =
      mem::k_device_names.parse(a.flags->value("device").get<std::string>());
  std::optional<mem::Variant> only;
  if (a.variant != "all") {
    only = mem::k_variant_names.parse(a.variant);
    if (!only || mem::kernel_of(*only) != p.kernel)
      return print_error("--variant: '" + printable(a.variant) + "' is not a variant of the " +
                             mem::to_string(p.kernel) + " kernel (choose " + variant_names_text(p.kernel) +
                             ")",
                         2);
  }
  if (a.reps < 1 || a.reps > 1000)
    return print_error("--reps " + std::to_string(a.reps) + ": choose 1 to 1000 repetitions", 2);
  const std::vector<mem::Variant> ladder =
      only ? std::vector<mem::Variant>{*only} : mem::variants_of(p.kernel);
  for (mem::Variant v : ladder)
    if (auto err = mem::validate(p, v)) return print_error("bench memory: " + *err, 2);

  const DeviceInfo dev = device == mem::Device::Cpu ? DeviceInfo{} : query_device();
  if (device == mem::Device::Gpu && !dev.available)
    return print_error("--device gpu: no CUDA device: " + dev.reason, 1);
  const std::string size_text = p.kernel == mem::Kernel::Transpose
                                    ? mem::shape_text(p.rows, p.cols) + " floats"
                                    : "n = " + mem::format_count(p.n);
  std::printf("bench memory: %s, %s; GB/s counts %s\n", mem::title(p.kernel), size_text.c_str(),
              mem::counted_bytes_text(ladder.front()));

  Table t{{"variant", "device", "ms", "p10-p90 ms", "GB/s", "% of ref", "sectors/req ld|st (pred.)",
           "bank wavefronts/req ld|st (pred.)", "check"},
          {}};
  bool all_passed = true;
  std::vector<std::pair<std::string, mem::Prediction>> counts;
  std::vector<std::pair<mem::Params, mem::Variant>> launches;  // counts' launches, for the simulator
  if (device != mem::Device::Cpu) {
    if (dev.available) {
      std::printf(
          "GPU: %s (%d SMs, compute capability %s); CUDA events around each launch, %d timed after one "
          "warm-up; "
          "%% of ref: against %s in this same run\n",
          dev.name.c_str(), dev.sm_count, dev.compute_capability().c_str(), a.reps,
          p.kernel == mem::Kernel::Transpose ? "the copy of the same bytes over the same tiles"
          : p.kernel == mem::Kernel::Stride  ? "the stride-1 read"
          : p.kernel == mem::Kernel::Banks   ? "bank stride 1 (no conflict)"
                                             : "the structure of arrays");
      mem::GpuRunner runner;
      const std::vector<mem::RunResult> rows = runner.run_ladder(p, only, a.reps);
      for (const mem::RunResult& r : rows) {
        // The reference row of stride / banks runs at stride 1: predict it with those parameters.
        mem::Params q = p;
        if (r.label.find("(reference)") != std::string::npos) {
          q.stride = 1;
          q.bank_stride = 1;
        }
        const mem::Prediction c = mem::predict(q, r.variant);
        counts.emplace_back(r.label, c);
        launches.emplace_back(q, r.variant);
        t.rows.push_back({r.label, "GPU", fmt_ms(r.ms.median), fmt_ms(r.ms.p10) + "-" + fmt_ms(r.ms.p90),
                          fmt_gbs(r.gbs), r.pct_of_copy > 0 ? fmt_fixed(r.pct_of_copy, 1) + "%" : "-",
                          sectors_cell(c), banks_cell(c), r.check.text});
        all_passed = all_passed && r.check.passed;
      }
    } else {
      std::printf("GPU rows skipped: no CUDA device (%s)\n", dev.reason.c_str());
    }
  }
  if (device != mem::Device::Gpu) {
    std::vector<mem::Variant> cpu;
    for (mem::Variant v : mem::cpu_variants_of(p.kernel))
      if (!only || v == *only) cpu.push_back(v);
    if (cpu.empty())
      std::printf("CPU rows: none for %s (%s)\n", mem::title(p.kernel),
                  p.kernel == mem::Kernel::Banks ? "shared memory exists only on the GPU"
                                                 : "no CPU version of this variant");
    const int cpu_reps = std::min(a.reps, 3);  // CPU runs of 64M elements take seconds
    for (mem::Variant v : cpu)
      for (mem::CpuMode m : {mem::CpuMode::OneThread, mem::CpuMode::AllThreads}) {
        const Summary s = mem::time_cpu(p, v, m, cpu_reps);
        const double gbs =
            s.median > 0 ? static_cast<double>(mem::counted_bytes(p, v)) / (s.median * 1e6) : 0;
        t.rows.push_back({std::string(mem::to_string(v)) + " (CPU)", mem::cpu_mode_label(m), fmt_ms(s.median),
                          fmt_ms(s.p10) + "-" + fmt_ms(s.p90), fmt_gbs(gbs), "-", "-", "-", "(reference)"});
      }
  }
  t.print(std::cout);
  std::printf(
      "sectors/req: 32-byte sectors per warp-wide global load|store instruction (4 = 32 lanes x 4 bytes, "
      "coalesced; 32 = every lane its own sector); bank wavefronts/req: shared-memory passes per warp "
      "instruction (1 = conflict-free, 32 = 32-way conflict). Both predicted by the access model from the "
      "kernels' index expressions (gpu/memory/memory_index.h).\n");
  if (a.counts && counts.empty())  // no GPU rows: the model needs no GPU
    for (mem::Variant v : ladder) {
      counts.emplace_back(mem::describe(v, p), mem::predict(p, v));
      launches.emplace_back(p, v);
    }
  if (a.counts && !counts.empty()) {
    Table c{{"variant", "ld requests", "ld sectors", "st requests", "st sectors", "shared ld req",
             "shared ld wavefronts", "shared st req", "shared st wavefronts", "min DRAM read MB",
             "min DRAM write MB"},
            {}};
    for (const auto& [label, x] : counts)
      c.rows.push_back({label, std::to_string(x.ld_requests), std::to_string(x.ld_sectors),
                        std::to_string(x.st_requests), std::to_string(x.st_sectors),
                        std::to_string(x.shared_ld_requests), std::to_string(x.shared_ld_wavefronts),
                        std::to_string(x.shared_st_requests), std::to_string(x.shared_st_wavefronts),
                        fmt_fixed(static_cast<double>(x.min_dram_read_bytes) / 1e6, 1),
                        fmt_fixed(static_cast<double>(x.min_dram_write_bytes) / 1e6, 1)});
    std::printf(
        "predicted counts per launch (compare: ncu --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum, ..._st, "
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, ..._st, dram__bytes_read.sum, "
        "dram__bytes_write.sum):\n");
    c.print(std::cout);
    print_simulated_counts(counts, launches);
  }
  if (!all_passed) {
    std::printf("CHECK FAILED: a GPU result differs from the CPU reference (see 'check')\n");
    return 1;
  }
  return 0;
}

}  // namespace

void register_memory_bench(CLI::App& bench, BenchContext& ctx) {
  auto args = std::make_shared<MemoryBenchArgs>();
  CLI::App* sub = bench.add_subcommand(
      "memory",
      "Memory access: transpose ladder, strided read, shared-memory banks, AoS vs SoA: GB/s, % of the "
      "reference, predicted sectors and bank conflicts, CPU versions");
  args->flags = std::make_unique<ParamFlags>(
      *sub, ui::memory_schema(),
      std::vector<std::string>{"kernel", "size", "n", "stride", "bank_stride", "block", "threads", "device"},
      "", ParamFlags::Defaults::Bench);
  sub->add_option("--variant", args->variant,
                  "One variant of the kernel, or all (transpose: copy, naive, tiled, tiled-padded, "
                  "tiled-padded-multi; stride: strided, random; banks: plain, padded; aos: aos, soa)")
      ->capture_default_str();
  sub->add_option("--reps", args->reps, "Timed repetitions per variant (after one warm-up launch)")
      ->capture_default_str();
  sub->add_flag(
      "--counts", args->counts,
      "Also print the predicted request, sector and wavefront totals per launch (to compare with ncu)");
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args); }); });
}

}  // namespace bs::cli
