// reduce_lab.cpp: the reduction and scan lab: the ladder of reduction kernels (divergent tree to warp
// shuffles and atomics), the scan ladder (Hillis-Steele and Blelloch in one block, scan-then-propagate, the
// single-pass decoupled look-back), CUB and the copy kernel timed in the same run, the CPU baselines, and the
// pictures of one block's tree and of the scan's steps (ui/reduce/reduce_model.h). Every run goes through
// reduce::run_bench on a worker thread (bs::LabJob), so frames never wait; a GPU failure inside the worker is
// carried back and rethrown from update(), where App handles it.
#include "app/reduce/reduce_lab.h"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <string>

#include "app/anatomy/anatomy_window.h"
#include "app/reduce/reduce_anatomy.h"
#include "app/layout.h"
#include "app/session.h"
#include "app/shell/compute_site.h"
#include "app/shell/lab_jobs.h"
#include "core/param_binding.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/anatomy/occupancy.h"
#include "gpu/reduce/reduce_anatomy.h"
#include "gpu/reduce/reduce.h"
#include "app/roofline/roofline_report.h"
#include "gpu/reduce/reduce_work.h"
#include "ui/reduce/reduce_lab_panel.h"
#include "ui/reduce/reduce_schema.h"

namespace bs {

namespace {

namespace red = bs::reduce;

constexpr int k_repetitions = 5;

struct JobResult {
  red::BenchResult bench;
  std::string problem;  // what the rows measured
};

// "reduce float 16M, block 256" / "scan int 1000 (exclusive), block 512": the problem a table of rows
// measured.
std::string problem_text(const red::Params& p) {
  std::string s = std::string(red::k_op_names.name_of(p.op)) + " " +
                  std::string(red::k_type_names.name_of(p.type)) + " " + red::format_count(p.n);
  if (p.op == red::Op::Scan) s += " (" + std::string(red::k_scan_kind_names.name_of(p.scan_kind)) + ")";
  // The block is part of the problem the table compares: rows of one variant at two block sizes would share a
  // name (the sweep compares block sizes).
  return s + ", block " + std::to_string(p.block);
}

// Schema first (types, names, ranges: "labs.reduce.<field>: ..."), then the lab's rules on the parameters
// the state stands for (reduce::validate: n, the block the variant needs, single-block scan sizes).
// Session members beside the schema's: the anatomy's array map mode and whether its window is open.
constexpr const char* k_anatomy_map = "anatomy_map";
constexpr const char* k_anatomy_window = "anatomy_window";

std::optional<std::string> check_state_full(const nlohmann::json& state) {
  if (auto err =
          params::check_state(ui::reduce_schema(), state, "labs.reduce", {k_anatomy_map, k_anatomy_window}))
    return err;
  StateReader r(state, "labs.reduce");
  AnatomyWindow::check_array_state(r, k_anatomy_map, k_anatomy_window);
  if (!r.ok()) return r.error();
  if (state.contains("n") && state["n"].is_string() &&
      !red::parse_count(state["n"].get<std::string>(), "n").value)
    return "labs.reduce.n: " + red::parse_count(state["n"].get<std::string>(), "n").error;
  if (auto err = red::validate(ui::params_from_state(state))) return "labs.reduce: " + *err;
  return std::nullopt;
}

class ReduceLab final : public Lab {
 public:
  explicit ReduceLab(LabEnv& env) : m_env(env) {
    m_jobs.attach(m_job, {&m_model.running, &m_model.progress, &m_model.status});
    rebuild();
    apply_params();
    // A first picture without any clicks: the CPU baselines at n, then (GPU) the whole ladder.
    m_queue.push_back(Work::Cpu);
    if (m_model.gpu) m_queue.push_back(Work::Ladder);
  }

  const char* id() const override { return "reduce"; }
  const char* title() const override { return "Reduction and scan"; }
  const char* view_window() const override { return "Reduce view"; }

