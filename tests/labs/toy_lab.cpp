// toy_lab.cpp: see toy_lab.h.
#include "toy_lab.h"

#include <CLI/CLI.hpp>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "app/bench.h"
#include "app/param_flags.h"
#include "app/sweep/target.h"
#include "core/error.h"

namespace bs::test {

namespace {

const params::Schema& toy_schema() {
  static const params::Schema s("toy", {
                                           {.name = "n",
                                            .kind = params::Kind::Int,
                                            .default_value = 10,
                                            .lo = 1,
                                            .hi = 1000,
                                            .help = "numbers to add",
                                            .sweep_example = "10,100,1000"},
                                           {.name = "mode",
                                            .kind = params::Kind::Choice,
                                            .default_value = "a",
                                            .names = {"a", "b"},
                                            .help = "a or b"},
                                           {.name = "block",
                                            .kind = params::Kind::Pair,
                                            .default_value = {32, 4},
                                            .lo = 1,
                                            .hi = 1024,
                                            .help = "a block shape"},
                                       });
  return s;
}

class ToyLab final : public Lab {
 public:
  const char* id() const override { return "toy"; }
  const char* title() const override { return "Toy"; }
  void draw_ui() override {
    ImGui::Begin("Toy view");
    ImGui::Text("n = %d", m_n);
    ImGui::End();
  }
  void update() override {}
  void abandon_gpu() noexcept override {}
  void rebuild() override {}
  nlohmann::json save_state() const override { return {{"n", m_n}, {"mode", m_mode}}; }
  std::optional<std::string> load_state(const nlohmann::json& state) override {
    if (auto err = check_lab_state("toy", state)) return err;
    if (state.contains("n")) m_n = state["n"].get<int>();
    if (state.contains("mode")) m_mode = state["mode"].get<std::string>();
    return std::nullopt;
  }

 private:
  int m_n = static_cast<int>(toy_schema().at("n").default_int());
  std::string m_mode = toy_schema().at("mode").default_value.get<std::string>();
};

double sum_of(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return std::accumulate(v.begin(), v.end(), 0.0);
}

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

}  // namespace

LabDescriptor toy_lab_descriptor() {
  static const ToyTarget target;
  LabDescriptor d;
  d.id = "toy";
  d.title = "Toy lab";
  d.short_title = "Toy";
  d.schema = &toy_schema();
  d.make = [](LabEnv&) { return std::make_unique<ToyLab>(); };
  d.sweep_target = &target;
  d.register_bench = register_toy_bench;
  return d;
}

}  // namespace bs::test
