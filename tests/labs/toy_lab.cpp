// toy_lab.cpp: see toy_lab.h.
#include "core/clock.h"
#include "toy_lab.h"

#include <CLI/CLI.hpp>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "app/anatomy/anatomy_cli.h"
#include "app/anatomy/anatomy_window.h"
#include "app/bench.h"
#include "app/param_flags.h"
#include "app/roofline/roofline_report.h"
#include "app/sweep/target.h"
#include "core/error.h"
#include "core/launch.h"
#include "core/param_binding.h"

namespace bs::test {

namespace {

// The toy lab's parameters as it holds them; each is bound to its schema entry below, through which the lab
// saves and loads them (core/param_binding.h).
struct ToyState {
  int n = 0;
  std::string mode;
  Dim2 block;
  int rounds = 0;
};

params::Schema make_toy_schema() {
  params::Schema s("toy", {
                              {.name = "n",
                               .kind = params::Kind::Int,
                               .default_value = 10,
                               .lo = 1,
                               .hi = 1000,
                               .help = "numbers to add",
                               .sweep_example = "10,100,1000",
                               .bind = params::bind(&ToyState::n)},
                              {.name = "mode",
                               .kind = params::Kind::Choice,
                               .default_value = "a",
                               .names = {"a", "b"},
                               .help = "a or b",
                               .bind = params::bind(&ToyState::mode)},
                              {.name = "block",
                               .kind = params::Kind::Pair,
                               .default_value = {32, 4},
                               .lo = 1,
                               .hi = 1024,
                               .help = "a block shape",
                               .bind = params::bind(&ToyState::block)},
                              // Added after the lab was written: this entry alone makes it saved, loaded,
                              // checked and undoable (lab_registry_test.cpp, ToyLab.AFieldAddedToTheSchema...),
                              // and `start_flag` makes it the app's flag --rounds (ToyLab.ItsStartFlag...).
                              {.name = "rounds",
                               .kind = params::Kind::Int,
                               .default_value = 1,
                               .lo = 1,
                               .hi = 8,
                               .help = "a setting added after the lab was written (only saved)",
                               .start_flag = true,
                               .bind = params::bind(&ToyState::rounds)},
                          });
  return s;
}

const params::Schema& toy_schema() {
  static const params::Schema s = make_toy_schema();
  return s;
}

// The schema's defaults, read through the bindings.
ToyState toy_defaults() {
  ToyState st;
  params::load_bound(toy_schema(), st, toy_schema().defaults());
  return st;
}

double sum_of(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// The toy's "kernel" to the anatomy tools: n numbers in a row (an n x 1 field), blocks of block.x x block.y
// threads, one number per thread, laid along the row. It has no GPU code: its record is of the same blocks
// run one after another on a CPU thread (SM 0), timed with the host clock.
class ToyAnatomyTarget final : public AnatomyTargetOf<ToyAnatomyTarget> {
 public:
  ToyAnatomyTarget(int n, Dim2 block) : m_n(n), m_block(block) {}
  bool operator==(const ToyAnatomyTarget& o) const { return m_n == o.m_n && m_block == o.m_block; }
  Dim2 grid() const { return {(m_n + m_block.count() - 1) / m_block.count(), 1}; }
  std::optional<anatomy::CellMapping> mapping() const override {
    anatomy::CellMapping m;
    m.block = m_block;
    m.grid = grid();
    m.tile = {m_block.count(), 1};
    m.kernel = "toy sum, one number per thread";
    return m;
  }
  AnatomyRecord record() const override {
    AnatomyRecord r;
    r.title = "toy sum of " + std::to_string(m_n) + " numbers, blocks run on one CPU thread";
    r.kernel_note = "host clock, one CPU thread";
    r.grid = grid();
    r.sm_count = 1;
    const auto t0 = std::chrono::steady_clock::now();
    volatile double sink = 0;
    for (int64_t b = 0; b < r.grid.x; ++b) {
      anatomy::BlockRecord rec;
      rec.block_x = static_cast<uint32_t>(b);
      rec.start_ns = static_cast<uint64_t>(ms_since(t0) * 1e6);
      for (int64_t i = b * m_block.count(); i < std::min<int64_t>((b + 1) * m_block.count(), m_n); ++i)
        sink = sink + static_cast<double>(i + 1);
      rec.end_ns = static_cast<uint64_t>(ms_since(t0) * 1e6);
      r.blocks.push_back(rec);
    }
    finish_record(r);
    return r;
  }
  void describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery&) const override {
    o.kernel = "toy sum";
    o.threads = static_cast<int>(m_block.count());
    o.sweep_unavailable = "the toy has no GPU kernel";
  }
  BlockSizeTimes measure_block_sizes(JobControl&) const override { return {}; }

 private:
  int m_n;
  Dim2 m_block;
};

class ToyLab final : public Lab {
 public:
  explicit ToyLab(LabEnv& env) : m_anatomy(env) {}
  const char* id() const override { return "toy"; }
  const char* title() const override { return "Toy"; }
  void draw_ui() override {
    m_anatomy.set_target(ToyAnatomyTarget(m_state.n, m_state.block), m_state.n, 1);
    ImGui::Begin("Toy view");
    ImGui::Text("n = %d", m_state.n);
    m_anatomy.draw_controls();
    ImGui::End();
  }
  void update() override { m_anatomy.update(); }
  void abandon_gpu() noexcept override { m_anatomy.abandon_gpu(); }
  void rebuild() override {}
  // Every parameter through the schema's bindings; the anatomy overlay is the lab's own extra.
  nlohmann::json save_state() const override {
    nlohmann::json j = params::save_bound(toy_schema(), m_state);
    m_anatomy.save_state(j, "anatomy_overlay");
    return j;
  }
  std::optional<std::string> load_state(const nlohmann::json& state) override {
    if (auto err = check_lab_state("toy", state)) return err;
    params::load_bound(toy_schema(), m_state, state);
    m_anatomy.load_state(state, "anatomy_overlay");
    return std::nullopt;
  }
  const AnatomyWindow& anatomy() const { return m_anatomy; }

