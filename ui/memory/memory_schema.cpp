// memory_schema.cpp: see memory_schema.h.
#include "ui/memory/memory_schema.h"

#include <string>
#include <vector>

#include "core/param_binding.h"

namespace bs::ui {

namespace {

using nlohmann::json;

template <class Table>
std::string name_in(const Table& table, memory::Variant v) {
  return std::string(table.name_of(v));
}

// A member of memory::Params stored as its name in `table` (the variant choices share one enum).
template <class E, class Table>
std::shared_ptr<const params::StateBinding> named(E memory::Params::*member, const Table& table) {
  return params::bind_with<memory::Params>(
      [member, &table](const memory::Params& q) { return json(std::string(table.name_of(q.*member))); },
      [member, &table](memory::Params& q, const json& v) {
        if (v.is_string()) q.*member = table.parse(v.get<std::string>()).value_or(q.*member);
      });
}

// The kernel and the variant each kernel compares.
void add_kernel_params(std::vector<params::Param>& p) {
  using params::Kind;
  using params::bind;  // the state: memory::Params, every saved parameter bound to its member
  namespace mem = memory;
  const mem::Params d;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q =
        add({.name = "kernel",
             .kind = Kind::Choice,
             .default_value = std::string(mem::k_kernel_names.name_of(d.kernel)),
             .names = params::names_of(memory::k_kernel_names.names()),
             .help = "transpose | stride (strided read) | banks (shared memory) | aos (AoS vs SoA)",
             .bind = named(&mem::Params::kernel, mem::k_kernel_names)});
    q.sweep_example = "transpose,stride,banks,aos";
  }
  {
    params::Param& q = add({.name = "transpose_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_transpose_names, d.transpose),
                            .names = params::names_of(memory::k_transpose_names.names()),
                            .help = "copy | naive | tiled | tiled-padded | tiled-padded-multi",
                            .bind = named(&mem::Params::transpose, mem::k_transpose_names)});
    q.sweep_example = "copy,naive,tiled,tiled-padded,tiled-padded-multi";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "stride_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_stride_names, d.stride_pattern),
                            .names = params::names_of(memory::k_stride_names.names()),
                            .help = "strided (lanes `stride` floats apart) | random (a permutation)",
                            .bind = named(&mem::Params::stride_pattern, mem::k_stride_names)});
    q.sweep_example = "strided,random";
  }
  {
    params::Param& q = add({.name = "banks_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_banks_names, d.banks),
                            .names = params::names_of(memory::k_banks_names.names()),
                            .help = "plain | padded (one spare word after every 32)",
                            .bind = named(&mem::Params::banks, mem::k_banks_names)});
    q.sweep_example = "plain,padded";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "aos_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_aos_names, d.aos),
                            .names = params::names_of(memory::k_aos_names.names()),
                            .help = "aos (array of structures) | soa (structure of arrays)",
                            .bind = named(&mem::Params::aos, mem::k_aos_names)});
    q.sweep_example = "aos,soa";
  }
}

