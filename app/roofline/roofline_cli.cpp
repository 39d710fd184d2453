// roofline_cli.cpp: `blockscope roofline [--out DIR] [--width W --height H] [--remeasure] [--quick]`:
// measures (or reads from the cache) the ceilings, runs each lab's roofline runs (its descriptor's
// roofline_runs: its variants at their bench sizes on the GPU and its CPU baselines; a lab without them is
// named and skipped), and writes the roofline figure files (PNG, SVG, CSV, JSON, record). Without a GPU it
// does the CPU part and says so. --quick: small sizes (tests, a first look).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/bench.h"
#include "app/labs.h"
#include "app/sweep/record.h"
#include "app/roofline/roofline_cli.h"
#include "app/roofline/roofline_figure.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/common/device_info.h"

namespace bs::cli {

namespace {

struct RooflineOptions {
  std::string out;
  int width = 1600, height = 900;
  bool remeasure = false;
  bool quick = false;
  std::string cache_dir;
  std::vector<std::string> labs;  // --labs: only these (empty: every lab with roofline runs)
};

// The labs to run: those named by --labs (each must have roofline runs), else every lab that has them.
// Throws InvalidRequest naming the flag.
std::vector<const LabDescriptor*> labs_to_run(const RooflineOptions& o) {
  std::vector<const LabDescriptor*> out;
  std::string with_runs;
  for (const LabDescriptor& d : lab_entries())
    if (d.roofline_runs) with_runs += (with_runs.empty() ? "" : ", ") + std::string(d.id);
  for (const std::string& id : o.labs) {
    const LabDescriptor* d = find_lab(id);
    if (!d || !d->roofline_runs)
      throw InvalidRequest("--labs: '" + printable(id) + "' is not a lab with roofline runs (" + with_runs + ")");
    out.push_back(d);
  }
  if (o.labs.empty())
    for (const LabDescriptor& d : lab_entries())
      if (d.roofline_runs) out.push_back(&d);
  return out;
}

void say(const std::string& s) {
  std::printf("%s\n", s.c_str());
  std::fflush(stdout);
}

int run_roofline(const RooflineOptions& o) {
  using namespace roofline;
  const std::vector<const LabDescriptor*> labs = labs_to_run(o);  // before any measuring
  const DeviceInfo dev = query_device(0);
  Chart chart;
  chart.gpu_cache_bytes = dev.available ? static_cast<double>(dev.l2_bytes) : 0.0;
  chart.cpu_cache_bytes = cpu_last_level_cache_bytes();
  work::RunLog log(4096);
  LabEnv env;
  env.device = dev;
  env.runs = &log;
  const std::string dir = o.out.empty() ? "roofline-" + record::compact_timestamp() : o.out;
  record::prepare_output_dir(dir);  // before minutes of runs: a folder that cannot be written fails now
  const std::string cache = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  std::string msg;
  if (dev.available) {
    chart.gpu = get_ceilings(true, cache, &msg, o.remeasure);
    chart.datasheet = datasheet_for(dev.name);
    say("GPU ceilings (" + dev.name + "): " + msg);
    const Ceilings& g = *chart.gpu;
    say("  DRAM copy " + fmt_fixed(g.dram_gbs, 0) + " GB/s, L2 " + fmt_fixed(g.l2_gbs, 0) + " GB/s, shared " +
        fmt_fixed(g.smem_gbs, 0) + " GB/s, FP32 " + fmt_fixed(g.fp32_gflops, 0) + " GFLOP/s, launch " +
        fmt_fixed(g.launch_us, 2) + " us");
    say("  tensor cores: " + tensor_core_summary(g) + (g.tc_how.empty() ? "" : " (" + g.tc_how + ")"));
    // The checks against known-good kernels the benches already time (a lab's roofline_check).
    for (const LabDescriptor& d : lab_entries())
      if (d.roofline_check) say("  " + d.roofline_check(g.dram_gbs));
    if (chart.datasheet)
      say("  " + chart.datasheet->name + ": DRAM " + fmt_fixed(chart.datasheet->dram_gbs, 0) +
          " GB/s, FP32 " + fmt_fixed(chart.datasheet->fp32_gflops, 0) + " GFLOP/s");
  } else {
    say("no GPU (" + dev.reason + "): the CPU part only");
  }
  chart.cpu = get_ceilings(false, cache, &msg, o.remeasure);
  say("CPU ceilings (" + chart.cpu->device + "): " + msg);
  say("  memory copy " + fmt_fixed(chart.cpu->dram_gbs, 1) + " GB/s, FP32 " +
      fmt_fixed(chart.cpu->fp32_gflops, 1) + " GFLOP/s");
  for (const LabDescriptor* d : labs) {
    say(std::string("running ") + d->id + (dev.available ? " (GPU and CPU)" : " (CPU)"));
    d->roofline_runs(env, dev.available, o.quick);
  }
  std::string skipped;
  for (const LabDescriptor& d : lab_entries())
    if (!d.roofline_runs) skipped += (skipped.empty() ? "" : ", ") + std::string(d.id);
  if (!skipped.empty()) say("not on the roofline (no roofline runs): " + skipped);
  chart.runs = log.snapshot();
  Table t;
  t.header = {"run", "device", "ms", "GFLOP/s", "GB/s (model)", "FLOP/B", "of nearer ceiling"};
  for (const auto& r : chart.runs) {
    const Roof roof = roof_for(chart, r);
    const Placement p = place(roof, r);
    t.rows.push_back(
        {r.label, work::to_string(r.where), fmt_fixed(r.seconds * 1e3, 3), fmt_fixed(p.gflops, 1),
         fmt_fixed(p.gbs, 1), p.no_flops ? "-" : fmt_fixed(p.intensity, 3),
         roof.valid() ? fmt_fixed(p.pct, 0) + "% (" + (p.no_flops ? "bandwidth" : to_string(p.bound)) + ")"
                      : "-"});
  }
  t.print(std::cout);
  std::cout.flush();
  std::vector<std::string> errors;
  const auto files = write_files(chart, dir, o.width, o.height, errors);
  std::string list;
  for (const auto& f : files)
    list += (list.empty() ? "" : ", ") + f;
  say("wrote " + dir + "/: " + list);
  for (const auto& e : errors)
    print_error(e, 0);
  return errors.empty() ? 0 : 1;
}

}  // namespace

void register_roofline_command(CLI::App& app, BenchContext& ctx) {
  auto opt = std::make_shared<RooflineOptions>();
  CLI::App* sub = app.add_subcommand(
      "roofline",
      "Measure the ceilings, run every lab's variants and write the roofline (PNG, SVG, CSV, JSON)");
  sub->add_option("--out", opt->out, "Output folder (default roofline-<UTC time>)");
  sub->add_option("--width", opt->width, "PNG width in pixels (SVG: user units)")
      ->check(in_range(64, 16384, "pixels"));
  sub->add_option("--height", opt->height, "PNG height in pixels")->check(in_range(64, 16384, "pixels"));
  sub->add_flag("--remeasure", opt->remeasure, "Measure the ceilings even when cached");
  sub->add_flag("--quick", opt->quick, "Small sizes (a first look; tests)");
  sub->add_option("--labs", opt->labs, "Only these labs (ids, comma-separated; default every lab with runs)")
      ->delimiter(',');
  sub->add_option("--cache-dir", opt->cache_dir,
                  "Where the ceilings are cached (default ~/.cache/blockscope)")
      ->group("");
  sub->callback([opt, &ctx] { run_guarded(ctx, [&] { return run_roofline(*opt); }); });
}

}  // namespace bs::cli
