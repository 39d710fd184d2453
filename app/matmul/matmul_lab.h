// matmul_lab.h: the matmul lab's class (app/matmul/matmul_lab.cpp: the ladder, the CPU baselines and the
// frame; matmul_lab_user.cpp: the user's matmul from the Kernel editor; matmul_lab_state.cpp: sessions and
// presenter mode). Private to app/matmul/: the registry builds the lab through make_matmul_lab.
#pragma once

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/anatomy/anatomy_window.h"
#include "app/field_presenter.h"
#include "app/kernel/lab_sim.h"
#include "app/kernel/user_kernels.h"
#include "app/lab.h"
#include "app/shell/lab_jobs.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/matmul/matmul.h"
#include "gpu/matmul/matmul_work.h"
#include "ui/matmul/matmul_lab_panel.h"

namespace bs::matmul_lab {

namespace mm = bs::matmul;

// The user's kernel's rung (kernel lab): after the built-in GPU variants, before the CPU baselines.
inline constexpr const char* k_user_row = "user_matmul";

double fmas(const mm::Problem& p);
// Symmetric colour range around 0 over the finite values of C (products of random signs centre on zero).
float abs_max(const std::vector<float>& c);

struct CpuResult {
  mm::Problem p;
  ui::LadderRow row;
  std::vector<float> c;
  mm::Reference ref;  // filled when the job computed the reference itself
};

// The user's kernel's run on the lab's buffers (on a worker: it waits for the GPU with a deadline).
struct UserTask {
  mm::Problem p;
  std::optional<kernel::UserRun> run;
};

struct GpuTask {
  mm::Variant v;
  int phase = 0;  // 0: correctness launch to enqueue, 1: waiting for it, 2: timed launches
  double first_ms = 0;
  int want = 3;
  int enqueued = 0;  // timed launches enqueued (phase 2)
  bool stop = false;
  std::vector<double> ms;
  std::optional<mm::CheckResult> check;
};

class MatmulLab final : public Lab {
 public:
  explicit MatmulLab(LabEnv& env) : m_env(env), m_presenter(env) {
    const bool gpu = env.path.path != RenderPath::Cpu;
    if (!gpu) {
      m_model.mnk[0] = 200, m_model.mnk[1] = 155, m_model.mnk[2] = 67;
    }
    m_problem = {m_model.mnk[0], m_model.mnk[1], m_model.mnk[2]};
    // The middle tile of C (32x32 tiles) is pinned at start: clear of the path read-out in the top-left
    // corner.
    m_overlay.pinned = std::pair<int64_t, int64_t>{(m_problem.m + 31) / 32 / 2, (m_problem.n + 31) / 32 / 2};
    for (size_t i = 0; i < 3 && i < mm::cpu_variants().size(); ++i)
      m_model.cpu[i].label = mm::cpu_label(mm::cpu_variants()[i].id);
    for (size_t i = 0; i < 3; ++i)
      m_jobs.attach(m_cpu_job[i], {&m_model.cpu[i].running, &m_model.cpu[i].progress, &m_model.cpu[i].status});
    m_jobs.attach(m_user_job, {nullptr, nullptr, &m_user_run_status});
    m_jobs.attach(m_tc_job, {&m_model.tc.running, &m_model.tc.progress, &m_model.tc.status});
    m_jobs.attach(m_tc_time_job, {&m_model.tc.timing, &m_model.tc.timing_progress, &m_model.tc.timing_status});
    list_tc_rungs();
    make_inputs();
    rebuild();
  }

