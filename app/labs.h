// labs.h: the lab registry. Each lab exports one LabDescriptor (app/<lab>/<lab>_descriptor.cpp): its id and
// titles, how to build it, its parameter schema, its session checker, its sweep target, its bench command,
// and its hooks for the cross-cutting tools (the roofline's runs, the anatomy commands); the app's start
// flags come from the schema (params::Param::start_flag, app/lab_start_flags.h). The built-in labs are listed
// once, in app/lab_list.inc; everything that knows about labs (the lab bar and --scene, sessions, the sweep
// runner and window, `blockscope bench`) asks this registry, so adding a lab is adding its folders and one
// line there. Tests (or a later plug-in) add more at run time with LabRegistration.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/lab.h"
#include "core/params.h"

namespace CLI {
class App;
}

namespace bs {

namespace sweep {
class Target;
}
namespace cli {
struct BenchContext;
}

struct LabDescriptor {
  const char* id = "";           // "heat": --scene, session keys, sweep definitions, `bench <id>`
  const char* title = "";        // "Heat diffusion": the lab bar, window titles
  const char* short_title = "";  // the lab bar's label when the full titles do not fit (presenter, 720p)
  // Every user-visible parameter: names, types, defaults, ranges, help (core/params.h). Sessions validate a
  // lab's state against it; the sweep's parameters, the bench flags and the panel's defaults come from it.
  const params::Schema* schema = nullptr;
  // Builds the lab at its schema's defaults; throws bs::GpuError when the GPU cannot build it (the caller
  // falls back to the CPU). Empty: the lab has no window (a test's lab that only sweeps or benches).
  std::function<std::unique_ptr<Lab>(LabEnv&)> make;
  // Checks a saved state beyond what the schema says (cross-field rules: a block that fits, a grid that
  // covers the data); "labs.<id>.<field>: ..." on error. Empty: the schema's checks alone.
  std::function<std::optional<std::string>(const nlohmann::json& state)> check_state;
  // Rewrites the lab's state saved by an older session version (`from_version` < the current one) in place;
  // returns what it changed, in words for the user ("the memory lab's size [rows, cols] is now read x first,
  // as [300, 200] (cols, rows)"), or nullopt when nothing changed. Empty: the lab's state never changed format.
  std::function<std::optional<std::string>(int64_t from_version, nlohmann::json& state)> migrate_state;
  // The lab as a sweep target (app/sweep/); null: it cannot be swept.
  const sweep::Target* sweep_target = nullptr;
  // Adds `blockscope bench <id>` to the bench command; empty: no bench.
  std::function<void(CLI::App& bench, cli::BenchContext& ctx)> register_bench;
  // Members of a saved state that are not parameters but the lab reads itself (the anatomy overlay).
  std::vector<std::string> state_extras;
  // What `blockscope roofline` times for this lab: its variants at their bench sizes on the GPU (when `gpu`)
  // and its CPU baselines, each reported with report_run (app/roofline/roofline_report.h) into env.runs; `quick`:
  // small sizes. Empty: the lab is not on the roofline (the command says so).
  std::function<void(const LabEnv& env, bool gpu, bool quick)> roofline_runs;
  // A known-good kernel the measured DRAM ceiling is checked against (GPU only): returns its line for the
  // command's output ("the vector bench's float4 copy kernel reaches ..."), given the ceiling in GB/s. Empty:
  // none from this lab.
  std::function<std::string(double dram_gbs)> roofline_check;
  // Adds this lab's `blockscope anatomy <...>` subcommands (its kernel's instrumented run written as
  // blocks.csv and a timeline; app/anatomy/anatomy_cli.h has what they share). The lab's window shows the
  // same kernel through an AnatomyWindow fed with its own AnatomyTarget (app/anatomy/anatomy_target.h).
  // Empty: `blockscope anatomy` does not offer the lab (its help names it).
  std::function<void(CLI::App& anatomy, cli::BenchContext& ctx)> register_anatomy;
  // The keys the lab adds to the shell's shortcut list (F1), e.g. {"Space / R", "heat lab: pause ..."}.
  std::vector<ui::Shortcut> shortcuts;
};
// The lab bar and the menus read the same records.
using LabEntry = LabDescriptor;

// Every lab: the built-in ones in app/lab_list.inc's order, then those registered at run time.
const std::vector<LabDescriptor>& lab_entries();
const LabDescriptor* find_lab(std::string_view id);
bool is_lab(std::string_view id);
// "heat, matmul, montecarlo, vector" (for messages).
std::string lab_ids_text();

// Checks a lab's saved state without a lab instance: the schema (types, ranges, allowed names, no unknown
// members; "labs.<id>.<field>: ..."), then the lab's own check_state. "unknown lab" for ids not registered.
std::optional<std::string> check_lab_state(std::string_view id, const nlohmann::json& state);

// Builds lab `id` and loads its start state (`start`: members of a saved state, from the app's lab flags;
// null or empty: the defaults). Throws bs::GpuError when the GPU cannot build it (the caller falls back to
// the CPU), bs::InvalidRequest when the start state does not load (the lab's message). Null for an unknown id
// or a lab without a window.
std::unique_ptr<Lab> make_lab(std::string_view id, LabEnv& env, const nlohmann::json& start = {});

// Adds a lab for as long as this object lives (tests: a lab defined only in the tests directory). Throws
// std::invalid_argument when the id is empty or already taken.
class LabRegistration {
 public:
  explicit LabRegistration(LabDescriptor d);
  ~LabRegistration();
  LabRegistration(const LabRegistration&) = delete;
  LabRegistration& operator=(const LabRegistration&) = delete;

 private:
  std::string m_id;
};

}  // namespace bs
