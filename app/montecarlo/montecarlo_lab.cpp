// montecarlo_lab.cpp: the Monte Carlo lab in the app: a live option-pricing run in growing batches (GPU
// GpuPricer, or CPU batches on a worker thread), its sample paths drawn as GL line strips from a buffer CUDA
// writes through interop (host copy or CPU-simulated paths down the ladder), the terminal-price histogram
// with the lognormal density, the convergence plot, launch timing and the CPU baselines.
#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/labs.h"
#include "app/montecarlo/montecarlo_sweep_target.h"
#include "app/session.h"
#include "app/layout.h"
#include "core/text.h"
#include "app/shell/lab_jobs.h"
#include "core/param_binding.h"
#include "core/cpu_job.h"
#include "core/error.h"
#include "gpu/interop/gl_interop.h"
#include "gpu/montecarlo/montecarlo.h"
#include "app/roofline/roofline_report.h"
#include "gpu/montecarlo/montecarlo_work.h"
#include "assets/embedded.h"
#include "ui/gl/offscreen.h"
#include "ui/gl/shader.h"
#include "ui/montecarlo/montecarlo_lab_panel.h"
#include "ui/montecarlo/montecarlo_schema.h"

namespace bs {

namespace {

namespace mcl = montecarlo;

// Cumulative path counts grow by this factor per batch: about 24 points from 1k to 16M on the log axis.
constexpr double k_batch_growth = 1.5;
// The CPU path's first run: small enough that the whole convergence plot fills in within a second on 2 cores.
constexpr int64_t k_cpu_default_paths = 20'000;
constexpr int k_cpu_default_steps = 64;
constexpr int k_cpu_default_sample_paths = 200;

// Draws the sample paths (rows of `len` floats in one GL buffer) as line strips into an offscreen image.
class PathRenderer {
 public:
  PathRenderer()
      : m_program(gl::Program::build(embedded::find("mc_paths.vert.glsl"),
                                     embedded::find("mc_paths.frag.glsl"), "mc_paths")) {
    glGenVertexArrays(1, &m_vao);
    glGenTextures(1, &m_tex);
  }
  ~PathRenderer() {
    if (m_buf) glDeleteBuffers(1, &m_buf);
    glDeleteTextures(1, &m_tex);
    glDeleteVertexArrays(1, &m_vao);
  }
  PathRenderer(const PathRenderer&) = delete;
  PathRenderer& operator=(const PathRenderer&) = delete;

  // (Re)creates the buffer for `paths` rows of `len` floats; true when it is a new buffer (interop must
  // register it again).
  bool same_size(int paths, int len) const { return paths == m_paths && len == m_len && m_buf; }
  bool resize(int paths, int len) {
    if (same_size(paths, len)) return false;
    if (m_buf) glDeleteBuffers(1, &m_buf);
    glGenBuffers(1, &m_buf);
    m_paths = paths;
    m_len = len;
    const auto bytes =
        static_cast<GLsizeiptr>(std::max<int64_t>(1, static_cast<int64_t>(paths) * len) * sizeof(float));
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_buf);
    glBufferData(GL_ARRAY_BUFFER, bytes, nullptr, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 1, GL_FLOAT, GL_FALSE, sizeof(float), nullptr);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindTexture(GL_TEXTURE_BUFFER, m_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, m_buf);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    m_firsts.resize(static_cast<size_t>(paths));
    m_counts.assign(static_cast<size_t>(paths), len);
    for (int i = 0; i < paths; ++i)
      m_firsts[static_cast<size_t>(i)] = i * len;
    return true;
  }
  unsigned buffer() const { return m_buf; }
  size_t floats() const { return static_cast<size_t>(m_paths) * static_cast<size_t>(m_len); }
  void upload(const float* host, size_t count) {
    glBindBuffer(GL_ARRAY_BUFFER, m_buf);
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(std::min(count, floats()) * sizeof(float)),
                    host);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }

