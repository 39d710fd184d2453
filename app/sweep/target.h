// target.h: what a sweep needs from a lab: its parameter names (with defaults and help), a validator, a cost
// estimate for progress and ETA, and a runner that times one point's series (warm-up runs first, then every
// repetition kept). Each lab implements it next to its glue (app/<lab>/<lab>_sweep_target.cpp); this header
// knows no lab.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/sweep/device.h"
#include "core/params.h"
#include "core/cpu_job.h"
#include "core/work_model.h"

namespace bs::sweep {

using Values = std::map<std::string, std::string>;  // every parameter of the lab, resolved

struct ParamSpec {
  const char* name;
  const char* default_value;  // "" = unset (e.g. matmul m: follows size)
  const char* sweep_example;  // values the Sweep window prefills: "32,64,128,256"
  const char* help;           // "threads per block in x (1..1024)"
};

struct RunSettings {
  int warmup = 2;
  int repetitions = 10;
  bool run_gpu = true;
  bool run_cpu = true;
  bool cpu_explicit = false;  // device cpu: run CPU series even where they are slow
  // A CPU-only value named in the sweep (matmul variant=cpu_naive) runs even where it is slow. False when the
  // plan put it there in place of GPU values (no GPU here), so the CPU guards still apply.
  bool named_explicit = true;
};

struct SeriesRun {
  std::string name;
  bool gpu = false;
  std::vector<double> time_ms;
  std::vector<double> throughput;
};

struct PointRun {
  std::vector<SeriesRun> series;
  std::vector<std::string> notes;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual const char* lab() const = 0;
  virtual std::span<const ParamSpec> params() const = 0;
  virtual const char* unit() const = 0;        // throughput unit
  virtual const char* time_label() const = 0;  // "time per step (ms)"
  // Throws bs::InvalidRequest naming the parameter and value ("block.x = 0: ...").
  virtual void validate(const Values& v) const = 0;
  // Relative cost of a point, for progress and ETA (any unit, consistent within the lab).
  virtual double work(const Values& v) const = 0;
  // Times the point's series. Throws JobCancelled when ctl is cancelled between repetitions, bs::GpuError on
  // CUDA failures.
  virtual PointRun run(const Values& v, const RunSettings& s, JobControl& ctl) const = 0;

  // A conservative estimate (slow rates, setup included) of the point's seconds with settings `s`: every
  // warm-up and repetition of every series that would run. 0: unknown (test stand-ins).
  virtual double estimate_s(const Values&, const RunSettings&) const { return 0; }
  // Parameters only the GPU series depend on (block shape, launch layout): the CPU code ignores them.
  virtual std::vector<std::string> gpu_only_params() const { return {}; }
  // The device a value can only run on (matmul variant=smem_tile32: Gpu, cpu_blocked: Cpu); nullopt: either.
  virtual std::optional<Device> value_device(std::string_view /*param*/, std::string_view /*value*/) const {
    return std::nullopt;
  }
  // The CPU values of `param` that stand in for GPU-only ones when no GPU exists (matmul variant:
  // cpu_naive, cpu_blocked, cpu_openblas); empty: none.
  virtual std::vector<std::string> cpu_values(std::string_view /*param*/) const { return {}; }

  // The roofline figure: the work one timed sample of `series` does at this point (FLOPs and minimum DRAM
  // bytes from the lab's model, gpu/<lab>/<lab>_work.h). nullopt: no model for this series (a time that
  // includes PCIe copies, a lab without one). has_work_model() says whether the lab has one at all: a sweep
  // of a lab without one refuses the roofline figure before it runs.
  virtual bool has_work_model() const { return false; }
  virtual std::optional<work::Work> work_model(const Values& /*v*/, std::string_view /*series*/) const {
    return std::nullopt;
  }
};

// A lab's sweep parameters taken from its schema (core/params.h): every parameter with a sweep example, in
// the schema's order, under its sweep name; a pair swept by component ("block.x,block.y") gives one
// parameter per component. Defaults and help are the schema's, so the sweep starts where the app does.
class SchemaParams {
 public:
  explicit SchemaParams(const params::Schema& schema);
  std::span<const ParamSpec> specs() const { return m_specs; }
  // The sweep names of the schema's gpu_only parameters.
  std::vector<std::string> gpu_only() const { return m_gpu_only; }

 private:
  std::deque<std::string> m_text;  // what the specs point into (a deque never moves its elements)
  std::vector<ParamSpec> m_specs;
  std::vector<std::string> m_gpu_only;
};

// The lab's defaults overridden by `fixed`.
Values default_values(const Target& t, const std::map<std::string, std::string>& fixed);
// "size, block.x, block.y, cells, steps"
std::string param_names(const Target& t);
const ParamSpec* find_param(const Target& t, std::string_view name);

// The warm-up rule every target follows: `warmup` calls whose samples are dropped, then `reps` calls whose
// samples are kept, in order. Throws JobCancelled (checked before every call) when ctl is cancelled.
std::vector<double> collect_samples(int warmup, int reps, JobControl& ctl,
                                    const std::function<double()>& sample);

}  // namespace bs::sweep