  void draw_ui() override {
    m_actions = {};
    m_jobs.poll();
    // The scan animation's clock.
    if (m_model.scan_play) {
      m_model.scan_clock += ImGui::GetIO().DeltaTime;
      if (m_model.scan_clock >= ui::k_scan_step_s) {
        m_model.scan_clock = 0;
        ++m_model.scan_step;  // the view clamps it and stops at the end
      }
    }
    if (begin_window("Reduce view", Slot::View)) ui::draw_reduce_views(m_model, m_actions);
    ImGui::End();
    m_anatomy.set_target(ReduceAnatomyTarget{m_params}, 0, 0);
    m_anatomy.handle_keys();
    if (begin_window("Reduce lab", Slot::Panel)) {
      ui::draw_reduce_panel(m_model, m_actions);
      m_anatomy.draw_controls();
    }
    ImGui::End();
    m_anatomy.draw_window();
    if (m_model.scan_play && m_model.scan_step >= scan_steps()) m_model.scan_play = false;
  }

  void update() override {
    if (m_actions.params_changed) apply_params();
    if (m_actions.clear) {
      m_model.rows.clear();
      m_model.copy.reset();
      m_model.skipped.clear();
    }
    if (m_actions.run_gpu) start(Work::Gpu);
    if (m_actions.run_ladder) start(Work::Ladder);
    if (m_actions.run_cpu) start(Work::Cpu);
    if (m_actions.cancel) {
      m_job.cancel();
      m_queue.clear();
    }
    if (!m_anatomy.sweeping()) run_queue();  // the anatomy's block-size sweep times kernels meanwhile
    m_anatomy.update();
    // Headless: the first measurements finish inside update(); a GPU failure in the worker goes to App.
    m_jobs.finish_update(m_env, [this] { run_queue(); }, [this] { return !m_queue.empty(); });
  }

  void abandon_gpu() noexcept override {
    // run_bench owns its GpuRunner inside the job: stop it and wait; the lab itself holds no device handles.
    m_job.cancel();
    m_job.wait();
    m_queue.clear();
    m_anatomy.abandon_gpu();
  }

  void rebuild() override {
    m_job.wait();
    ComputeSite site =
        compute_site(m_env, red::cpu_thread_count(), "the pictures and the CPU baselines work here.");
    m_model.gpu = site.gpu;
    m_model.gpu_missing = std::move(site.gpu_missing);
    m_model.compute_label = std::move(site.label);
    update_occupancy();
  }

  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  ui::ReducePanelModel in_force() const;
  std::vector<ui::Readout> readouts() const override;

 private:
  enum class Work { Gpu, Ladder, Cpu };

  int scan_steps() const {
    const auto algo = ui::scan_algo_of(static_cast<red::ScanVariant>(m_model.scan_variant));
    const int lg = std::countr_zero(static_cast<unsigned>(m_model.scan_n));
    return algo == reduce_model::ScanAlgo::HillisSteele ? lg : 2 * lg + 1;
  }

  void run_queue() {
    if (m_queue.empty() || m_job.running()) return;
    const Work w = m_queue.front();
    m_queue.pop_front();
    start(w);
  }

  // Reads the controls; on error the message shows next to the control and m_params stays as it was.
  void apply_params() {
    m_model.n_error.clear();
    m_model.param_error.clear();
    m_model.memory_note.clear();
    const red::ParsedCount pc = red::parse_count(m_model.n_text, "n");
    if (!pc.value) {
      m_model.n_error = pc.error;
      return;
    }
    const red::Params p = ui::params_of(m_model);
    if (auto err = red::validate(p)) {
      (p.n != m_params.n ? m_model.n_error : m_model.param_error) = *err;
      return;
    }
    if (auto err = red::check_host_memory(p, red::available_host_bytes())) {
      m_model.n_error = *err;
      return;
    }
    if (m_model.gpu) {
      if (auto err = red::check_device_memory(p, m_env.device.sm_count, m_env.device.free_mem,
                                              m_env.device.total_mem))
        m_model.memory_note = *err + " (free memory as at start-up; the run will say if it does not fit)";
    }
    const bool op_changed = p.op != m_params.op;
    // A new problem (op, type, n, scan kind): the rows of the old one would mislead next to the new.
    if (problem_text(p) != m_model.rows_problem && !m_model.rows.empty() && !m_job.running()) {
      m_model.rows.clear();
      m_model.copy.reset();
      m_model.skipped.clear();
      m_model.rows_problem.clear();
    }
    m_params = p;
    m_model.params = p;
    if (op_changed) m_model.view_tab = p.op == red::Op::Scan ? 1 : 0;
    update_occupancy();
  }

