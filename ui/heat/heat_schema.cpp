// heat_schema.cpp: see heat_schema.h.
#include "ui/heat/heat_schema.h"

#include <cstdint>
#include <span>
#include <vector>

#include "core/param_binding.h"
#include "gpu/heat/heat.h"
#include "ui/colormap.h"
#include "ui/heat/heat_panel.h"

namespace bs::ui {

namespace {

// The field and its physics.
void add_field_params(std::vector<params::Param>& p) {
  using nlohmann::json;
  using params::Kind;
  using params::bind;
  using M = HeatPanelModel;  // the lab's state: every saved parameter is bound to its member
  const heat::Params d;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q = add({.name = "size",
                            .kind = Kind::Pair,
                            .default_value = json::array({d.nx, d.ny}),
                            .lo = static_cast<double>(heat::k_min_size),
                            .hi = static_cast<double>(heat::k_max_size),
                            .help = "grid: N (N x N cells) or NXxNY (the app shows 64 and up)",
                            .start_flag = true,
                            .bind = bind(&M::size)});
    q.square = true;
    q.sweep_example = "256,512,1024,2048,4096";
    // 1024^2 floats (4 MiB per buffer) fit in the L2 cache: the bench measures DRAM bandwidth on 4096^2.
    q.bench_default = json::array({4096, 4096});
  }
  add({.name = "pattern",
       .kind = Kind::Choice,
       .default_value = heat::k_pattern_names.name_of(heat::InitialPattern::HotSpots),
       .names = params::names_of(heat::k_pattern_names.names()),
       .help = "initial field",
       .bind = bind(&M::pattern)});
  add({.name = "alpha",
       .kind = Kind::Number,
       .default_value = d.alpha,
       .lo = 1e-6,
       .hi = 1e6,
       .help = "diffusivity",
       .bind = bind(&M::params, &heat::Params::alpha)});
  add({.name = "dx",
       .kind = Kind::Number,
       .default_value = d.dx,
       .lo = 1e-6,
       .hi = 1e6,
       .help = "cell size",
       .bind = bind(&M::params, &heat::Params::dx)});
  add({.name = "dt",
       .kind = Kind::Number,
       .default_value = d.dt,
       .lo = 1e-9,
       .hi = 1e6,
       .help = "time step",
       .bind = bind(&M::params, &heat::Params::dt)});
  add({.name = "boundary",
       .kind = Kind::Choice,
       .default_value = heat::k_boundary_names.name_of(heat::Boundary::Fixed),
       .names = params::names_of(heat::k_boundary_names.names()),
       .help = "edges: fixed temperature or insulated",
       .bind = bind(&M::params, &heat::Params::boundary)});
  add({.name = "boundary_temp",
       .kind = Kind::Number,
       .default_value = d.boundary_temp,
       .lo = -1e6,
       .hi = 1e6,
       .help = "temperature of fixed edges",
       .bind = bind(&M::params, &heat::Params::boundary_temp)});
  add({.name = "steps_per_frame",
       .kind = Kind::Int,
       .default_value = 10,
       .lo = 1,
       .hi = 10000,
       .help = "stencil steps per frame",
       .start_flag = true,
       .bind = bind(&M::steps_per_frame)});
  add({.name = "paused", .kind = Kind::Bool, .default_value = false, .help = "the live simulation waits",
       .bind = bind(&M::paused)});
}

// The launch: block, cells per thread, fused steps, the kernel, the grid.
void add_launch_params(std::vector<params::Param>& p) {
  using nlohmann::json;
  using params::Kind;
  using params::bind;
  using M = HeatPanelModel;  // the lab's state: every saved parameter is bound to its member
  const Dim2 b = heat::k_default_block;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q = add({.name = "block",
                            .kind = Kind::Pair,
                            .default_value = json::array({b.x, b.y}),
                            .lo = 1,
                            .hi = 1024,
                            .help = "threads per block, XxY (x * y <= 1024)",
                            .start_flag = true,
                            .bind = bind(&M::block)});
    q.sweep_names = "block.x,block.y";
    q.sweep_example = "8,16,32,64,128;1,2,4,8,16";
    q.gpu_only = true;
    // Any device's limits (1024 threads, 1024 x 1024 y): the message says which one a block breaks.
    q.rule = [](const json& v) -> std::optional<std::string> {
      const auto big = [](const json& x) { return x.is_number_unsigned() && x.get<uint64_t>() > INT64_MAX; };
      if (big(v[0]) || big(v[1])) return std::nullopt;  // the range check says it
      return validate_block(Dim2{v[0].get<int64_t>(), v[1].get<int64_t>()}, DeviceLimits{});
    };
  }
  {
    params::Param& q = add({.name = "cells_per_thread",
                            .kind = Kind::Int,
                            .default_value = heat::k_default_cells_per_thread,
                            .lo = 1,
                            .hi = 8,
                            .help = "cells per thread down y: 1, 2, 4, 8",
                            .start_flag = true,
                            .bind = bind(&M::cells_per_thread)});
    q.sweep_names = "cells";
    q.sweep_example = "1,2,4,8";
    q.gpu_only = true;
  }
  {
    params::Param& q =
        add({.name = "fused_steps",
             .kind = Kind::Int,
             .default_value = 1,
             .lo = 1,
             .hi = heat::k_max_fused_steps,
             .help = "temporal blocking: steps per pass over memory (1: the one-step kernel)",
             .start_flag = true,
             .bind = bind(&M::fused_steps)});
    q.gpu_only = true;
  }
  {
    // The kernel lab's hook: the user's heat_step (kernel editor) in place of the built-in step.
    params::Param& q =
        add({.name = "kernel",
             .kind = Kind::Choice,
             .default_value = "built-in",
             .names = {"built-in", "user"},
             .help = "the step kernel: the lab's own, or yours from the Kernel editor (heat_step)",
             .bind = bind(&M::kernel)});
    q.sweep_example = "built-in,user";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "grid",
                            .kind = Kind::Pair,
                            .default_value = "auto",
                            .lo = 1,
                            .hi = INT32_MAX,
                            .names = {"auto"},
                            .help = "blocks in the grid, XxY, or auto (the covering grid)",
                            .start_flag = true,
                            .bind = params::bind_with<M>(
                                [](const M& m) {
                                  return m.manual_grid ? json::array({m.grid[0], m.grid[1]}) : json("auto");
                                },
                                [](M& m, const json& v) {
                                  m.manual_grid = v.is_array();
                                  if (m.manual_grid) m.grid[0] = v[0].get<int>(), m.grid[1] = v[1].get<int>();
                                })});
    q.gpu_only = true;
  }
}