  unsigned render(int w, int h, double lo, double hi) {
    const gl::OffscreenImage::Scope target = m_out.begin(w, h);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.06f, 0.07f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m_paths > 0 && m_len > 1) {
      glEnable(GL_BLEND);
      glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      glUseProgram(m_program.id());
      glActiveTexture(GL_TEXTURE0);
      glBindTexture(GL_TEXTURE_BUFFER, m_tex);
      glUniform1i(m_program.uniform("u_prices"), 0);
      glUniform1i(m_program.uniform("u_len"), m_len);
      glUniform2f(m_program.uniform("u_range"), static_cast<float>(lo), static_cast<float>(hi));
      glBindVertexArray(m_vao);
      glMultiDrawArrays(GL_LINE_STRIP, m_firsts.data(), m_counts.data(), m_paths);
      glBindVertexArray(0);
      glBindTexture(GL_TEXTURE_BUFFER, 0);
      glUseProgram(0);
      glDisable(GL_BLEND);
    }
    return m_out.texture();
  }

 private:
  gl::Program m_program;
  unsigned m_vao = 0, m_buf = 0, m_tex = 0;
  gl::OffscreenImage m_out;
  int m_paths = 0, m_len = 0;
  std::vector<GLint> m_firsts;
  std::vector<GLsizei> m_counts;
};

// What one CPU batch of the live run hands back to the frame loop.
struct CpuBatch {
  mcl::SampleRange range;
  mcl::Moments moments;
  mcl::Histogram histogram;
  std::vector<float> paths;  // the first batch only
  double ms = 0;
};

class MonteCarloLab final : public Lab {
 public:
  explicit MonteCarloLab(LabEnv& env) : m_env(env) {
    const bool gpu = m_env.path.path != RenderPath::Cpu;
    // The schema's defaults (the panel model's), with a lighter first run on the CPU path.
    mcl::Params p = m_model.params;
    if (!gpu) {
      p.paths = k_cpu_default_paths;
      p.steps = k_cpu_default_steps;
      m_model.sample_paths = k_cpu_default_sample_paths;
    }
    m_params = p;
    m_model.params = p;
    m_options = edited_options();
    for (int i = 0; i < 2; ++i) {
      ui::mc::CpuRunView& v = m_model.cpu[i];
      v.label = mcl::cpu_mode_label(i == 0 ? mcl::CpuMode::OneThread : mcl::CpuMode::AllThreads);
      m_jobs.attach(m_cpu_job[i], {&v.running, &v.progress, &v.status});
    }
    m_live_jobs.attach(m_live, {.status = &m_live_status});
    rebuild();
  }

  const char* id() const override { return "montecarlo"; }
  const char* title() const override { return "Monte Carlo"; }

  void rebuild() override {
    stop_live();
    m_gpu.reset();
    m_interop.reset();
    const bool gpu = m_env.path.path != RenderPath::Cpu;
    m_model.gpu = gpu;
    if (gpu) {
      m_gpu = std::make_unique<mcl::GpuPricer>();
      m_model.compute_label = "Live run: GPU " + m_gpu->device_name() + ", batches of growing size";
    } else {
      m_model.compute_label = std::string("Live run: ") + mcl::cpu_mode_label(mcl::CpuMode::AllThreads) +
                              " in batches (CPU path: " + m_env.path.reason + ")";
    }
    apply_launch();
    restart();
  }

  void abandon_gpu() noexcept override {
    if (m_gpu) m_gpu->abandon();
    if (m_interop) m_interop->abandon();
    m_gpu.reset();
    m_interop.reset();
  }

  void draw_ui() override {
    m_actions = {};
    m_live_jobs.poll();
    m_jobs.poll();
    if (begin_window("Monte Carlo view", Slot::View)) ui::mc::draw_montecarlo_view(m_model, m_actions);
    ImGui::End();
    if (begin_window("Monte Carlo lab", Slot::Panel))
      ui::mc::draw_montecarlo_panel(m_model, m_actions);
    ImGui::End();
    if (m_actions.paths_w > 0) {
      m_view_w = m_actions.paths_w;
      m_view_h = m_actions.paths_h;
    }
  }

  void update() override {
    try {
      if (m_actions.params_changed) apply_params();
      if (m_actions.restart) restart();
      if (m_actions.launch_changed) apply_launch();
      if (m_actions.time_launch) time_launch();
      for (int i = 0; i < 2; ++i) {
        if (m_actions.run_cpu[i]) start_cpu_baseline(i);
        if (m_actions.cancel_cpu[i]) m_cpu_job[i].cancel();
      }
      if (!m_model.paused) advance();
      // Headless runs are scripted captures: the live batch started this frame is taken in this frame, so the
      // screenshot shows data however fast the GL draws frames (NVIDIA's EGL draws 30 frames before the first
      // CPU batch is done). The CPU baselines are watched while they run, never drained.
      m_live_jobs.finish_update(m_env);
      m_jobs.rethrow_gpu_error();
    } catch (const InvalidRequest& e) {
      m_model.runtime_error = e.what();
    }
    render_paths();
  }

