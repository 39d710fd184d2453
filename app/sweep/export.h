// export.h: what a sweep measured (a Result: every raw sample of every series at every point, with notes and
// summaries) and its files: the raw-sample CSV, the summary CSV and the JSON form, each of which reads back.
// Pure C++ (no CUDA, no ImGui).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "app/sweep/definition.h"
#include "core/stats.h"

namespace bs::sweep {

// One series at one point (e.g. "GPU stencil" or "CPU, 1 thread"): every timed repetition, warm-up excluded.
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

// One row per raw sample: lab,<param>...,series,rep,time_ms,throughput,unit (RFC 4180 quoting).
std::string to_csv(const Result& r);
// One row per (point, series): lab,<param>...,series,unit,reps,median_ms,p10_ms,p90_ms,min_ms,max_ms,mean_ms,
// median_throughput,p10_throughput,p90_throughput.
std::string summary_csv(const Result& r);
// Reads to_csv's output back (samples, then summaries recomputed). `d` supplies warm-up, device and fixed
// parameters, which the CSV does not hold. Throws bs::InvalidRequest on malformed text.
Result result_from_csv(const std::string& csv, const Definition& d);

// {"blockscope_sweep":1,"definition":...,"unit":...,"points":[{"values":{...},"series":[{"name","gpu",
// "time_ms":[...],"throughput":[...],"summary":{...}}],"notes":[...],"error":""}],"notes":[...],...}
// Points that failed while they ran (an error other than "skipped: ...", the lab's rules excluding a
// combination): a sweep with any is a failure (the CLI's exit status), though every point is exported.
size_t failed_points(const Result& r);

nlohmann::json to_json(const Result& r);
Result result_from_json(const nlohmann::json& j);  // throws bs::InvalidRequest

}  // namespace bs::sweep