  // The occupancy of the selected kernel's launch (the one over the input): on a GPU the lab's own kernel
  // (measured registers, cudaOccupancyMaxActiveBlocksPerMultiprocessor); else the model with the shared
  // memory the kernel declares and the launch passes (the tile scans' buffer included), registers assumed.
  void update_occupancy() {
    m_model.occupancy_text.clear();
    const red::Params& p = m_params;
    if (!anatomy::is_instrumented_reduce(p)) {
      m_model.occupancy_text = "occupancy: CUB picks its own kernels and launches";
      return;
    }
    if (red::validate(p)) return;
    char buf[320];
    if (m_model.gpu) {
      try {
        const anatomy::DeviceOccupancy d = anatomy::reduce_device_occupancy(p);
        std::snprintf(
            buf, sizeof buf,
            "occupancy (%s): %d blocks/SM, %.0f%%, limit: %s; %d registers, %lld B shared (%lld static "
            "+ %lld dynamic); the CUDA API says %d blocks/SM",
            m_env.device.name.c_str(), d.model.blocks_per_sm, 100.0 * d.model.occupancy,
            anatomy::limiter_label(d.model.limiter), d.attrs.regs_per_thread,
            static_cast<long long>(d.usage.static_smem + d.usage.dynamic_smem),
            static_cast<long long>(d.usage.static_smem), static_cast<long long>(d.usage.dynamic_smem),
            d.runtime_blocks_per_sm);
        m_model.occupancy_text = buf;
        return;
      } catch (const std::runtime_error& e) {  // GpuError, InvalidRequest
        m_model.occupancy_text =
            std::string("occupancy: the GPU query failed (") + e.what() + "); the model:";
      }
    }
    const std::optional<anatomy::ArchSpec> arch = anatomy::find_arch("sm_90");
    if (!arch) return;
    const red::KernelShape s = anatomy::reduce_launch_shape_model(p);
    anatomy::KernelUsage u;
    u.threads_per_block = p.block;
    u.regs_per_thread = 32;
    u.static_smem = s.static_smem;
    u.dynamic_smem = s.dynamic_smem;
    try {
      const anatomy::Occupancy o = anatomy::compute_occupancy(*arch, u);
      std::snprintf(
          buf, sizeof buf,
          "occupancy (model, %s, 32 registers assumed): %d blocks/SM, %.0f%%, limit: %s; %s: %lld B "
          "shared (%lld static + %lld dynamic)",
          arch->name.c_str(), o.blocks_per_sm, 100.0 * o.occupancy, anatomy::limiter_label(o.limiter),
          s.kernel.c_str(), static_cast<long long>(s.static_smem + s.dynamic_smem),
          static_cast<long long>(s.static_smem), static_cast<long long>(s.dynamic_smem));
      m_model.occupancy_text += (m_model.occupancy_text.empty() ? "" : " ") + std::string(buf);
    } catch (const InvalidRequest&) {
      // A block the model refuses is refused by validate first; nothing to show.
    }
  }

  void start(Work w) {
    if (m_job.running()) return;
    if (w != Work::Cpu && !m_model.gpu) return;
    if (!m_model.n_error.empty() || !m_model.param_error.empty()) return;
    m_model.status.clear();
    red::BenchOptions o;
    o.params = m_params;
    o.repetitions = k_repetitions;
    o.check = true;
    o.all_variants = w == Work::Ladder;
    o.device = w == Work::Cpu   ? red::Device::Cpu
               : w == Work::Gpu ? red::Device::Gpu
               : m_model.gpu    ? static_cast<red::Device>(m_model.device)
                                : red::Device::Cpu;
    m_model.running_gpu = o.device != red::Device::Cpu;
    auto res = std::make_shared<JobResult>();
    res->problem = problem_text(m_params);
    m_model.stage = w == Work::Cpu   ? "CPU baselines..."
                    : w == Work::Gpu ? "GPU: this variant, CUB, copy kernel..."
                                     : "the ladder...";
    m_job.start(
        "the run", [o, res](JobControl& ctl) { res->bench = red::run_bench(o, &ctl); },
        [this, res] { take_result(*res); });
  }

