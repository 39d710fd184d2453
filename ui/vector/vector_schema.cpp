// vector_schema.cpp: see vector_schema.h.
#include "ui/vector/vector_schema.h"

#include <span>
#include <string>
#include <vector>

#include "core/param_binding.h"
#include "gpu/vector/vector.h"
#include "ui/vector/vector_lab_panel.h"

namespace bs::ui {

namespace {

params::Schema make_schema() {
  using params::Kind;
  using params::bind;
  using M = VectorPanelModel;  // the lab's state: every parameter is bound to its member
  namespace vec = vector;
  vec::Params d;
  // Pinned host memory: the copies the lab and the crossover sweep measure run at the link's rate
  // (docs/PERFORMANCE.md: H2D 55.5 GB/s pinned vs 11.0 pageable on an H200).
  d.pinned = true;
  std::vector<params::Param> p;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q =
        add({.name = "n",
             .kind = Kind::Count,
             .default_value = vec::format_count(d.n),
             .lo = static_cast<double>(vec::k_min_n),
             .hi = static_cast<double>(vec::k_max_n),
             .help = "elements, 1..512M (K, M, G suffixes are powers of 2: 256M = 268435456)",
             .bind = bind(&M::n_text)});
    q.sweep_names = "size";
    q.sweep_example = "64K,256K,1M,4M,16M,64M";
    q.bench_default = vec::k_bench_n;
  }
  {
    params::Param& q = add({.name = "op",
                            .kind = Kind::Choice,
                            .default_value = std::string(vector::k_op_names.name_of(d.op)),
                            .names = params::names_of(vector::k_op_names.names()),
                            .help = "add (c = a + b) | formula (c = (a*10 + 2) * ((b + 2)*10 - 5) * 5)",
                            .bind = bind(&M::op)});
    q.sweep_example = "add,formula";
  }
  {
    // The kernel lab's hook: the user's vector_op (kernel editor) in place of the built-in kernels, checked
    // against `op`.
    params::Param& q = add({.name = "kernel",
                            .kind = Kind::Choice,
                            .default_value = "built-in",
                            .names = {"built-in", "user"},
                            .help = "the GPU kernel: the lab's own, or yours from the Kernel editor "
                                    "(vector_op, checked against op)",
                            .bind = bind(&M::kernel)});
    q.sweep_example = "built-in,user";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "indexing",
                            .kind = Kind::Choice,
                            .default_value = std::string(vector::k_indexing_names.name_of(d.indexing)),
                            .names = params::names_of(vector::k_indexing_names.names()),
                            .help = "one-per-element | grid-stride",
                            .bind = bind(&M::indexing)});
    q.sweep_example = "one-per-element,grid-stride";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "width",
                            .kind = Kind::Choice,
                            .default_value = std::string(vector::k_load_width_names.name_of(d.width)),
                            .names = params::names_of(vector::k_load_width_names.names()),
                            .help = "loads per thread: float | float4",
                            .bind = bind(&M::width)});
    q.sweep_example = "float,float4";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "block",
                            .kind = Kind::Int,
                            .default_value = d.block,
                            .lo = 1,
                            .hi = 1024,
                            .help = "threads per block (1..1024)",
                            .bind = bind(&M::block)});
    q.sweep_names = "block.x";
    q.sweep_example = "64,128,256,512,1024";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "pinned",
                            .kind = Kind::Bool,
                            .default_value = d.pinned,
                            .help = "page-locked host memory: 0 | 1",
                            .bind = bind(&M::pinned)});
    q.sweep_example = "0,1";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "streams",
                            .kind = Kind::Int,
                            .default_value = d.streams,
                            .lo = 1,
                            .hi = vec::k_max_streams,
                            .help = "CUDA streams the run is split over, 1..16",
                            .bind = bind(&M::streams)});
    q.sweep_example = "1,2,4,8";
    q.gpu_only = true;
  }
  add({.name = "sweep_max",
       .kind = Kind::Count,
       .default_value = vec::k_default_sweep_max,
       .lo = static_cast<double>(vec::k_min_n),
       .hi = static_cast<double>(vec::k_max_n),
       .help = "largest size of a size sweep (1K up to it)",
       .bind = bind(&M::sweep_max_text)});
  add({.name = "strip_count",
       .kind = Kind::Int,
       .default_value = vec::k_default_strip_count,
       .lo = 64,
       .hi = 8192,
       .help = "elements shown in the strip",
       .bind = bind(&M::strip_count)});
  add({.name = "strip_grid",
       .kind = Kind::Int,
       .default_value = vec::k_default_strip_grid,
       .lo = 1,
       .hi = 16,
       .help = "grid-stride blocks the strip shows",
       .bind = bind(&M::strip_grid)});
  add({.name = "strip_grid_like_gpu",
       .kind = Kind::Bool,
       .default_value = false,
       .help = "the strip uses the GPU's real grid-stride grid",
       .bind = bind(&M::strip_grid_like_gpu)});
  add({.name = "grid_stride_by_block",
       .kind = Kind::Bool,
       .default_value = false,
       .help = "the strip colours grid-stride elements by block, not by pass",
       .bind = bind(&M::grid_stride_by_block)});
  return params::Schema("vector", std::move(p));
}

}  // namespace

const params::Schema& vector_schema() {
  static const params::Schema s = make_schema();
  return s;
}

}  // namespace bs::ui
