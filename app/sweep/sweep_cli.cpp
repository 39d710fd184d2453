// sweep_cli.cpp: the top-level sweep commands:
//   blockscope sweep <lab> --param NAME=V1,V2,... [--param ...] [--fixed NAME=V] [--reps R] [--warmup W]
//                    [--device auto|gpu|cpu|all] [--png WxH] [--scale S]
//                    [--metric time|throughput|roofline] [--force] [--kernel FILE.cu] --out DIR
//   blockscope replay RECORD.json [--out DIR] [--force]
// Both write DIR/sweep.csv, summary.csv, sweep.json, figure.svg, figure.png and record.json (--metric
// roofline: also roofline.csv and roofline.json, under the ceilings of the per-device cache, measured first
// when none are cached; a lab without a work model is refused before anything runs), print one
// progress line per point to stderr and a summary table to stdout. Before anything runs: the definition and
// the export sizes are checked, DIR is created and checked writable and locked (DIR/.blockscope-lock) against
// a second sweep, and the duration is estimated (above 10 minutes: refused without --force). A replay without
// --out writes into a new folder next to the record's, never over the original files. Bad input:
// "blockscope: <message naming the argument>" and exit 2; no GPU for --device gpu, a PNG that could not be
// rendered or a sticky CUDA error: exit 1 (the other files are still written). Never exit(), never crash.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/bench.h"
#include "app/kernel/kernel_bench.h"
#include "app/kernel/user_kernels.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/source_file.h"
#include "app/sweep/record.h"
#include "app/sweep/roofline.h"
#include "app/sweep/sweep.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "core/launch.h"