// The view, the brush, the CPU baselines and the bench.
void add_view_params(std::vector<params::Param>& p) {
  using nlohmann::json;
  using params::Kind;
  using params::bind;
  using M = HeatPanelModel;  // the lab's state: every saved parameter is bound to its member
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  add({.name = "colormap",
       .kind = Kind::Choice,
       .default_value = "inferno",
       .names = builtin_colormap_names(),
       .help = "colours of the field",
       .bind = bind(&M::colormap)});
  add({.name = "range",
       .kind = Kind::NumberPair,
       .default_value = "auto",
       .lo = -1e30,
       .hi = 1e30,
       .names = {"auto"},
       .help = "the values the colormap spans: LOW,HIGH or auto",
       .bind = params::bind_with<M>(
           [](const M& m) {
             return m.auto_range ? json("auto")
                                 : json::array({params::float_as_typed(m.range[0]),
                                                params::float_as_typed(m.range[1])});
           },
           [](M& m, const json& v) {
             m.auto_range = !v.is_array();
             if (!m.auto_range) m.range[0] = v[0].get<float>(), m.range[1] = v[1].get<float>();
           })});
  add({.name = "block_lines",
       .kind = Kind::Bool,
       .default_value = false,
       .help = "draw the thread blocks' edges over the field",
       .bind = bind(&M::block_lines)});
  add({.name = "brush_radius",
       .kind = Kind::Number,
       .default_value = 12.0,
       .lo = 1,
       .hi = 4096,
       .help = "paint brush radius in cells",
       .bind = bind(&M::brush_radius)});
  add({.name = "brush_hot",
       .kind = Kind::Number,
       .default_value = 1.0,
       .lo = -1e6,
       .hi = 1e6,
       .help = "temperature a left drag paints",
       .bind = bind(&M::brush_hot)});
  add({.name = "brush_cold",
       .kind = Kind::Number,
       .default_value = -0.5,
       .lo = -1e6,
       .hi = 1e6,
       .help = "temperature a right drag paints",
       .bind = bind(&M::brush_cold)});
  add({.name = "cpu_steps",
       .kind = Kind::Int,
       .default_value = 20,
       .lo = 1,
       .hi = 100000,
       .help = "steps each CPU baseline sample runs",
       .bind = bind(&M::cpu_steps)});
  {
    params::Param& q = add({.name = "steps",
                            .kind = Kind::Int,
                            .default_value = 50,
                            .lo = 1,
                            .hi = 100000,
                            .help = "stencil steps per timed sample (time is reported per step)"});
    q.saved = false;
    q.sweep_example = "10,50,100";
  }
}

params::Schema make_schema() {
  std::vector<params::Param> p;
  add_field_params(p);
  add_launch_params(p);
  add_view_params(p);
  return params::Schema("heat", std::move(p));
}

}  // namespace

const params::Schema& heat_schema() {
  static const params::Schema s = make_schema();
  return s;
}

}  // namespace bs::ui