// Sizes and launch shapes, and the bench's rows.
void add_size_params(std::vector<params::Param>& p) {
  using params::Kind;
  using params::bind;  // the state: memory::Params, every saved parameter bound to its member
  namespace mem = memory;
  const mem::Params d;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q = add({.name = "size",
                            .kind = Kind::Pair,
                            .default_value = json::array({d.cols, d.rows}),
                            .lo = 1,
                            .hi = static_cast<double>(mem::k_max_dim),
                            .help = "transpose: the input's size, XxY = cols x rows (1..16384 each; 4096 means 4096x4096)",
                            .bind = params::bind_with<mem::Params>(
                                [](const mem::Params& q) { return json::array({q.cols, q.rows}); },  // x first
                                [](mem::Params& q, const json& v) {
                                  if (v.is_array()) {
                                    q.cols = v[0].get<int64_t>();
                                    q.rows = v[1].get<int64_t>();
                                  } else {
                                    q.rows = q.cols = v.get<int64_t>();
                                  }
                                })});
    q.square = true;
    q.sweep_names = "size";
    q.sweep_example = "1024,2048,4096,8192";
    q.bench_default = json::array({mem::k_bench_dim, mem::k_bench_dim});
  }
  {
    params::Param& q =
        add({.name = "n",
             .kind = Kind::Count,
             .default_value = mem::k_default_n,
             .lo = static_cast<double>(mem::k_min_n),
             .hi = static_cast<double>(mem::k_max_n),
             .help = "stride: floats; banks: threads; aos: particles (1..256M; 64M = 64 x 2^20)",
             .bind = params::bind_with<mem::Params>(
                 [](const mem::Params& q) { return json(mem::format_count(q.n)); },
                 [](mem::Params& q, const json& v) {
                   const auto parsed = mem::parse_count(v.is_string() ? v.get<std::string>() : v.dump(), "n");
                   if (parsed.value) q.n = *parsed.value;
                 })});
    q.sweep_example = "1M,4M,16M,64M";
    q.bench_default = mem::k_bench_n;
  }
  {
    params::Param& q = add({.name = "stride",
                            .kind = Kind::Int,
                            .default_value = d.stride,
                            .lo = 1,
                            .hi = mem::k_max_stride,
                            .help = "strided read: floats between neighbouring lanes (1..64)",
                            .bind = bind(&mem::Params::stride)});
    q.sweep_example = "1,2,4,8,16,32,64";
  }
  {
    params::Param& q =
        add({.name = "bank_stride",
             .kind = Kind::Int,
             .default_value = d.bank_stride,
             .lo = 1,
             .hi = mem::k_max_bank_stride,
             .help = "banks: 4-byte words between neighbouring lanes (1..32; 2^k: 2^k-way conflict)",
             .bind = bind(&mem::Params::bank_stride)});
    q.sweep_example = "1,2,4,8,16,32";
    q.gpu_only = true;
  }
  {
    params::Param& q =
        add({.name = "block",
             .kind = Kind::Pair,
             .default_value = json::array({d.block.x, d.block.y}),
             .lo = 1,
             .hi = 1024,
             .help = "transpose block, XxY (copy and multi: 32 x 1|2|4|8|16|32; naive: x*y <= 1024)",
             .bind = bind(&mem::Params::block)});
    q.sweep_names = "block.x,block.y";
    q.sweep_example = "32;1,2,4,8,16,32";
    q.gpu_only = true;
    q.rule = [](const json& v) -> std::optional<std::string> {
      const auto big = [](const json& x) { return x.is_number_unsigned() && x.get<uint64_t>() > INT64_MAX; };
      if (big(v[0]) || big(v[1])) return std::nullopt;  // the range check says it
      return validate_block(Dim2{v[0].get<int64_t>(), v[1].get<int64_t>()}, DeviceLimits{});
    };
  }
  {
    params::Param& q = add({.name = "threads",
                            .kind = Kind::Int,
                            .default_value = d.threads,
                            .lo = 1,
                            .hi = 1024,
                            .help = "stride, banks, aos: threads per block (1..1024)",
                            .bind = bind(&mem::Params::threads)});
    q.sweep_names = "block.x";
    q.sweep_example = "64,128,256,512,1024";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "device",
                            .kind = Kind::Choice,
                            .default_value = std::string(mem::k_device_names.name_of(mem::Device::All)),
                            .names = params::names_of(memory::k_device_names.names()),
                            .help = "rows the bench times: gpu | cpu | all"});
    q.saved = false;
  }
}

params::Schema make_schema() {
  std::vector<params::Param> p;
  add_kernel_params(p);
  add_size_params(p);
  return params::Schema("memory", std::move(p));
}

}  // namespace

const params::Schema& memory_schema() {
  static const params::Schema s = make_schema();
  return s;
}

memory::Params memory_params_from(const json& state) {
  memory::Params p;
  params::load_bound(memory_schema(), p, memory_schema().defaults());
  params::load_bound(memory_schema(), p, state);
  return p;
}

json memory_state_of(const memory::Params& p) {
  return params::save_bound(memory_schema(), p);
}

}  // namespace bs::ui