  const char* id() const override { return "matmul"; }
  const char* title() const override { return "Matmul"; }
  // Hardware counters for the chosen variant at the current problem: its own runner on the counters window's
  // worker (the lab's buffers untouched); DRAM bytes from the work model, no access model for matmul.
  std::optional<CounterTarget> counter_target() override {
    const auto vars = mm::gpu_variants();
    if (vars.empty()) return std::nullopt;
    const mm::Variant v = vars[static_cast<size_t>(std::clamp(m_model.variant, 0, static_cast<int>(vars.size()) - 1))].id;
    const mm::Problem p = m_problem;
    CounterTarget t;
    t.lab = "matmul";
    t.variant = mm::info(v).name;
    t.what = std::string("matmul: ") + mm::info(v).title + ", " + mm::to_string(p);
    const work::Work w = mm::run_work(p);
    t.model_dram_read = w.read_bytes;
    t.model_dram_write = w.write_bytes;
    if (m_gpu) t.collect = [p, v] {
      mm::GpuRunner runner(p);
      runner.set_inputs(mm::make_matrix(p.m, p.k, 1), mm::make_matrix(p.k, p.n, 2));
      counters::Result r = counters::collect([&] { runner.enqueue(v); });
      runner.sync();
      runner.poll_ms();
      return r;
    };
    return t;
  }
  void draw_ui() override;
  void update() override;
  void abandon_gpu() noexcept override {
    m_user_job.wait();
    m_tc_time_job.cancel();
    m_tc_time_job.wait();
    m_user.drop(m_env.user_kernels, true);
    if (m_gpu) m_gpu->abandon();
    m_presenter.abandon_gpu();
    m_gpu.reset();
    m_task.reset();
    m_queue.clear();
    m_anatomy.abandon_gpu();
  }
  void rebuild() override;

 private:
  void make_inputs();
  bool apply_size();
  void queue_run(mm::Variant v);
  void start_gpu_task();
  void step_gpu_task();
  void finish_gpu_task();
  void drain_gpu();
  void ensure_reference_gpu();
  void start_cpu_job(size_t i);
  // The tensor-core section: the rungs and whether this device runs them; the CPU precision model on a job.
  void list_tc_rungs();
  void start_tc_model();
  // Times every rung at the lab's size on the GPU (app/matmul/matmul_tc_timing.h); the ladder waits meanwhile.
  void start_tc_timing();
  void show_cpu_jobs();
  void compute_cpu_inline();
  void upsert_row(ui::LadderRow row);
  void show_host_c(std::vector<float> c, const std::string& source);
  void sync_user_kernel();
  void start_user_run();
  void take_user_run(const UserTask& t);
  void start_user_sim();

  LabEnv& m_env;
  ui::MatmulPanelModel m_model;
  ui::MatmulPanelActions m_actions;
  ui::OverlayState m_overlay;
  mm::Problem m_problem;
  std::shared_ptr<const std::vector<float>> m_a, m_b;
  std::shared_ptr<mm::Reference> m_ref = std::make_shared<mm::Reference>();
  std::unique_ptr<mm::GpuRunner> m_gpu;
  std::optional<GpuTask> m_task;
  std::deque<mm::Variant> m_queue;
  FieldPresenter m_presenter;
  std::vector<float> m_host_c;
  bool m_dirty = false;
  bool m_present_device = false;
  float m_range = 1.0f;
  int m_view_w = 640, m_view_h = 480;
  unsigned m_view_texture = 0;
  AnatomyWindow m_anatomy{m_env};  // overlay (key O) and the Anatomy window (key A)

  // The user's matmul (kernel lab), loaded from LabEnv::user_kernels when its generation changes.
  UserKernelSlot m_user{kernel::Target::Matmul};
  bool m_user_autorun = false;
  std::string m_user_run_status;  // the last run's error, shown until the next run

  // The CPU baselines and the user's run: watched while they run (a headless update does not drain them).
  // Last: joined before the state they write goes.
  LabJobs m_jobs;
  std::shared_ptr<CpuResult> m_cpu_result[3];  // the running baselines', for the "reference first" line
  LabJob m_cpu_job[3];
  LabJob m_user_job;
  LabJob m_tc_job;  // the CPU precision model (tensor-core section)
  LabJob m_tc_time_job;  // the tensor-core rungs timed on the GPU (tensor-core section)
  LabSimulation m_sim;  // no GPU: the user's matmul in the simulator

  // Sessions and presenter mode (app/session.h, ui/presenter.h); defined at the end of the file.
 public:
  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  ui::MatmulPanelModel in_force() const;
  std::vector<ui::Readout> readouts() const override;
  const char* view_window() const override { return "Matmul: C = A x B"; }
};

}  // namespace bs::matmul_lab
