// reduce_schema.cpp: see reduce_schema.h.
#include "ui/reduce/reduce_schema.h"

#include <string>
#include <vector>

#include "core/param_binding.h"
#include "ui/reduce/reduce_lab_panel.h"

namespace bs::ui {

namespace {

params::Schema make_schema() {
  using params::Kind;
  using params::bind;
  using M = ReducePanelModel;  // the lab's state: every parameter is bound to its member
  namespace red = reduce;
  const red::Params d;
  std::vector<params::Param> p;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q =
        add({.name = "n",
             .kind = Kind::Count,
             .default_value = red::format_count(d.n),
             .lo = static_cast<double>(red::k_min_n),
             .hi = static_cast<double>(red::k_max_n),
             .help = "elements, at least 1 (K, M, G suffixes are powers of 2: 256M = 268435456)",
             .bind = bind(&M::n_text)});
    q.sweep_names = "size";
    q.sweep_example = "64K,1M,16M,64M,256M";
    q.bench_default = red::k_bench_n;
  }
  {
    params::Param& q = add({.name = "op",
                            .kind = Kind::Choice,
                            .default_value = std::string(reduce::k_op_names.name_of(d.op)),
                            .names = params::names_of(reduce::k_op_names.names()),
                            .help = "reduce (one sum) | scan (every prefix sum)",
                            .bind = bind(&M::op)});
    q.sweep_example = "reduce,scan";
  }
  {
    params::Param& q = add({.name = "type",
                            .kind = Kind::Choice,
                            .default_value = std::string(reduce::k_type_names.name_of(d.type)),
                            .names = params::names_of(reduce::k_type_names.names()),
                            .help = "float (checked within a derived tolerance) | int (checked exactly)",
                            .bind = bind(&M::type)});
    q.sweep_example = "float,int";
  }
  {
    params::Param& q = add({.name = "reduce_variant",
                            .kind = Kind::Choice,
                            .default_value = std::string(reduce::k_reduce_variant_names.name_of(d.reduce_variant)),
                            .names = params::names_of(reduce::k_reduce_variant_names.names()),
                            .help = "reduction kernel: " + red::k_reduce_variant_names.list(),
                            .bind = bind(&M::reduce_variant)});
    q.sweep_example = "sequential,grid-stride,warp-shuffle,cub";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "scan_variant",
                            .kind = Kind::Choice,
                            .default_value = std::string(reduce::k_scan_variant_names.name_of(d.scan_variant)),
                            .names = params::names_of(reduce::k_scan_variant_names.names()),
                            .help = "scan kernel: " + red::k_scan_variant_names.list(),
                            .bind = bind(&M::scan_variant)});
    q.sweep_example = "scan-then-propagate,decoupled-lookback,cub";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "scan_kind",
                            .kind = Kind::Choice,
                            .default_value = std::string(reduce::k_scan_kind_names.name_of(d.scan_kind)),
                            .names = params::names_of(reduce::k_scan_kind_names.names()),
                            .help = "inclusive (out[i] includes x[i]) | exclusive (out[0] = 0)",
                            .bind = bind(&M::scan_kind)});
    q.sweep_example = "inclusive,exclusive";
  }
  {
    params::Param& q = add({.name = "block",
                            .kind = Kind::Int,
                            .default_value = d.block,
                            .lo = red::k_min_block,
                            .hi = red::k_max_block,
                            .help = "threads per block, 32..1024 (a power of two for the tree kernels)",
                            .bind = bind(&M::block)});
    q.sweep_names = "block.x";
    q.sweep_example = "64,128,256,512,1024";
    q.gpu_only = true;
  }
  add({.name = "device",
       .kind = Kind::Choice,
       .default_value = std::string(reduce::k_device_names.name_of(red::Device::All)),
       .names = params::names_of(reduce::k_device_names.names()),
       .help = "what a run times: gpu | cpu | all (GPU and both CPU baselines)",
       .bind = bind(&M::device)});
  return params::Schema("reduce", std::move(p));
}

}  // namespace

const params::Schema& reduce_schema() {
  static const params::Schema s = make_schema();
  return s;
}

reduce::Params params_of(const ReducePanelModel& m) {
  reduce::Params p;
  if (auto n = reduce::parse_count(m.n_text, "n").value) p.n = *n;
  p.op = static_cast<reduce::Op>(m.op);
  p.type = static_cast<reduce::ElemType>(m.type);
  p.reduce_variant = static_cast<reduce::ReduceVariant>(m.reduce_variant);
  p.scan_variant = static_cast<reduce::ScanVariant>(m.scan_variant);
  p.scan_kind = static_cast<reduce::ScanKind>(m.scan_kind);
  p.block = m.block;
  return p;
}

reduce::Params params_from_state(const nlohmann::json& state) {
  ReducePanelModel m;  // at the schema's defaults
  if (state.is_object()) params::load_bound(reduce_schema(), m, state);
  return params_of(m);
}

}  // namespace bs::ui