  void take_result(const JobResult& result) {
    const red::BenchResult& b = result.bench;
    if (m_model.rows_problem != result.problem) {
      m_model.rows.clear();
      m_model.copy.reset();
      m_model.rows_problem = result.problem;
    }
    ui::merge_rows(m_model.rows, b.rows);
    for (const red::Row& r : b.rows)
      report_run(m_env, "reduce", r.variant, r.gpu, r.ms.median, red::run_work(m_params.op, m_params.n),
                 result.problem);
    if (b.gpu_ran && b.copy.gbs > 0) m_model.copy = b.copy;
    if (!b.gpu_name.empty()) m_model.gpu_name = b.gpu_name;
    m_model.skipped = b.skipped;
    if (!b.gpu_skipped_reason.empty() && m_model.running_gpu)
      m_model.status = "GPU rows skipped: " + b.gpu_skipped_reason;
    if (!b.all_checks_passed) {
      if (!m_model.status.empty()) m_model.status += "; ";
      // Say which rows, and why a float row can fail honestly: a long chain of float adds (one thread over
      // 256M values) really loses precision beyond the tolerance; int rows are exact or wrong.
      std::string failed;
      bool float_only = m_params.type == red::ElemType::F32;
      for (const red::Row& r : b.rows)
        if (!r.check.passed) failed += (failed.empty() ? "" : ", ") + r.variant;
      m_model.status += "FAILED the check against the reference: " + failed;
      if (float_only)
        m_model.status +=
            " (float adds in a long chain lose precision: hover the error for the tolerance; int runs are "
            "exact)";
    }
  }

  LabEnv& m_env;
  ui::ReducePanelModel m_model;
  ui::ReducePanelActions m_actions;
  red::Params m_params;
  std::deque<Work> m_queue;
  AnatomyWindow m_anatomy{m_env};  // the array map (key O) and the Anatomy window (key A)

