// matmul_schema.cpp: see matmul_schema.h.
#include "ui/matmul/matmul_schema.h"

#include <optional>
#include <string>
#include <vector>

#include "core/param_binding.h"
#include "gpu/matmul/matmul.h"
#include "ui/colormap.h"
#include "ui/matmul/matmul_lab_panel.h"

namespace bs::ui {

namespace {

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const matmul::VariantInfo& v : matmul::gpu_variants())
    names.push_back(v.name);
  return names;
}

params::Schema make_schema() {
  using params::Kind;
  using params::bind;
  using M = MatmulPanelModel;  // the lab's state: every parameter is bound to its member
  namespace mm = matmul;
  const double lo = static_cast<double>(mm::k_min_dim), hi = static_cast<double>(mm::k_session_max_dim);
  std::vector<params::Param> p;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    // A shorthand: M = N = K. Sessions may use it, they save m, n and k; the sweep and the bench start here.
    params::Param& q = add({.name = "size",
                            .kind = Kind::Int,
                            .default_value = mm::k_sweep_dim,
                            .lo = lo,
                            .hi = hi,
                            .help = "M = N = K",
                            .bind = params::bind_with<M>([](const M& m) { return nlohmann::json(m.mnk[0]); },
                                                  [](M& m, const nlohmann::json& v) {
                                                    m.mnk[0] = m.mnk[1] = m.mnk[2] = v.get<int>();
                                                  })});
    q.written = false;
    q.sweep_example = "128,256,512,1024,2048";
    q.bench_default = mm::k_bench_dim;
  }
  const auto dim = [&](const char* name, int i, int64_t def, const char* help) {
    params::Param& q = add({.name = name,
                            .kind = Kind::Int,
                            .default_value = def,
                            .lo = lo,
                            .hi = hi,
                            .help = help,
                            .bind = params::bind_with<M>(
                                [i](const M& m) { return nlohmann::json(m.mnk[i]); },
                                [i](M& m, const nlohmann::json& v) { m.mnk[i] = v.get<int>(); })});
    q.sweep_example = "256,512,1024";
    // The bench times the ladder on a square problem where every step's gain shows.
    q.bench_default = mm::k_bench_dim;
  };
  dim("m", 0, mm::k_default_m, "rows of A and C");
  dim("n", 1, mm::k_default_n, "columns of B and C");
  dim("k", 2, mm::k_default_k, "columns of A, rows of B");
  {
    // smem_tile32: the first tiled variant, a clear picture of the tiles.
    params::Param& q = add({.name = "variant",
                            .kind = Kind::Choice,
                            .default_value = "smem_tile32",
                            .names = variant_names(),
                            .help = "the GPU kernel shown",
                            .bind = bind(&M::variant)});
    q.sweep_example = "naive_coalesced,smem_tile32,warptile_db,cublas,cpu_blocked,cpu_openblas";
  }
  {
    // The kernel lab's hook: the block the user's matmul kernel runs with (its rung of the ladder).
    params::Param& q = add({.name = "user_block",
                            .kind = Kind::Pair,
                            .default_value = nlohmann::json::array({16, 16}),
                            .lo = 1,
                            .hi = 1024,
                            .help = "your matmul kernel's block (Kernel editor), XxY (x * y <= 1024)",
                            .bind = bind(&M::user_block)});
    q.gpu_only = true;
    q.rule = [](const nlohmann::json& v) -> std::optional<std::string> {
      // Out-of-range parts are the range check's to name.
      const auto part = [](const nlohmann::json& x) {
        return x.is_number_integer() && x.get<int64_t>() >= 1 && x.get<int64_t>() <= 1024 ? x.get<int64_t>()
                                                                                          : 0;
      };
      if (part(v[0]) * part(v[1]) > 1024)
        return std::to_string(part(v[0])) + " x " + std::to_string(part(v[1])) + " is more than 1024 threads";
      return std::nullopt;
    };
  }
  add({.name = "colormap",
       .kind = Kind::Choice,
       .default_value = "coolwarm",
       .names = builtin_colormap_names(),
       .help = "colours of C",
       .bind = bind(&M::colormap)});
  add({.name = "overlay", .kind = Kind::Bool, .default_value = true, .help = "draw the block grid over C",
       .bind = bind(&M::overlay)});
  add({.name = "k_step",
       .kind = Kind::Int,
       .default_value = 0,
       .lo = 0,
       .hi = hi,
       .help = "the k-loop step the A/B diagram shows",
       .bind = bind(&M::k_step)});
  add({.name = "animate_k", .kind = Kind::Bool, .default_value = false, .help = "step through the k-loop",
       .bind = bind(&M::animate_k)});
  return params::Schema("matmul", std::move(p));
}

}  // namespace

const params::Schema& matmul_schema() {
  static const params::Schema s = make_schema();
  return s;
}

}  // namespace bs::ui