 private:
  mcl::Params edited_params() const {
    mcl::Params p = m_model.params;
    p.option = static_cast<mcl::OptionType>(std::clamp(m_model.option, 0, 2));
    p.generator = static_cast<mcl::Generator>(std::clamp(m_model.generator, 0, 1));
    return p;
  }
  mcl::RunOptions edited_options() const {
    mcl::RunOptions o;
    o.histogram_bins = m_model.bins;
    o.sample_paths = m_model.sample_paths;
    return o;
  }

  void apply_params() {
    const mcl::Params p = edited_params();
    const mcl::RunOptions o = edited_options();
    m_model.param_error = mcl::check(p);
    m_model.options_error = mcl::validate(o).value_or("");
    if (m_model.param_error || !m_model.options_error.empty()) return;  // the previous run keeps going
    const mcl::Params old_p = m_params;
    const mcl::RunOptions old_o = m_options;
    m_params = p;
    m_options = o;
    try {
      restart();
    } catch (const InvalidRequest& e) {
      // Valid but not runnable here (device memory): say so next to the controls and go back.
      m_model.param_error = mcl::ParamError{"", e.what()};
      m_params = old_p;
      m_options = old_o;
      restart();
    }
  }

  void apply_launch() {
    m_model.launch_error.clear();
    m_model.shape.reset();
    if (!m_gpu) return;
    mcl::Launch l;
    l.block = m_model.block;
    l.layout = m_model.layout == 1 ? mcl::Layout::OnePathPerThread : mcl::Layout::GridStride;
    l.waves = m_model.waves;
    try {
      m_gpu->set_launch(l);
      m_launch = l;
    } catch (const InvalidRequest& e) {
      m_model.launch_error = std::string(e.what()) + " - the run keeps its previous launch";
    }
    m_model.shape = m_gpu->shape(mcl::sample_count(m_params));
  }

  // Cancels the CPU batch in flight and waits for it (at most one chunk of samples), dropping its result: its
  // on_done never runs, and the next batch started replaces its end.
  void stop_live() {
    m_live.cancel();
    m_live.wait();
    m_live_status.clear();
  }

  void restart() {
    stop_live();
    const mcl::Params& p = m_params;
    m_model.running = p;
    m_model.reference = mcl::reference_price(p);
    m_model.estimate = {};
    m_model.convergence.clear();
    m_model.runtime_error.clear();
    m_model.live_ms = 0;
    m_model.target_paths = mcl::paths_for_samples(mcl::sample_count(p), p.antithetic);
    const int per_sample = p.antithetic ? 2 : 1;
    m_batches =
        ui::mc::growing_batches(mcl::sample_count(p), mcl::k_ui_min_paths / per_sample, k_batch_growth);
    m_next = 0;
    m_model.batches_done = 0;
    m_model.batches_total = static_cast<int>(m_batches.size());
    m_moments = {};
    const mcl::Range range = mcl::default_histogram_range(p);
    m_model.histogram = {};
    m_model.histogram.lo = range.lo;
    m_model.histogram.hi = range.hi;
    m_model.histogram.counts.assign(static_cast<size_t>(m_options.histogram_bins), 0);
    m_model.density = {};
    // The paths image shares the histogram's price range, widened to include S0 and a margin.
    const double lo = std::min(range.lo, p.s0), hi = std::max(range.hi, p.s0);
    m_model.price_lo = std::max(0.0, lo - 0.05 * (hi - lo));
    m_model.price_hi = hi + 0.05 * (hi - lo);
    if (m_model.price_hi <= m_model.price_lo) m_model.price_hi = m_model.price_lo + 1;

    const int len = p.steps + 1;
    const int count = static_cast<int>(std::min<int64_t>(m_options.sample_paths, m_model.target_paths));
    if (m_gpu) {
      m_gpu->reset(p, m_options);
      m_model.shape = m_gpu->shape(mcl::sample_count(p));
      upload_gpu_paths(m_gpu->sample_path_count(), len);
    } else {
      m_paths.resize(0, len);  // the first CPU batch brings them
      m_model.paths_count = 0;
      m_model.paths_label = "CPU-simulated paths (the same draws as the CPU run), host upload";
      m_pending_paths = count;
    }
    m_paths_dirty = true;
  }

