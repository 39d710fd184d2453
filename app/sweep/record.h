// record.h: the experiment record (record.json) written next to every sweep export, so a figure can always be
// traced to the machine, versions and parameters that made it, and re-run: `blockscope replay record.json`.
// Also the one function that writes a sweep's set of files (CSV, summary CSV, JSON, SVG, PNG, record).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "app/sweep/figure.h"

namespace bs::record {

// The version `blockscope --version` prints and every record carries: the CMake project version (BS_VERSION).
extern const char* const k_blockscope_version;

// Which files an export writes and how. File names are fixed (sweep.csv, summary.csv, sweep.json,
// figure.svg, figure.png); record.json is always written.
struct ExportRequest {
  bool csv = true;   // sweep.csv (every raw sample) and summary.csv
  bool json = true;  // sweep.json
  bool svg = true;   // figure.svg
  bool png = true;   // figure.png: needs a current GL context (gl_current) or makes a headless one
  int width = 1600;  // PNG pixels; the SVG uses the same size in user units
  int height = 900;
  float scale = 1.0f;  // PNG text and line scale
  sweep::FigureOptions figure;
  std::string render_path;      // how the app draws (for the record), e.g. "CUDA + interop" or "headless CLI"
  nlohmann::json user_kernels;  // the user's kernels the sweep ran (UserKernels::record_json()); null: none
};

struct ExportOutcome {
  std::vector<std::string> files;   // names written, record.json last
  std::vector<std::string> errors;  // "figure.png skipped: no GL context (...)"
  bool ok() const { return errors.empty(); }
};

// Writes the requested files into `dir` (created if needed) and record.json listing them. `gl_current`: the
// caller has a GL context current and is outside any ImGui frame (the app's after_render); otherwise a
// headless EGL context is made for the PNG, and if none can be made the PNG is skipped with an error.
// `earlier`: files an earlier export of the same result wrote into `dir` (the Sweep window exports one
// button at a time): record.json lists them too, and its "export" flags cover them, so the record lists
// every file of the result, not only the last one. All or nothing: the files are written beside their
// targets first and renamed into place only when every one was written, so a failed write (a full disk)
// leaves the folder's earlier files, all of them, and `files` empty. Throws std::runtime_error when the
// directory cannot be created.
ExportOutcome write_exports(const sweep::Result& r, const std::string& dir, const ExportRequest& req,
                            bool gl_current, const std::vector<std::string>& earlier = {});

namespace test_hooks {
// Tests: with BLOCKSCOPE_TEST_FAIL_EXPORT=NAME in the environment, writing export file NAME fails as on a full
// disk (after its temporary was written), so the all-or-nothing export is tested without filling a disk.
// True (and nothing else) otherwise.
bool export_write_allowed(const std::string& name, const std::string& path, std::string* error);
}  // namespace test_hooks

// --- Before a sweep runs (so a long sweep cannot fail at its end and lose its samples)
// ----------------------
constexpr int k_min_png_px = 64, k_max_png_px = 16384;
constexpr float k_min_png_scale = 0.5f, k_max_png_scale = 8.0f;
// The export sizes: width and height 64..16384 px, scale 0.5..8. A message naming the field, or nullopt.
std::optional<std::string> check_request(const ExportRequest& req);
// Creates `dir` if needed and checks that it is a directory (not a file) this process can write into.
// Throws bs::InvalidRequest naming the directory and the problem.
void prepare_output_dir(const std::string& dir);
// `base` if nothing exists there yet, else base-2, base-3, ...: a folder no earlier run wrote.
std::string fresh_dir(const std::string& base);

// One sweep at a time per output directory: an O_EXCL lock file DIR/.blockscope-lock holding the owner's
// pid, removed by the destructor. A lock whose pid is no longer running (a crashed sweep) is taken over.
// Throws bs::InvalidRequest when a live process holds it (the message names the pid and the lock file).
class DirLock {
 public:
  static constexpr const char* k_name = ".blockscope-lock";
  explicit DirLock(const std::string& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  bool took_over_stale() const { return m_stale_pid != 0; }
  long stale_pid() const { return m_stale_pid; }

 private:
  std::string m_path;
  long m_stale_pid = 0;
};

// --- The record --------------------------------------------------------------------------------------------
std::string utc_timestamp();      // "2026-11-21T08:02:03Z"
std::string cpu_model();          // /proc/cpuinfo "model name", or "unknown CPU"
std::string compact_timestamp();  // "20261121-080203" for directory names

// What every record starts with: {"blockscope_record":1, "blockscope_version", "created_utc", "gpu":{name,
// compute capability, SMs, clocks, driver and runtime versions...}, "render_path", "host":{cpu_model,
// threads}}.
nlohmann::json environment_record(const std::string& render_path);

// {"blockscope_record":1,"blockscope_version","created_utc","gpu":{...},"render_path","host":{...},
//  "parameters":{every parameter of the lab: value, or the list when swept},"sweep":<definition>,
//  "export":{"width","height","scale","metric","csv","json","svg","png"},"files":[...],"result":{...}}
nlohmann::json make_record(const sweep::Result& r, const ExportRequest& req,
                           const std::vector<std::string>& files);

struct Loaded {
  sweep::Definition definition;
  ExportRequest request;  // what the original export wrote, so a replay writes the same set
  std::vector<std::string> files;
};
// Reads record.json; throws bs::InvalidRequest with a message naming the file and what is wrong (missing,
// not JSON, not a blockscope record, a bad sweep definition).
Loaded load_record(const std::string& path);

}  // namespace bs::record
