// montecarlo_schema.cpp: see montecarlo_schema.h.
#include "ui/montecarlo/montecarlo_schema.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/param_binding.h"
#include "gpu/montecarlo/montecarlo.h"
#include "ui/montecarlo/montecarlo_lab_panel.h"

namespace bs::ui {

namespace {

// The option and the paths that price it.
void add_model_params(std::vector<params::Param>& p) {
  using params::Kind;
  using params::bind;
  using M = mc::PanelModel;  // the lab's state: every parameter is bound to its member
  namespace mcl = montecarlo;
  const mcl::Params d;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  // 1M paths of 256 steps: the GPU at full rate (docs/PERFORMANCE.md: 0.45 ms, about 565 G path-steps/s on
  // an H200) and a price within about 0.015 of Black-Scholes.
  {
    params::Param& q = add({.name = "paths",
                            .kind = Kind::Int,
                            .default_value = d.paths,
                            .lo = 1,
                            .hi = static_cast<double>(mcl::k_max_paths),
                            .help = "simulated paths, 1..16777216 (16M)",
                            .bind = bind(&M::params, &mcl::Params::paths)});
    q.sweep_example = "4096,16384,65536,262144,1048576";
  }
  {
    params::Param& q = add({.name = "steps",
                            .kind = Kind::Int,
                            .default_value = d.steps,
                            .lo = 1,
                            .hi = mcl::k_max_steps,
                            .help = "time steps per path, 1..1024",
                            .bind = bind(&M::params, &mcl::Params::steps)});
    q.sweep_example = "16,64,256";
  }
  add({.name = "s0",
       .kind = Kind::Number,
       .default_value = d.s0,
       .lo = 1e-9,
       .hi = 1e12,
       .help = "initial price S0",
       .bind = bind(&M::params, &mcl::Params::s0)});
  add({.name = "strike",
       .kind = Kind::Number,
       .default_value = d.strike,
       .lo = 0,
       .hi = 1e12,
       .help = "strike K",
       .bind = bind(&M::params, &mcl::Params::strike)});
  add({.name = "rate",
       .kind = Kind::Number,
       .default_value = d.rate,
       .lo = -100,
       .hi = 100,
       .help = "risk-free rate r (also the drift)",
       .bind = bind(&M::params, &mcl::Params::rate)});
  add({.name = "sigma",
       .kind = Kind::Number,
       .default_value = d.sigma,
       .lo = 0,
       .hi = 100,
       .help = "volatility sigma per sqrt(year)",
       .bind = bind(&M::params, &mcl::Params::sigma)});
  add({.name = "maturity",
       .kind = Kind::Number,
       .default_value = d.maturity,
       .lo = 1e-9,
       .hi = 1000,
       .help = "maturity T in years",
       .bind = bind(&M::params, &mcl::Params::maturity)});
  add({.name = "option",
       .kind = Kind::Choice,
       .default_value = std::string(montecarlo::k_option_names.name_of(d.option)),
       .names = params::names_of(montecarlo::k_option_names.names()),
       .help = "call | put | asian (arithmetic-average Asian call)",
       .bind = bind(&M::option)});
  {
    params::Param& q = add({.name = "generator",
                            .kind = Kind::Choice,
                            .default_value = std::string(montecarlo::k_generator_names.name_of(d.generator)),
                            .names = params::names_of(montecarlo::k_generator_names.names()),
                            .help = "GPU random generator: philox | xorwow",
                            .bind = bind(&M::generator)});
    q.sweep_example = "philox,xorwow";
    q.gpu_only = true;  // the CPU baselines always draw from std::mt19937_64
  }
  add({.name = "seed",
       .kind = Kind::Int,
       .default_value = static_cast<int64_t>(d.seed),
       .lo = 0,
       .hi = static_cast<double>(INT64_MAX),
       .help = "random seed (same seed, same price)",
       // The seed is unsigned; a session stores its low 63 bits (JSON readers lose more than 2^63 - 1).
       .bind = params::bind_with<M>(
           [](const M& m) { return nlohmann::json(static_cast<int64_t>(m.params.seed & INT64_MAX)); },
           [](M& m, const nlohmann::json& v) { m.params.seed = static_cast<uint64_t>(v.get<int64_t>()); })});
  add({.name = "antithetic",
       .kind = Kind::Bool,
       .default_value = d.antithetic,
       .help = "antithetic variates: pairs of paths with Z and -Z",
       .bind = bind(&M::params, &mcl::Params::antithetic)});
}

// What the run draws, its launch and the live run.
void add_run_params(std::vector<params::Param>& p) {
  using params::Kind;
  using params::bind;
  using M = mc::PanelModel;  // the lab's state: every parameter is bound to its member
  namespace mcl = montecarlo;
  const mcl::Launch l;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  add({.name = "sample_paths",
       .kind = Kind::Int,
       .default_value = mcl::k_default_sample_paths,
       .lo = 0,
       .hi = mcl::k_max_sample_paths,
       .help = "simulated paths drawn",
       .bind = bind(&M::sample_paths)});
  {
    params::Param& q = add({.name = "bins",
                            .kind = Kind::Int,
                            .default_value = mcl::k_default_histogram_bins,
                            .lo = 0,
                            .hi = mcl::k_max_histogram_bins,
                            .help = "bins of the S_T histogram (0: none)",
                            .bind = bind(&M::bins)});
    // The bench times its histogram row with one bin per thread of a 256-thread block.
    q.bench_default = mcl::k_bench_histogram_bins;
  }
  {
    params::Param& q = add({.name = "block",
                            .kind = Kind::Int,
                            .default_value = l.block,
                            .lo = 1,
                            .hi = 1024,
                            .help = "GPU threads per block",
                            .bind = bind(&M::block)});
    q.sweep_names = "block.x";
    q.sweep_example = "64,128,256,512,1024";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "layout",
                            .kind = Kind::Choice,
                            .default_value = std::string(montecarlo::k_layout_names.name_of(l.layout)),
                            .names = params::names_of(montecarlo::k_layout_names.names()),
                            .help = "grid-stride | one-per-thread",
                            .bind = bind(&M::layout)});
    q.sweep_example = "grid-stride,one-per-thread";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "waves",
                            .kind = Kind::Int,
                            .default_value = l.waves,
                            .lo = 1,
                            .hi = 64,
                            .help = "grid-stride grid: multiples of the resident grid",
                            .bind = bind(&M::waves)});
    q.gpu_only = true;
  }
  add({.name = "paused", .kind = Kind::Bool, .default_value = false, .help = "the live run waits",
       .bind = bind(&M::paused)});
}

params::Schema make_schema() {
  std::vector<params::Param> p;
  add_model_params(p);
  add_run_params(p);
  return params::Schema("montecarlo", std::move(p));
}

}  // namespace

const params::Schema& montecarlo_schema() {
  static const params::Schema s = make_schema();
  return s;
}

}  // namespace bs::ui