  // The GPU's sample paths into the GL vertex buffer: interop when the path has it, else a host copy.
  void upload_gpu_paths(int count, int len) {
    // CUDA lets go of the old buffer before GL deletes it.
    if (!m_paths.same_size(count, len)) m_interop.reset();
    const bool fresh = m_paths.resize(count, len);
    m_model.paths_count = count;
    if (count == 0) return;
    if (m_env.path.path == RenderPath::Interop) {
      if (fresh || !m_interop) {
        m_interop.reset();
        std::string err;
        m_interop = interop::FieldInterop::create(m_paths.buffer(), m_paths.floats(), &err);
        if (!m_interop) m_interop_error = err;
      }
      if (m_interop) {
        m_interop->write(m_gpu->device_sample_paths(), m_gpu->stream_handle());
        m_model.paths_label = "GPU paths, CUDA wrote the GL vertex buffer (interop)";
        return;
      }
    }
    const std::vector<float> host = m_gpu->download_sample_paths();
    m_paths.upload(host.data(), host.size());
    m_model.paths_label = m_env.path.path == RenderPath::Interop
                              ? "GPU paths, host copy (interop failed: " + m_interop_error + ")"
                              : "GPU paths, host copy";
  }

  void advance() {
    if (m_gpu)
      advance_gpu();
    else
      advance_cpu();
  }

  void advance_gpu() {
    bool got = false;
    for (const mcl::BatchResult& r : m_gpu->poll()) {
      m_model.convergence.add(r.cumulative, m_model.reference);
      m_model.estimate = r.cumulative;
      m_model.live_ms += r.ms;
      ++m_model.batches_done;
      got = true;
    }
    if (got && m_options.histogram_bins > 0) {
      // One batch at most is queued, and it just finished: the histogram's wait for the stream is short.
      m_model.histogram = m_gpu->histogram();
      m_model.density = ui::mc::density_in_counts(m_model.histogram, m_params);
    }
    if (m_gpu->in_flight() == 0 && m_next < m_batches.size()) m_gpu->enqueue(m_batches[m_next++]);
  }

  // One CPU batch at a time on m_live; its on_done adds it to the run. A failed batch stops the run (Restart
  // tries again); "cancelled" is a restart's, whose new run goes on.
  void advance_cpu() {
    if (!m_live_status.empty()) {
      if (m_live_status != "cancelled") {
        m_model.runtime_error = m_live_status;
        m_next = m_batches.size();
      }
      m_live_status.clear();
    }
    if (m_live.running() || m_next >= m_batches.size()) return;
    auto out = std::make_shared<CpuBatch>();
    out->range = m_batches[m_next++];
    out->histogram.lo = m_model.histogram.lo;
    out->histogram.hi = m_model.histogram.hi;
    out->histogram.counts.assign(m_model.histogram.counts.size(), 0);
    const mcl::Params p = m_params;
    const int paths = std::exchange(m_pending_paths, 0);
    m_live.start(
        "Monte Carlo live batch",
        [p, out, paths](JobControl& ctl) {
          const auto t0 = std::chrono::steady_clock::now();
          out->moments = mcl::simulate_cpu(p, out->range, mcl::CpuMode::AllThreads, &ctl, out->histogram);
          out->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          if (paths > 0) out->paths = mcl::cpu_sample_paths(p, paths);
        },
        [this, out] { take_cpu_batch(*out); });
  }

  void take_cpu_batch(const CpuBatch& b) {
    m_moments += b.moments;
    m_model.estimate = mcl::make_estimate(m_moments, m_params);
    m_model.convergence.add(m_model.estimate, m_model.reference);
    m_model.live_ms += b.ms;
    ++m_model.batches_done;
    mcl::Histogram& h = m_model.histogram;
    for (size_t i = 0; i < h.counts.size() && i < b.histogram.counts.size(); ++i)
      h.counts[i] += b.histogram.counts[i];
    h.underflow += b.histogram.underflow;
    h.overflow += b.histogram.overflow;
    m_model.density = ui::mc::density_in_counts(h, m_params);
    if (!b.paths.empty()) {
      const int len = m_params.steps + 1;
      const int count = static_cast<int>(b.paths.size() / static_cast<size_t>(len));
      m_paths.resize(count, len);
      m_paths.upload(b.paths.data(), b.paths.size());
      m_model.paths_count = count;
      m_paths_dirty = true;
    }
  }

