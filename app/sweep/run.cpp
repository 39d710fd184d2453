// run.cpp: see run.h. The per-lab timing lives in each lab's target (app/<lab>/<lab>_sweep_target.cpp); this
// file holds the plan (device, stand-ins, notes, estimate) and the runner loop (progress, ETA, cancel, GPU
// errors).
#include "app/sweep/run.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>

#include "app/sweep/targets.h"
#include "app/sweep/util.h"
#include "core/error.h"

namespace bs::sweep {

using util::fmt;
using util::invalid;
using util::join;

namespace {

// "block.x=64 size=2048"
std::string point_label(const Definition& d, const std::vector<std::string>& values) {
  std::string s;
  for (size_t i = 0; i < d.params.size() && i < values.size(); ++i)
    s += (s.empty() ? "" : " ") + d.params[i].name + "=" + values[i];
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* device_word(Device d) {
  return d == Device::Gpu ? "GPU" : "CPU";
}

// Settings every point of a plan runs with.
RunSettings settings_of(const Plan& p) {
  RunSettings s;
  s.warmup = p.definition.warmup;
  s.repetitions = p.definition.repetitions;
  s.run_gpu = p.run_gpu;
  s.run_cpu = p.run_cpu;
  s.cpu_explicit = p.cpu_explicit;
  s.named_explicit = p.named_explicit;
  return s;
}

Values values_at(const Values& base, const Definition& d, const std::vector<std::string>& point) {
  Values v = base;
  for (size_t k = 0; k < point.size() && k < d.params.size(); ++k)
    v[d.params[k].name] = point[k];
  return v;
}

}  // namespace

std::string duration_text(double s) {
  if (s < 90) return fmt(std::max(s, 0.0), 2) + " s";
  if (s < 5400) return fmt(s / 60, 2) + " min";
  return fmt(s / 3600, 2) + " h";
}

double estimate_eta(double elapsed_s, double work_done, double work_total) {
  if (work_done <= 0 || elapsed_s <= 0) return -1;
  return elapsed_s * std::max(work_total - work_done, 0.0) / work_done;
}

Result run_sweep(const Definition& d, JobControl& ctl, const ProgressFn& on_progress) {
  return run_sweep_with(target_of(d.lab), d, ctl, on_progress);
}

Result run_plan(const Plan& plan, JobControl& ctl, const ProgressFn& on_progress) {
  return run_plan_with(target_of(plan.definition.lab), plan, ctl, on_progress);
}

Plan plan_sweep(const Definition& d, const DeviceInfo& dev) {
  return plan_with(target_of(d.lab), d, dev);
}

Result run_sweep_with(const Target& t, const Definition& d, JobControl& ctl, const ProgressFn& on_progress) {
  const DeviceInfo dev = d.device == Device::Cpu ? DeviceInfo{} : query_device();
  return run_plan_with(t, plan_with(t, d, dev), ctl, on_progress);
}

Plan plan_with(const Target& t, const Definition& d, const DeviceInfo& dev) {
  validate_with(t, d);
  Plan p;
  p.definition = d;
  // No GPU and the CPU was not demanded: CPU values may stand in for GPU-only ones (a preset's matmul ladder
  // becomes the CPU ladder) rather than measuring nothing.
  bool stand_ins = false;
  const std::string why = dev.reason.empty() ? std::string("no CUDA device") : dev.reason;
  switch (d.device) {
    case Device::Gpu:
      if (!dev.available) throw std::runtime_error("device gpu: no CUDA device: " + why);
      p.run_gpu = true;
      break;
    case Device::Cpu:
      p.run_cpu = p.cpu_explicit = true;
      break;
    case Device::All:
      p.run_cpu = true;
      p.run_gpu = dev.available;
      if (!dev.available) {
        p.notes.push_back("GPU rows skipped: no CUDA device (" + why + ")");
        stand_ins = true;
      }
      break;
    case Device::Auto:
      p.run_gpu = dev.available;
      p.run_cpu = !dev.available;
      p.definition.device = dev.available ? Device::Gpu : Device::Cpu;
      if (!dev.available) {
        p.notes.push_back("no GPU here (" + why + "): this sweep runs on the CPU");
        stand_ins = true;
      }
      break;
  }
  if (p.run_gpu) p.gpu_name = dev.name;
  auto runs_on = [&](Device where) { return where == Device::Gpu ? p.run_gpu : p.run_cpu; };
  const std::string runs_only = p.run_gpu && !p.run_cpu ? "GPU" : "CPU";
  const std::string device_how = d.device == Device::Cpu   ? "device cpu"
                                 : d.device == Device::Gpu ? "device gpu"
                                                           : "no GPU here";

  // Values bound to a device this sweep does not run on: refuse when nothing would be measured.
  for (const auto& [k, v] : d.fixed)
    if (const auto where = t.value_device(k, v); where && !runs_on(*where))
      invalid(k + " = " + v + " runs only on the " + device_word(*where) +
              ", and this sweep runs only on the " + runs_only + " (" + device_how +
              "): nothing would be measured");
  for (Param& sp : p.definition.params) {
    std::vector<std::string> keep, dropped;
    Device bound = Device::All;
    for (const std::string& v : sp.values) {
      const auto where = t.value_device(sp.name, v);
      if (where && !runs_on(*where)) {
        dropped.push_back(v);
        bound = *where;
      } else {
        keep.push_back(v);
      }
    }
    if (dropped.empty()) continue;
    if (!keep.empty()) {
      p.notes.push_back(sp.name + " " + join(dropped) + " skipped: they run only on the " +
                        device_word(bound) + " (" + device_how + ")");
    } else {
      const std::vector<std::string> cpu = stand_ins ? t.cpu_values(sp.name) : std::vector<std::string>{};
      if (cpu.empty()) {
        const std::vector<std::string> alt =
            bound == Device::Gpu ? t.cpu_values(sp.name) : std::vector<std::string>{};
        invalid(sp.name + " = " + join(dropped) + ": these run only on the " + device_word(bound) +
                ", and this sweep runs only on the " + runs_only + " (" + device_how +
                "): nothing would be measured" +
                (alt.empty() ? std::string() : ". On the CPU, sweep " + sp.name + "=" + join(alt, ",")));
      }
      keep = cpu;
      p.named_explicit = false;
      p.notes.push_back("no GPU here: the GPU " + sp.name + " values (" + join(dropped) +
                        ") cannot run; the CPU ones run instead (" + join(cpu) + ")");
    }
    sp.values = keep;
  }
  if (p.definition.params != d.params) validate_with(t, p.definition);

  // Parameters only GPU code reads, swept where no GPU series runs: say that their effect is noise.
  if (!p.run_gpu) {
    const std::vector<std::string> gpu_only = t.gpu_only_params();
    for (const Param& sp : p.definition.params)
      if (std::find(gpu_only.begin(), gpu_only.end(), sp.name) != gpu_only.end())
        p.ignored_params.push_back(sp.name);
    if (!p.ignored_params.empty())
      p.notes.push_back(join(p.ignored_params, " and ") + (p.ignored_params.size() > 1 ? " do" : " does") +
                        " not change CPU time: the CPU code ignores " +
                        (p.ignored_params.size() > 1 ? "them" : "it") +
                        ", so differences between the values are noise (no best value is marked)");
  }

  const RunSettings s = settings_of(p);
  const Values base = default_values(t, p.definition.fixed);
  for (const auto& pt : points_of(p.definition)) {
    try {
      p.estimate_s += t.estimate_s(values_at(base, p.definition, pt), s);
    } catch (const InvalidRequest&) {
      // A combination that cannot run is skipped at run time: it costs nothing.
    }
  }
  return p;
}

Result run_plan_with(const Target& t, const Plan& plan, JobControl& ctl, const ProgressFn& on_progress) {
  const Definition& d = plan.definition;
  validate_with(t, d);
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.definition = d;
  r.unit = t.unit();
  r.time_label = t.time_label();
  r.notes = plan.notes;
  r.gpu_name = plan.gpu_name;
  r.ignored_params = plan.ignored_params;
  const RunSettings s = settings_of(plan);

  const Values base = default_values(t, d.fixed);
  const auto pts = points_of(d);
  std::vector<double> work;
  double total = 0;
  for (const auto& pt : pts) {
    const Values v = values_at(base, d, pt);
    double w = 0;
    try {
      w = t.work(v);
    } catch (const InvalidRequest&) {
      // A combination that cannot run (skipped at run time) costs nothing.
    }
    work.push_back(std::max(w, 1e-9));
    total += work.back();
  }
  double done = 0;
  ctl.set_progress(0);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (ctl.cancelled()) {
      r.cancelled = true;
      break;
    }
    const Values v = values_at(base, d, pts[i]);
    Point pt;
    pt.values = pts[i];
    bool stop = false;
    try {
      try {
        t.validate(v);
      } catch (const InvalidRequest& e) {
        throw InvalidRequest(std::string("skipped: ") + e.what());
      }
      PointRun run = t.run(v, s, ctl);
      for (SeriesRun& sr : run.series) {
        SeriesResult res;
        res.name = std::move(sr.name);
        res.gpu = sr.gpu;
        res.time_ms = std::move(sr.time_ms);
        res.throughput = std::move(sr.throughput);
        res.summarize();
        pt.series.push_back(std::move(res));
      }
      pt.notes = std::move(run.notes);
    } catch (const JobCancelled&) {
      r.cancelled = true;
      break;
    } catch (const GpuError& e) {
      pt.error = std::string("GPU error: ") + e.what();
      if (e.sticky()) {
        r.stopped = "the sweep stopped at " + point_label(d, pts[i]) + ": " + e.what() +
                    " (a sticky CUDA error: the device needs a reset)";
        stop = true;
      }
    } catch (const std::exception& e) {
      pt.error = e.what();
    }
    r.points.push_back(std::move(pt));
    done += work[i];
    ctl.set_progress(total > 0 ? done / total : 1.0);
    if (on_progress) {
      Progress p;
      p.point = i + 1;
      p.points = pts.size();
      p.fraction = total > 0 ? done / total : 1.0;
      p.elapsed_s = seconds_since(t0);
      p.eta_s = estimate_eta(p.elapsed_s, done, total);
      std::string line = "[" + std::to_string(i + 1) + "/" + std::to_string(pts.size()) + "] " +
                         point_label(d, pts[i]) + ":";
      const Point& last = r.points.back();
      for (const SeriesResult& sr : last.series)
        line += " " + sr.name + " " + fmt(sr.time.median) + " ms;";
      if (!last.error.empty()) line += " " + last.error + ";";
      line += " ETA " + (p.eta_s < 0 ? std::string("?") : duration_text(p.eta_s));
      p.line = line;
      on_progress(p);
    }
    if (stop) break;
  }
  r.elapsed_s = seconds_since(t0);
  return r;
}

}  // namespace bs::sweep
