// multigpu_schema.cpp: see multigpu_schema.h.
#include "ui/multigpu/multigpu_schema.h"

#include <string>
#include <vector>

#include "core/param_binding.h"
#include "gpu/montecarlo/montecarlo.h"
#include "ui/multigpu/multigpu_panel.h"

namespace bs::ui {

namespace {

params::Schema make_schema() {
  using nlohmann::json;
  using params::Kind;
  using params::bind;
  using M = mg::PanelModel;  // the lab's state: every parameter is bound to its member
  std::vector<params::Param> p;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  add({.name = "workload",
       .kind = Kind::Choice,
       .default_value = std::string(k_mg_workloads[0]),
       .names = params::names_of(k_mg_workloads),
       .help = "what the GPUs share: the heat field (row slabs with halos) or Monte Carlo paths",
       .sweep_example = "heat,montecarlo",
       .bind = bind(&M::workload)});
  {
    params::Param& q = add({.name = "transport",
                            .kind = Kind::Choice,
                            .default_value = std::string(k_mg_transports[0]),
                            .names = params::names_of(k_mg_transports),
                            .help = "auto: NCCL between GPUs (peer copies without it); virtual: k slabs on "
                                    "one GPU (logic, not speed)",
                            .sweep_example = "auto,virtual",
                            .bind = bind(&M::transport)});
    q.gpu_only = true;
  }
  {
    // 1: valid on every machine (sweeps and benches start from it); the lab ticks every GPU it finds.
    params::Param& q = add({.name = "gpus",
                            .kind = Kind::Int,
                            .default_value = 1,
                            .lo = 1,
                            .hi = k_mg_max_gpus,
                            .help = "GPUs (slabs) that compute: the first N ticked in the picker, 1..16",
                            .bind = bind(&M::gpus)});
    q.sweep_example = "1,2";
    q.gpu_only = true;
  }
  {
    // 2048^2: drawn live (downloaded every frame) at a few ms per frame; large enough that each slab's
    // update is more than its launch overhead.
    params::Param& q = add({.name = "size",
                            .kind = Kind::Pair,
                            .default_value = json::array({2048, 2048}),
                            .lo = 64,
                            .hi = static_cast<double>(k_mg_max_live_size),
                            .help = "heat field: N or NXxNY cells, 64..8192 (drawn live)",
                            .bind = params::bind_pair(&M::nx, &M::ny)});
    q.square = true;
    q.sweep_example = "1024,2048,4096,8192";
  }
  {
    params::Param& q =
        add({.name = "halo",
             .kind = Kind::Int,
             .default_value = 0,
             .lo = 0,
             .hi = 16,
             .help = "halo rows = steps per exchange, 1..16 (wider halos: fewer, larger messages); 0: the "
                     "bandwidth model picks the halo and the overlap for the field and GPU count",
             .bind = bind(&M::halo)});
    q.sweep_example = "0,1,2,4,8";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "overlap",
                            .kind = Kind::Bool,
                            .default_value = true,
                            .help = "update the interior while the halos travel, then the edges (with halo 0 "
                                    "the model decides)",
                            .bind = bind(&M::overlap)});
    q.gpu_only = true;
  }
  add({.name = "steps_per_frame",
       .kind = Kind::Int,
       .default_value = 10,
       .lo = 1,
       .hi = 1000,
       .help = "heat steps per frame in the live view",
       .bind = bind(&M::steps_per_frame)});
  {
    // 16M samples: 48 chunks of ~350k (gpu/multigpu/multi_mc.h).
    params::Param& q = add({.name = "paths",
                            .kind = Kind::Int,
                            .default_value = int64_t{16} << 20,
                            .lo = 24,
                            .hi = static_cast<double>(montecarlo::k_max_paths),
                            .help = "Monte Carlo paths, 24..16777216 (16M)",
                            .bind = bind(&M::paths)});
    q.sweep_example = "1048576,4194304,16777216";
  }
  add({.name = "mc_steps",
       .kind = Kind::Int,
       .default_value = 256,
       .lo = 1,
       .hi = montecarlo::k_max_steps,
       .help = "Monte Carlo time steps per path, 1..1024",
       .bind = bind(&M::mc_steps)});
  {
    // 16384^2 (1 GiB per buffer): the strong-scaling size; each GPU's slab stays far beyond its L2.
    params::Param& q = add({.name = "scaling_size",
                            .kind = Kind::Pair,
                            .default_value = json::array({16384, 16384}),
                            .lo = 64,
                            .hi = static_cast<double>(k_mg_max_scaling_size),
                            .help = "heat field of the scaling runs: N or NXxNY, 64..32768 (weak: per GPU)",
                            .bind = params::bind_pair(&M::scaling_nx, &M::scaling_ny)});
    q.square = true;
  }
  return params::Schema("multigpu", std::move(p));
}

}  // namespace

const params::Schema& multigpu_schema() {
  static const params::Schema s = make_schema();
  return s;
}

}  // namespace bs::ui