  void time_launch() {
    if (!m_gpu) return;
    m_model.launch_rows.clear();
    const int64_t samples = mcl::sample_count(m_params);
    for (const mcl::Layout layout : {mcl::Layout::GridStride, mcl::Layout::OnePathPerThread}) {
      mcl::Launch l = m_launch;
      l.layout = layout;
      ui::mc::LaunchRow row;
      row.variant = std::string(mcl::layout_label(layout)) + ", block " + std::to_string(l.block) +
                    (layout == mcl::Layout::GridStride ? ", " + std::to_string(l.waves) + " waves" : "");
      m_gpu->set_launch(l);
      row.shape = m_gpu->shape(samples);
      const mcl::BenchRow b = mcl::bench_gpu(m_params, l, {}, 5);
      row.ms = b.ms;
      report_run(m_env, "montecarlo", row.variant, true, b.ms, mcl::run_work(m_params),
                 std::to_string(m_params.paths) + " paths x " + std::to_string(m_params.steps) + " steps");
      row.p10 = b.p10;
      row.p90 = b.p90;
      row.gpath_steps_per_s = b.gpath_steps_per_s;
      m_model.launch_rows.push_back(row);
    }
    m_gpu->set_launch(m_launch);
    m_model.launch_note =
        "Whole run of " + std::to_string(m_params.paths) + " paths x " + std::to_string(m_params.steps) +
        " steps, no histogram, median of 5 after 2 warm-ups (CUDA events). The grid-stride loop "
        "launches only the resident grid; one path per thread launches a block per block-size "
        "samples and pays more block reductions.";
  }

  void start_cpu_baseline(int i) {
    const mcl::CpuMode mode = i == 0 ? mcl::CpuMode::OneThread : mcl::CpuMode::AllThreads;
    auto result = std::make_shared<mcl::Result>();
    m_model.cpu[i].status.clear();
    const mcl::Params p = m_params;
    const auto take = [this, i, result] {
      ui::mc::CpuRunView& v = m_model.cpu[i];
      v.result = *result;
      report_run(m_env, "montecarlo", v.label, false, result->ms, mcl::run_work(m_params),
                 std::to_string(m_params.paths) + " paths x " + std::to_string(m_params.steps) + " steps");
    };
    m_cpu_job[i].start(
        mcl::cpu_mode_label(mode), [p, mode, result](JobControl& ctl) { *result = mcl::run_cpu(p, mode, &ctl); },
        take);
  }

  void render_paths() {
    if (!m_paths_dirty && m_view_w == m_rendered_w && m_view_h == m_rendered_h) return;
    m_model.paths_texture = m_paths.render(m_view_w, m_view_h, m_model.price_lo, m_model.price_hi);
    m_rendered_w = m_view_w;
    m_rendered_h = m_view_h;
    m_paths_dirty = false;
  }

  LabEnv& m_env;
  ui::mc::PanelModel m_model;
  ui::mc::PanelActions m_actions;
  mcl::Params m_params;
  mcl::RunOptions m_options;
  mcl::Launch m_launch;
  std::unique_ptr<mcl::GpuPricer> m_gpu;
  std::unique_ptr<interop::FieldInterop> m_interop;
  std::string m_interop_error;
  PathRenderer m_paths;
  bool m_paths_dirty = true;
  int m_view_w = 640, m_view_h = 320, m_rendered_w = 0, m_rendered_h = 0;

  std::vector<mcl::SampleRange> m_batches;
  size_t m_next = 0;
  mcl::Moments m_moments;  // CPU path: the batches so far
  int m_pending_paths = 0;

  // The CPU path's live batch (app/shell/lab_jobs.h): drained when headless, its end taken once; its status is
  // "" until it fails or is cancelled. Declared after the state its on_done writes (joined first).
  LabJobs m_live_jobs;
  std::string m_live_status;
  LabJob m_live;
  // The CPU baselines: started by a click and watched while they run (a headless update does not drain them).
  LabJobs m_jobs;
  LabJob m_cpu_job[2];

  // Sessions and presenter mode (app/session.h, ui/presenter.h); defined at the end of the file.
 public:
  nlohmann::json save_state() const override;
  std::optional<std::string> load_state(const nlohmann::json& state) override;
  ui::mc::PanelModel in_force() const;
  std::vector<ui::Readout> readouts() const override;
  const char* view_window() const override { return "Monte Carlo view"; }
};

}  // namespace

// The lab's factory (its descriptor, app/montecarlo/montecarlo_descriptor.cpp, builds it through this).
std::unique_ptr<Lab> make_montecarlo_lab(LabEnv& env) {
  return std::make_unique<MonteCarloLab>(env);
}