  // The job is declared last so that it is destroyed (cancelled and joined) before the state it writes.
  LabJobs m_jobs;
  LabJob m_job;
};

// --- Sessions and presenter mode --------------------------------------------------------------------------

// The parameters in force (the panel may hold an edit that did not apply); the device is the panel's.
ui::ReducePanelModel ReduceLab::in_force() const {
  ui::ReducePanelModel m = m_model;
  std::snprintf(m.n_text, sizeof m.n_text, "%s", red::format_count(m_params.n).c_str());
  m.op = static_cast<int>(m_params.op);
  m.type = static_cast<int>(m_params.type);
  m.reduce_variant = static_cast<int>(m_params.reduce_variant);
  m.scan_variant = static_cast<int>(m_params.scan_variant);
  m.scan_kind = static_cast<int>(m_params.scan_kind);
  m.block = m_params.block;
  return m;
}

nlohmann::json ReduceLab::save_state() const {
  nlohmann::json j = params::save_bound(ui::reduce_schema(), in_force());
  m_anatomy.save_array_state(j, k_anatomy_map, k_anatomy_window);
  return j;
}

std::optional<std::string> ReduceLab::load_state(const nlohmann::json& state) {
  if (auto err = check_state_full(state)) return err;
  // Members left out keep their current values: the state over the parameters in force.
  nlohmann::json merged = save_state();
  for (auto it = state.begin(); it != state.end(); ++it)
    merged[it.key()] = it.value();
  if (auto err = check_state_full(merged)) return err;
  const std::string n_text =
      merged["n"].is_string() ? merged["n"].get<std::string>() : std::to_string(merged["n"].get<int64_t>());
  if (n_text.size() >= sizeof m_model.n_text) return "labs.reduce.n: too long";
  ui::ReducePanelModel m = in_force();
  params::load_bound(ui::reduce_schema(), m, merged);  // every parameter through its binding (the schema's)
  const ui::ReducePanelModel before = m_model;
  const red::Params before_params = m_params;
  m_model = m;
  apply_params();
  // Valid but not runnable here (host memory): the lab keeps its parameters.
  if (!m_model.n_error.empty() || !m_model.param_error.empty()) {
    const std::string err =
        "labs.reduce.n: " + (m_model.n_error.empty() ? m_model.param_error : m_model.n_error);
    m_model = before;
    m_params = before_params;
    return err;
  }
  m_anatomy.load_array_state(merged, k_anatomy_map, k_anatomy_window);
  return std::nullopt;
}

std::vector<ui::Readout> ReduceLab::readouts() const {
  std::vector<ui::Readout> out;
  // The selected variant's row, else the fastest GPU row.
  const std::string selected = red::variant_name(m_params);
  const red::Row* sel = nullptr;
  const red::Row* best_gpu = nullptr;
  const red::Row* best_cpu = nullptr;
  for (const red::Row& r : m_model.rows) {
    if (r.gpu && r.name == selected) sel = &r;
    if (r.gpu && (!best_gpu || r.gbs > best_gpu->gbs)) best_gpu = &r;
    if (!r.gpu && (!best_cpu || r.gbs > best_cpu->gbs)) best_cpu = &r;
  }
  const red::Row* g = sel ? sel : best_gpu;
  if (g) {
    out.push_back({"GPU", fmt_fixed(g->gbs, 0), "GB/s", g->variant + ", " + m_model.rows_problem});
    if (g->copy_pct > 0)
      out.push_back({"of the copy kernel", fmt_fixed(g->copy_pct, 0), "%", "same run, same GPU"});
    if (g->cub_pct > 0 && g->name != "cub")
      out.push_back({"of CUB", fmt_fixed(g->cub_pct, 0), "%", "CUB's time / this time"});
    if (best_cpu && best_cpu->ms.median > 0 && g->ms.median > 0)
      out.push_back({"speedup vs CPU", fmt_fixed(best_cpu->ms.median / g->ms.median, 1), "x",
                     "vs " + best_cpu->variant});
    return out;
  }
  if (best_cpu) {
    out.push_back(
        {"CPU", fmt_fixed(best_cpu->gbs, 1), "GB/s", best_cpu->variant + ", " + m_model.rows_problem});
    out.push_back({"CPU time", fmt_fixed(best_cpu->ms.median, best_cpu->ms.median < 10 ? 3 : 1), "ms",
                   best_cpu->variant});
  }
  // The picture's numbers: what the selected tree costs in one block.
  if (m_params.op == red::Op::Reduce) {
    if (auto t = ui::tree_of(m_params.reduce_variant); t && !reduce_model::check_block(*t, m_params.block)) {
      const reduce_model::ReduceTree tree = reduce_model::build_tree(*t, m_params.block);
      out.push_back({"block steps", std::to_string(tree.steps.size()), "",
                     std::to_string(tree.syncthreads) + " __syncthreads(), " + selected});
      if (!tree.steps.empty())
        out.push_back({"divergent warps, step 1", std::to_string(tree.steps.front().divergent_warps), "",
                       "of " + std::to_string(tree.warps)});
      int worst = 0;
      for (const reduce_model::ReduceStep& s : tree.steps)
        worst = std::max(worst, s.conflict_ways);
      if (worst > 1)
        out.push_back({"worst bank conflict", std::to_string(worst), "-way", "32 banks of 4 bytes"});
    }
  } else {
    // The scan picture: its steps and its work on the animated array.
    const reduce_model::ScanAlgo algo = ui::scan_algo_of(m_params.scan_variant);
    const reduce_model::ScanModel sm = reduce_model::build_scan(algo, m_model.scan_n);
    const std::string name = algo == reduce_model::ScanAlgo::HillisSteele ? "Hillis-Steele" : "Blelloch";
    out.push_back({"scan steps", std::to_string(sm.steps.size()), "",
                   name + " on " + std::to_string(m_model.scan_n) + " elements"});
    out.push_back({"adds", std::to_string(sm.adds), "",
                   "a sequential scan needs " + std::to_string(m_model.scan_n - 1)});
  }
  return out;
}

}  // namespace

std::unique_ptr<Lab> make_reduce_lab(LabEnv& env) {
  return std::make_unique<ReduceLab>(env);
}

std::optional<std::string> check_reduce_state(const nlohmann::json& state) {
  return check_state_full(state);
}

}  // namespace bs
