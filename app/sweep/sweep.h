// sweep.h: parameter sweeps over any lab. A Definition names the lab, one or two swept parameters with their
// values, fixed parameters, warm-up runs, repetitions and the device; run_sweep() runs every point (warm-up
// excluded, R timed repetitions, every raw sample kept), and the Result goes to CSV, JSON and a figure.
// Pure C++ (no CUDA, no ImGui): the CLI, the Sweep window and the tests share it.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_job.h"
#include "core/enum_names.h"
#include "gpu/common/device_info.h"
#include "core/stats.h"
#include "ui/figure.h"

namespace bs::sweep {

// --- Definition
// ---------------------------------------------------------------------------------------------
struct Param {
  std::string name;                 // "block.x"
  std::vector<std::string> values;  // as typed: "32", "16M", "float4"
  friend bool operator==(const Param&, const Param&) = default;
};

// All: GPU series where a GPU exists, and the CPU series. Gpu / Cpu: only those. Auto: the GPU series when a
// GPU exists, else the CPU series (presets use it, so they run on a laptop without a GPU and say so).
enum class Device { All, Gpu, Cpu, Auto };
// In the order messages list them.
inline constexpr auto k_device_names = enum_names<Device>(
    {{Device::Auto, "auto"}, {Device::Gpu, "gpu"}, {Device::Cpu, "cpu"}, {Device::All, "all"}});
const char* to_string(Device d);                         // k_device_names
std::optional<Device> parse_device(std::string_view s);  // the same names

struct Definition {
  std::string lab = "heat";
  std::vector<Param> params;                 // one or two
  std::map<std::string, std::string> fixed;  // other parameters held at a value
  int warmup = 2;
  int repetitions = 10;
  Device device = Device::All;
  friend bool operator==(const Definition&, const Definition&) = default;
};

// The shared JSON form:
// {"lab":"heat","params":[{"name":"block.x","values":["32","64"]}],"fixed":{"size":"2048"},
// "warmup":2,"repetitions":10,"device":"all"}. Reading throws bs::InvalidRequest naming the bad field.
nlohmann::json to_json(const Definition& d);
Definition definition_from_json(const nlohmann::json& j);

// "block.x=32,64,128" -> {block.x, [32, 64, 128]}. Also ranges that double: "size=2^10..2^14" or
// "size=1024..16384" -> 1024, 2048, 4096, 8192, 16384 (with K/M/G suffixes kept: "size=1K..8K" -> 1K, 2K, 4K,
// 8K). Throws bs::InvalidRequest with a message naming the text.
Param parse_param(std::string_view text);
// "size=2048" -> {"size", "2048"} (one value only).
std::pair<std::string, std::string> parse_fixed(std::string_view text);

// A value read as a number: plain numbers, 2^k, and binary suffixes K, M, G (1K = 1024). nullopt otherwise.
std::optional<double> numeric_value(std::string_view v);

// Checks the definition against the lab's parameters and validators without running anything: the lab
// exists, every name is one of the lab's (else the message lists them), every value of every point is valid
// (the message names the parameter and the value), warm-up 0..k_max_warmup, repetitions 1..k_max_repetitions,
// at most k_max_points points. Throws bs::InvalidRequest.
constexpr size_t k_max_points = 4096;
constexpr int k_max_warmup = 100;
constexpr int k_max_repetitions = 1000;
void validate(const Definition& d);
// The points in run order: the first parameter varies slowest. Each point holds one value per parameter.
std::vector<std::vector<std::string>> points_of(const Definition& d);

// --- Result
// ------------------------------------------------------------------------------------------------- One
// series at one point (e.g. "GPU stencil" or "CPU, 1 thread"): every timed repetition, warm-up excluded.
struct SeriesResult {
  std::string name;
  bool gpu = false;
  std::vector<double> time_ms;     // one per repetition
  std::vector<double> throughput;  // the same repetitions in the lab's unit
  Summary time;                    // of time_ms
  Summary rate;                    // of throughput
  void summarize();                // fills time and rate from the samples
};

struct Point {
  std::vector<std::string> values;  // one per swept parameter, in Definition::params order
  std::vector<SeriesResult> series;
  std::vector<std::string> notes;  // e.g. "CPU, 1 thread skipped: ..."
  std::string error;               // a failure at this point (the sweep went on unless it was sticky)
};

struct Result {
  Definition definition;
  std::string unit;        // throughput unit: "Mcell/s", "GFLOP/s", "G path-steps/s", "GB/s"
  std::string time_label;  // "time per step (ms)", "time per run (ms)"
  std::vector<Point> points;
  std::vector<std::string> notes;  // e.g. "GPU rows skipped: no CUDA device (...)"
  bool cancelled = false;          // stopped by the user: `points` holds the completed ones
  std::string stopped;             // a sticky GPU error stopped the sweep: its message (recover the device)
  std::string gpu_name;            // "" when no GPU ran
  double elapsed_s = 0;
  // Swept parameters that change none of the series that ran (block.x on the CPU): the figure says so and
  // crowns no best value from what is noise.
  std::vector<std::string> ignored_params;
  // Every series name that appears, in first-seen order.
  std::vector<std::string> series_names() const;
};

// --- Running
// ------------------------------------------------------------------------------------------------
struct Progress {
  size_t point = 0, points = 0;  // points completed so far, of all
  double fraction = 0;           // work done / work total (work: the lab's cost estimate of each point)
  double elapsed_s = 0;
  double eta_s = -1;  // < 0: not known yet
  std::string line;   // "point 3/12 block.x=64 size=2048: GPU stencil 0.0123 ms ..." (for stderr / the UI)
};
using ProgressFn = std::function<void(const Progress&)>;

// Seconds left, from the time spent per unit of work so far; < 0 until some work is done.
double estimate_eta(double elapsed_s, double work_done, double work_total);

// --- Planning (before anything runs)
// ---------------------------------------------------------------------------------
// What a sweep will do on this machine, decided before it starts: which series run, the definition that
// actually runs (values that cannot run on the chosen device dropped or, where no GPU exists and the device
// was not chosen as cpu, replaced by the lab's CPU equivalents), notes that say so, and a conservative
// duration estimate.
struct Plan {
  Definition definition;  // what runs; its device is resolved (auto -> gpu or cpu)
  bool run_gpu = false;
  bool run_cpu = false;
  bool cpu_explicit = false;   // device cpu: CPU series run even where they are slow
  bool named_explicit = true;  // false where CPU values stand in for GPU ones: the CPU guards still apply
  std::string gpu_name;
  std::vector<std::string> notes;           // "no GPU here (...): this sweep runs on the CPU", ...
  std::vector<std::string> ignored_params;  // swept, but no series that runs depends on them
  double estimate_s = 0;                    // conservative: the real run is usually shorter
};
// Above this estimate the Sweep window asks before running and the CLI refuses without --force.
constexpr double k_confirm_above_s = 600;

// Validates, then plans against `dev` (query_device() in the app and the CLI). Throws bs::InvalidRequest when
// the definition is bad or nothing of it can run on the chosen device (e.g. only GPU variants with device
// cpu: the message names them and what can run), std::runtime_error for device gpu without a GPU.
Plan plan_sweep(const Definition& d, const bs::DeviceInfo& dev);
// "3.5 min", "42 s", "2.1 h"
std::string duration_text(double seconds);

// Plans against query_device() (plan_sweep: validation, notes, values that cannot run), then runs every
// point. Device::Gpu without a usable GPU throws std::runtime_error with the reason; Device::All without one
// runs the CPU series and notes why the GPU ones were skipped; Device::Auto without one runs the CPU series
// and says so. The result's definition is the plan's (device resolved). Cancellation through `ctl` returns
// the completed points with `cancelled` set. A CUDA error at a point is recorded in that point; a sticky one
// stops the sweep (`stopped`). Progress goes to ctl (fraction) and to `on_progress` after every point.
Result run_sweep(const Definition& d, JobControl& ctl, const ProgressFn& on_progress = {});
// Runs a plan made by plan_sweep() (the window and the CLI plan first, to show notes and the estimate).
Result run_plan(const Plan& plan, JobControl& ctl, const ProgressFn& on_progress = {});

// --- Export
// ------------------------------------------------------------------------------------------------- One row
// per raw sample: lab,<param>...,series,rep,time_ms,throughput,unit (RFC 4180 quoting).
std::string to_csv(const Result& r);
// One row per (point, series): lab,<param>...,series,unit,reps,median_ms,p10_ms,p90_ms,min_ms,max_ms,mean_ms,
// median_throughput,p10_throughput,p90_throughput.
std::string summary_csv(const Result& r);
// Reads to_csv's output back (samples, then summaries recomputed). `d` supplies warm-up, device and fixed
// parameters, which the CSV does not hold. Throws bs::InvalidRequest on malformed text.
Result result_from_csv(const std::string& csv, const Definition& d);

// {"blockscope_sweep":1,"definition":...,"unit":...,"points":[{"values":{...},"series":[{"name","gpu",
// "time_ms":[...],"throughput":[...],"summary":{...}}],"notes":[...],"error":""}],"notes":[...],...}
nlohmann::json to_json(const Result& r);
Result result_from_json(const nlohmann::json& j);  // throws bs::InvalidRequest

// --- Figure
// -------------------------------------------------------------------------------------------------
enum class Metric { Time, Throughput };
inline constexpr auto k_metric_names =
    enum_names<Metric>({{Metric::Time, "time"}, {Metric::Throughput, "throughput"}});  // --metric
struct FigureOptions {
  Metric metric = Metric::Time;
  std::optional<bool> log_x;  // nullopt: log when the values span 16x or more
  std::optional<bool> log_y;  // nullopt: log when the medians span 16x or more
  std::string subtitle;       // e.g. the GPU and CUDA version; "" -> built from the result
};
// One numeric parameter -> Lines (one series per series name, band p10-p90, a Marker where a GPU series first
// becomes faster than the best CPU series); one categorical parameter -> Bars; a numeric and a categorical
// parameter -> Lines with one series per (category, series); two numeric parameters -> Heatmap of the GPU
// series (or the first series when no GPU ran) with the best cell marked.
fig::Figure figure_for(const Result& r, const FigureOptions& opt = {});

// Where series `gpu` first becomes faster than the lower of the CPU curves after having been slower,
// interpolated in (x, log ratio) (x in log space when log_x). x ascending; NaN means no value.
std::optional<double> find_crossover(const std::vector<double>& x, const std::vector<double>& gpu_ms,
                                     const std::vector<double>& best_cpu_ms, bool log_x);

}  // namespace bs::sweep