// --- Sessions and presenter mode --------------------------------------------------------------------------

namespace {


// Reads `state` over `m` (members left out keep their values): first the schema's checks of every member
// (types, ranges, names; ui/montecarlo/montecarlo_schema.h), then the rules across members (the model's
// limits, e.g. sigma * sqrt(T)).
std::optional<std::string> read_montecarlo_state(const nlohmann::json& state, ui::mc::PanelModel& m) {
  const params::Schema& schema = ui::montecarlo_schema();
  if (auto err = params::check_state(schema, state, "labs.montecarlo")) return err;
  params::load_bound(schema, m, state);  // every parameter through its binding (the schema's)
  mcl::Params p = m.params;
  p.option = static_cast<mcl::OptionType>(m.option);
  p.generator = static_cast<mcl::Generator>(m.generator);
  if (auto err = mcl::check(p))
    return "labs.montecarlo." + (err->param.empty() ? std::string("params") : err->param) + ": " +
           err->message;
  mcl::RunOptions o;
  o.histogram_bins = m.bins;
  o.sample_paths = m.sample_paths;
  if (auto err = mcl::validate(o)) return "labs.montecarlo: " + *err;
  return std::nullopt;
}

// The parameters in force (the panel may hold an edit that did not validate).
ui::mc::PanelModel MonteCarloLab::in_force() const {
  ui::mc::PanelModel m = m_model;
  m.params = m_params;
  m.option = static_cast<int>(m_params.option);
  m.generator = static_cast<int>(m_params.generator);
  m.sample_paths = m_options.sample_paths;
  m.bins = m_options.histogram_bins;
  return m;
}

nlohmann::json MonteCarloLab::save_state() const {
  return params::save_bound(ui::montecarlo_schema(), in_force());
}

std::optional<std::string> MonteCarloLab::load_state(const nlohmann::json& state) {
  ui::mc::PanelModel m = in_force();
  if (auto err = read_montecarlo_state(state, m)) return err;
  m_model = m;
  apply_params();
  if (m_model.param_error) return "labs.montecarlo: " + m_model.param_error->message;  // not runnable here
  apply_launch();
  return std::nullopt;
}

std::vector<ui::Readout> MonteCarloLab::readouts() const {
  std::vector<ui::Readout> out;
  const mcl::Estimate& e = m_model.estimate;
  if (e.paths <= 0) return out;
  out.push_back({"price", fmt_fixed(e.price, 4), "", mcl::option_long_label(m_params.option)});
  if (std::isfinite(e.std_error))
    out.push_back(
        {"95% CI +-", fmt_fixed(0.5 * (e.ci_high - e.ci_low), 4), "",
         m_model.reference ? "Black-Scholes " + fmt_fixed(*m_model.reference, 4) : "no closed form"});
  const double m_paths = static_cast<double>(e.paths) / 1e6;
  out.push_back(
      {"paths", m_paths < 1 ? fmt_fixed(m_paths * 1e3, 1) : fmt_fixed(m_paths, m_paths < 10 ? 2 : 1),
       m_paths < 1 ? "k" : "M",
       "of " + std::to_string(m_model.target_paths) + ", " + std::to_string(m_params.steps) + " steps each"});
  if (m_model.live_ms > 0) {
    const double rate = static_cast<double>(e.paths) / (m_model.live_ms * 1e-3) / 1e6;
    out.push_back({"throughput", fmt_fixed(rate, rate < 10 ? 2 : 0), "Mpaths/s",
                   std::string(m_gpu ? "GPU kernel time" : "CPU wall time") + ", live run"});
    // Against the fastest CPU baseline (paths per second, so runs of other sizes compare).
    double best_rate = 0;
    std::string best_label;
    for (const ui::mc::CpuRunView& v : m_model.cpu) {
      if (!v.result || v.result->ms <= 0 || v.result->estimate.paths <= 0) continue;
      const double cpu_rate = static_cast<double>(v.result->estimate.paths) / (v.result->ms * 1e-3) / 1e6;
      if (cpu_rate > best_rate) {
        best_rate = cpu_rate;
        best_label = v.label;
      }
    }
    if (m_gpu && best_rate > 0)
      out.push_back({"speedup vs CPU", fmt_fixed(rate / best_rate, 1), "x", best_label});
  }
  return out;
}

}  // namespace

std::optional<std::string> check_montecarlo_state(const nlohmann::json& state) {
  ui::mc::PanelModel m;
  return read_montecarlo_state(state, m);
}

}  // namespace bs