namespace bs::cli {

namespace {

struct SweepArgs {
  std::string lab;
  std::vector<std::string> params, fixed;
  // Wide, then range-checked: a count must never wrap (4294967297 repetitions is refused, not run once).
  int64_t reps = 10;
  int64_t warmup = 2;
  bool force = false;
  std::string device = "all";
  std::string png = "1600x900";
  float scale = 1.0f;
  std::string metric = "time";
  std::string out;
  std::string kernel;  // --kernel FILE.cu: the user's kernel that kernel=user runs (heat, vector)
  std::string cache_dir;  // --cache-dir: where the roofline's ceilings are cached (tests)
};

struct ReplayArgs {
  std::string record;
  std::string out;
  bool force = false;
  std::string cache_dir;
};

int fail(const std::string& msg, int code) {
  return print_error(msg, code);  // one line, control characters escaped
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void print_summary(const sweep::Result& r) {
  Table t;
  for (const sweep::Param& p : r.definition.params)
    t.header.push_back(p.name);
  for (const std::string& h : {std::string("series"), std::string("median ms"), std::string("p10"),
                               std::string("p90"), "median " + r.unit, std::string("reps")})
    t.header.push_back(h);
  for (const sweep::Point& pt : r.points) {
    for (const sweep::SeriesResult& s : pt.series) {
      std::vector<std::string> row = pt.values;
      for (const std::string& c : {s.name, fmt(s.time.median), fmt(s.time.p10), fmt(s.time.p90),
                                   fmt(s.rate.median), std::to_string(s.time.count)})
        row.push_back(c);
      t.rows.push_back(std::move(row));
    }
  }
  t.print(std::cout);
  std::vector<std::string> notes = r.notes;
  for (const sweep::Point& pt : r.points) {
    for (const std::string& n : pt.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    if (!pt.error.empty()) {
      std::string where;
      for (size_t i = 0; i < pt.values.size() && i < r.definition.params.size(); ++i)
        where += (where.empty() ? "" : " ") + r.definition.params[i].name + "=" + pt.values[i];
      notes.push_back(where + ": " + pt.error);
    }
  }
  for (const std::string& n : notes)
    std::cout << "note: " << n << "\n";
  std::cout << r.time_label << ": median of " << r.definition.repetitions << " timed runs after "
            << r.definition.warmup << " warm-up runs (GPU: CUDA events; CPU: host clock)\n";
}

// The user's kernels a CLI sweep or replay runs for kernel=user: they live for this command.
UserKernels& cli_user_kernels() {
  static UserKernels kernels;
  return kernels;
}

// Publishes a good compile of `request` as the kernel that kernel=user runs for its target.
void use_user_kernel(const kernel::CompileRequest& request, const kernel::CompileResult& result,
                     const std::string& name) {
  UserKernels& k = cli_user_kernels();
  k.publish(request, std::make_shared<const kernel::CompileResult>(result), name);
  k.set_in_use(*request.target, true);
  set_active_user_kernels(&k);
}

// A replayed record's user kernels ({"heat": {"source", "options", ...}}, UserKernels::record_of): each source
// checked and compiled again (for this machine's GPU, else the compiler's default) and published. An error
// names the record's field.
std::optional<std::string> compile_recorded_kernels(const nlohmann::json& kernels, sweep::Device device) {
  if (!kernels.is_object()) return std::string("user_kernels: expected an object (heat, vector)");
  const DeviceInfo dev = device == sweep::Device::Cpu ? DeviceInfo{} : query_device();
  for (const auto& [key, rec] : kernels.items()) {
    const std::string field = "user_kernels." + printable(key);
    const auto target = kernel::k_target_names.parse(key);
    if (!target) return field + ": not a kernel target (" + kernel::k_target_names.list(", ") + ")";
    if (!rec.is_object() || !rec.contains("source") || !rec["source"].is_string())
      return field + ".source: the record holds no kernel source (a string)";
    kernel::CompileRequest req;
    req.source = rec["source"].get<std::string>();
    if (auto p = kernel::check_source_text(req.source)) return field + ".source: " + p->text();
    req.target = *target;
    if (dev.available) req.arch = dev.cc_major * 10 + dev.cc_minor;
    if (rec.contains("options")) {
      const nlohmann::json& o = rec["options"];
      if (!o.is_object()) return field + ".options: expected an object";
      const auto flag = [&](const char* name, bool& out) -> std::optional<std::string> {
        if (!o.contains(name)) return std::nullopt;
        if (!o[name].is_boolean()) return field + ".options." + name + ": expected true or false";
        out = o[name].get<bool>();
        return std::nullopt;
      };
      for (auto [name, out] : {std::pair<const char*, bool*>{"fast_math", &req.options.fast_math},
                               {"lineinfo", &req.options.lineinfo},
                               {"device_debug", &req.options.device_debug}})
        if (auto e = flag(name, *out)) return e;
      if (o.contains("maxrregcount")) {
        const nlohmann::json& m = o["maxrregcount"];
        if (!m.is_number_integer() || m.get<int64_t>() < 0 || m.get<int64_t>() > 255)
          return field + ".options.maxrregcount: expected a whole number 0..255";
        req.options.maxrregcount = m.get<int>();
      }
      if (o.contains("defines")) {
        const nlohmann::json& ds = o["defines"];
        if (!ds.is_array()) return field + ".options.defines: expected [[NAME, VALUE], ...]";
        for (const nlohmann::json& d : ds) {
          if (!d.is_array() || d.size() != 2 || !d[0].is_string() || !d[1].is_string())
            return field + ".options.defines: expected [[NAME, VALUE], ...]";
          req.options.defines.emplace_back(d[0].get<std::string>(), d[1].get<std::string>());
        }
      }
    }
    kernel::KernelCache cache(kernel::default_cache_dir());
    const kernel::CompileResult r = kernel::compile_cached(cache, req);
    if (!r.ok()) {
      for (const kernel::Diagnostic& d : r.diagnostics)
        std::fprintf(stderr, "%s\n", printable(kernel::format_diagnostic(d, field + ".source"), 2000).c_str());
      return field + ".source: the recorded kernel does not compile here: " + r.message;
    }
    use_user_kernel(req, r, rec.value("name", std::string("the recorded ") + key + " kernel"));
  }
  return std::nullopt;
}

// Plans the sweep (notes, estimate), prepares and locks the output directory, runs, writes the files, prints
// what happened. Everything that can be refused is refused before the first point runs. Returns the exit
// code.
int run_and_export(const sweep::Definition& d, const record::ExportRequest& request, const std::string& out,
                   bool force, const std::string& cache_dir) {
  record::ExportRequest req = request;
  if (const auto err = record::check_request(req)) return fail(*err, 2);
  if (req.figure.metric == sweep::Metric::Roofline) {
    const std::string why = sweep::roofline_refusal(sweep::target_of(d.lab));
    if (!why.empty()) return fail("--metric roofline: " + why, 2);
  }
  const sweep::Plan plan =
      sweep::plan_sweep(d, d.device == sweep::Device::Cpu ? DeviceInfo{} : query_device());
  for (const std::string& n : plan.notes)
    std::fprintf(stderr, "note: %s\n", n.c_str());
  if (plan.estimate_s > sweep::k_confirm_above_s && !force)
    return fail("this sweep is estimated at about " + sweep::duration_text(plan.estimate_s) +
                    " (a conservative estimate; the limit without asking is " +
                    sweep::duration_text(sweep::k_confirm_above_s) +
                    "): fewer points, repetitions or smaller sizes, or add --force to run it anyway",
                2);
  record::prepare_output_dir(out);  // InvalidRequest -> exit 2, before anything runs
  const record::DirLock lock(out);
  if (lock.took_over_stale())
    std::fprintf(stderr, "note: took over a stale lock in %s (process %ld is gone)\n", out.c_str(),
                 lock.stale_pid());
  std::fprintf(stderr, "estimated duration: up to %s\n", sweep::duration_text(plan.estimate_s).c_str());
  // The roofline's ceilings before the sweep, so measuring them does not overlap its timings.
  if (req.figure.metric == sweep::Metric::Roofline)
    for (const std::string& line :
         sweep::fill_ceilings(req.figure, plan.run_gpu, plan.run_cpu,
                              cache_dir.empty() ? roofline::default_cache_dir() : cache_dir))
      std::fprintf(stderr, "note: %s\n", line.c_str());
  JobControl ctl;
  const sweep::Result r = sweep::run_plan(
      plan, ctl, [](const sweep::Progress& p) { std::fprintf(stderr, "%s\n", p.line.c_str()); });
  print_summary(r);
  const record::ExportOutcome o = record::write_exports(r, out, req, false);
  std::cout << "wrote into " << out << ":";
  for (const std::string& f : o.files)
    std::cout << " " << f;
  std::cout << "\n";
  int code = 0;
  for (const std::string& e : o.errors)
    code = fail(e, 1);
  if (!r.stopped.empty()) code = fail(r.stopped, 1);
  // A point that failed while it ran is a failure of the sweep, even though the other points' files are
  // written. A combination the lab's rules exclude ("skipped: 256x8 is more than 1024 threads") is not.
  const size_t failed = sweep::failed_points(r);
  if (failed > 0)
    code = fail(std::to_string(failed) + " of " + std::to_string(r.points.size()) +
                    " points failed (the notes above say why; the files hold every point)",
                1);
  return code;
}

int run_sweep_command(const SweepArgs& a) {
  if (a.lab.empty()) return fail("sweep: name a lab (heat, matmul, montecarlo, vector)", 2);
  if (a.out.empty()) return fail("--out: give a directory for the sweep's files", 2);
  if (a.params.empty())
    return fail("--param: sweep at least one parameter, e.g. --param block.x=32,64,128", 2);
  sweep::Definition d;
  d.lab = a.lab;
  for (const std::string& p : a.params)
    d.params.push_back(sweep::parse_param(p));
  for (const std::string& f : a.fixed) {
    const auto [name, value] = sweep::parse_fixed(f);
    d.fixed[name] = value;
  }
  if (a.reps < 1 || a.reps > sweep::k_max_repetitions)
    return fail("--reps: " + std::to_string(a.reps) + " is outside 1.." +
                    std::to_string(sweep::k_max_repetitions) + " timed runs per point",
                2);
  if (a.warmup < 0 || a.warmup > sweep::k_max_warmup)
    return fail("--warmup: " + std::to_string(a.warmup) + " is outside 0.." +
                    std::to_string(sweep::k_max_warmup) + " warm-up runs",
                2);
  d.repetitions = static_cast<int>(a.reps);
  d.warmup = static_cast<int>(a.warmup);
  const auto dev = sweep::parse_device(a.device);
  if (!dev) return fail("--device: '" + a.device + "' is not one of " + sweep::k_device_names.list(", "), 2);
  d.device = *dev;
  record::ExportRequest req;
  const ParsedDim2 png = parse_dim2(a.png, "--png");
  if (!png.value) return fail(png.error, 2);
  if (png.value->x < record::k_min_png_px || png.value->y < record::k_min_png_px ||
      png.value->x > record::k_max_png_px || png.value->y > record::k_max_png_px)
    return fail("--png: " + a.png + " is outside 64x64 .. 16384x16384 pixels", 2);
  req.width = static_cast<int>(png.value->x);
  req.height = static_cast<int>(png.value->y);
  if (!(a.scale >= 0.5f && a.scale <= 8.0f))
    return fail("--scale: " + fmt(a.scale) + " is outside 0.5 .. 8", 2);
  req.scale = a.scale;
  const auto metric = sweep::k_metric_names.parse(a.metric);
  if (!metric)
    return fail("--metric: '" + a.metric + "' is not " + sweep::k_metric_names.list(", ", " or "), 2);
  req.figure.metric = *metric;
  req.render_path = "headless CLI (figure.png through an EGL context)";
  // --kernel: the user's kernel for kernel=user, compiled for this lab's contract (the app's Sweep window
  // uses the Kernel editor's instead). It lives for this command; the record keeps its source.
  if (!a.kernel.empty()) {
    const auto target = kernel::k_target_names.parse(d.lab);
    if (!target || *target == kernel::Target::Matmul)
      return fail("--kernel: only the heat and vector sweeps run a user kernel (kernel=user)", 2);
    const DeviceInfo dev = d.device == sweep::Device::Cpu ? DeviceInfo{} : query_device();
    const SourceCompile sc =
        compile_source_file(a.kernel, *target, dev.available ? dev.cc_major * 10 + dev.cc_minor : 0);
    if (!sc.result) return fail("--kernel " + sc.error, 2);
    use_user_kernel(sc.request, *sc.result, a.kernel);
    req.user_kernels = cli_user_kernels().record_json();
  }
  try {
    sweep::validate(d);
  } catch (const InvalidRequest& e) {
    return fail(e.what(), 2);
  }
  if (d.device == sweep::Device::Gpu) {
    const DeviceInfo dev = query_device();
    if (!dev.available) return fail("--device gpu: no CUDA device: " + dev.reason, 1);
  }
  return run_and_export(d, req, a.out, a.force, a.cache_dir);
}

int run_replay_command(const ReplayArgs& a) {
  if (a.record.empty()) return fail("replay: name a record.json", 2);
  const record::Loaded l = record::load_record(a.record);  // InvalidRequest -> exit 2 with the reason
  // Never over the original sweep's files: a new folder next to it unless --out names one.
  std::string out = a.out;
  if (out.empty()) {
    const std::filesystem::path src = std::filesystem::absolute(a.record).parent_path();
    const std::string stamp = "replay-" + record::compact_timestamp();
    // DIR-replay-<time> next to DIR; a record at the file system's root gets /replay-<time>.
    out = record::fresh_dir(src.has_filename() ? src.string() + "-" + stamp : (src / stamp).string());
  }
  record::ExportRequest req = l.request;
  req.render_path = "headless CLI replay of " + a.record;
  if (!req.user_kernels.is_null()) {
    if (auto err = compile_recorded_kernels(req.user_kernels, l.definition.device))
      return fail(a.record + ": " + *err, 2);
    req.user_kernels = cli_user_kernels().record_json();  // as compiled now (this machine's architecture)
  }
  std::cerr << "replaying the " << l.definition.lab << " sweep of " << a.record << " into " << out
            << (a.out.empty() ? " (a new folder: the original files stay; --out chooses another)" : "")
            << "\n";
  return run_and_export(l.definition, req, out, a.force, a.cache_dir);
}

}  // namespace

void register_sweep_commands(CLI::App& app, BenchContext& ctx) {
  auto s = std::make_shared<SweepArgs>();
  CLI::App* sw = app.add_subcommand(
      "sweep",
      "Sweep one or two parameters of a lab: CSV of every sample, summary, JSON, SVG/PNG figure, record");
  std::string labs;  // every lab with a sweep target: "heat | matmul | montecarlo | vector | reduce"
  for (const std::string& l : sweep::lab_names())
    labs += (labs.empty() ? "" : " | ") + l;
  sw->add_option("lab", s->lab, labs);
  sw->add_option(
      "--param", s->params,
      "NAME=V1,V2,... or NAME=A..B (doubling), e.g. block.x=32,64,128 or size=2^10..2^14; once or twice");
  sw->add_option("--fixed", s->fixed, "NAME=VALUE held for every point, e.g. size=2048 (repeatable)");
  sw->add_option("--reps", s->reps, "timed repetitions per point (default 10)");
  sw->add_option("--warmup", s->warmup, "untimed warm-up runs per point (default 2)");
  sw->add_option("--device", s->device,
                 "auto | gpu | cpu | all (default all: GPU series where a GPU exists, and CPU; auto: the GPU "
                 "series, or the CPU ones where no GPU exists)");
  sw->add_option("--png", s->png, "figure.png size in pixels, WxH (default 1600x900)");
  sw->add_option("--scale", s->scale, "figure.png text and line scale, 0.5..8 (default 1; 2 for slides)");
  sw->add_option("--metric", s->metric,
                 "figure: time | throughput against the parameters, or roofline (every series at every point "
                 "under this machine's ceilings; default time)");
  sw->add_option("--out", s->out, "directory for the files (created if needed)");
  sw->add_flag("--force", s->force, "run even when the estimated duration is above 10 minutes");
  sw->add_option("--kernel", s->kernel,
                 "your kernel (.cu, the lab's contract: heat_step or vector_op) that kernel=user runs");
  sw->add_option("--cache-dir", s->cache_dir,
                 "where the roofline's ceilings are cached (default ~/.cache/blockscope)")
      ->group("");
  sw->callback([s, &ctx] { run_guarded(ctx, [&] { return run_sweep_command(*s); }); });

  auto r = std::make_shared<ReplayArgs>();
  CLI::App* rp =
      app.add_subcommand("replay", "Re-run the sweep of a record.json and write the same files again");
  rp->add_option("record", r->record, "a record.json written by `blockscope sweep` or the Sweep window");
  rp->add_option(
      "--out", r->out,
      "directory for the files (default: a new folder DIR-replay-<time> next to the record's DIR)");
  rp->add_flag("--force", r->force, "run even when the estimated duration is above 10 minutes");
  rp->add_option("--cache-dir", r->cache_dir, "where the roofline's ceilings are cached")->group("");
  rp->callback([r, &ctx] { run_guarded(ctx, [&] { return run_replay_command(*r); }); });
}

}  // namespace bs::cli