 private:
  ToyState m_state = toy_defaults();
  AnatomyWindow m_anatomy;
};

class ToyTarget final : public sweep::Target {
 public:
  const char* lab() const override { return "toy"; }
  std::span<const sweep::ParamSpec> params() const override { return k_params; }
  const char* unit() const override { return "numbers/s"; }
  const char* time_label() const override { return "time (ms)"; }
  void validate(const sweep::Values& v) const override { (void)n_of(v); }
  double work(const sweep::Values& v) const override { return n_of(v); }
  sweep::PointRun run(const sweep::Values& v, const sweep::RunSettings& s, JobControl& ctl) const override {
    const int n = n_of(v);
    sweep::PointRun out;
    sweep::SeriesRun r{"CPU sum", false, {}, {}};
    r.time_ms = sweep::collect_samples(s.warmup, s.repetitions, ctl, [&] {
      const auto t0 = std::chrono::steady_clock::now();
      volatile double sum = sum_of(n);
      (void)sum;
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() + 1e-6;
    });
    for (double t : r.time_ms)
      r.throughput.push_back(n / (t * 1e-3));
    if (s.run_cpu) out.series.push_back(std::move(r));
    return out;
  }

 private:
  static int n_of(const sweep::Values& v) {
    const params::Param& p = toy_schema().at("n");
    const auto it = v.find("n");
    const params::TextValue t = params::from_text(p, it == v.end() ? "" : it->second, "n");
    if (!t.value) throw InvalidRequest(t.error);
    return t.value->get<int>();
  }
  static constexpr sweep::ParamSpec k_params[] = {{"n", "10", "10,100,1000", "numbers to add"}};
};

void register_toy_bench(CLI::App& bench, cli::BenchContext& ctx) {
  CLI::App* sub = bench.add_subcommand("toy", "Toy: add n numbers");
  auto flags = std::make_shared<cli::ParamFlags>(*sub, toy_schema(), std::vector<std::string>{"n", "mode"});
  sub->callback([flags, &ctx] {
    cli::run_guarded(ctx, [&] {
      if (auto err = flags->read()) throw InvalidRequest(*err);
      const int n = flags->value("n").get<int>();
      std::printf("toy bench: n=%d mode=%s sum=%.0f\n", n, flags->value("mode").get<std::string>().c_str(),
                  sum_of(n));
      return 0;
    });
  });
}

// `blockscope roofline` for the toy: the CPU sum of 1000 numbers (100 with --quick), one FLOP and 8 bytes
// read per number.
void toy_roofline_runs(const LabEnv& env, bool, bool quick) {
  const int n = quick ? 100 : 1000;
  const auto t0 = std::chrono::steady_clock::now();
  volatile double sum = sum_of(n);
  (void)sum;
  const work::Work w{.flops = static_cast<double>(n), .read_bytes = 8.0 * n};
  report_run(env, "toy", "CPU sum", false, ms_since(t0) + 1e-6, w, std::to_string(n));
}

// `blockscope anatomy toy [--n N] [--block XxY] --out DIR`: the toy target's record, written as every
// lab's is (blocks.csv, timeline.svg/png).
void register_toy_anatomy(CLI::App& anatomy, cli::BenchContext& ctx) {
  CLI::App* sub = anatomy.add_subcommand("toy", "Toy: the blocks of the toy sum, run on one CPU thread");
  auto flags = std::make_shared<cli::ParamFlags>(*sub, toy_schema(), std::vector<std::string>{"n", "block"});
  auto out = std::make_shared<std::string>();
  sub->add_option("--out", *out, "Directory for blocks.csv, timeline.svg and timeline.png")->required();
  sub->callback([flags, out, &ctx] {
    cli::anatomy_guarded(ctx, [&] {
      if (auto err = flags->read()) throw InvalidRequest(*err);
      const nlohmann::json& b = flags->value("block");
      const ToyAnatomyTarget t(flags->value("n").get<int>(), {b[0].get<int64_t>(), b[1].get<int64_t>()});
      const AnatomyRecord r = t.record();
      cli::report_and_write(*out, r.blocks, r.timeline, r.sm_count, r.title);
    });
  });
}

}  // namespace

const AnatomyWindow* toy_anatomy(const Lab& lab) {
  const auto* toy = dynamic_cast<const ToyLab*>(&lab);
  return toy ? &toy->anatomy() : nullptr;
}

LabDescriptor toy_lab_descriptor() {
  static const ToyTarget target;
  LabDescriptor d;
  d.id = "toy";
  d.title = "Toy lab";
  d.short_title = "Toy";
  d.schema = &toy_schema();
  d.make = [](LabEnv& env) { return std::make_unique<ToyLab>(env); };
  d.sweep_target = &target;
  d.register_bench = register_toy_bench;
  d.state_extras = {"anatomy_overlay"};
  d.roofline_runs = toy_roofline_runs;
  d.register_anatomy = register_toy_anatomy;
  return d;
}

}  // namespace bs::test
