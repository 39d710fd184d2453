// memory_schema.cpp: see memory_schema.h.
#include "ui/memory/memory_schema.h"

#include <string>
#include <vector>

namespace bs::ui {

namespace {

using nlohmann::json;

template <class Table>
std::string name_in(const Table& table, memory::Variant v) {
  return std::string(table.name_of(v));
}

params::Schema make_schema() {
  using params::Kind;
  namespace mem = memory;
  const mem::Params d;
  std::vector<params::Param> p;
  auto add = [&](params::Param q) -> params::Param& { return p.emplace_back(std::move(q)); };
  {
    params::Param& q =
        add({.name = "kernel",
             .kind = Kind::Choice,
             .default_value = std::string(mem::k_kernel_names.name_of(d.kernel)),
             .names = params::names_of(k_mem_kernels),
             .help = "transpose | stride (strided read) | banks (shared memory) | aos (AoS vs SoA)"});
    q.sweep_example = "transpose,stride,banks,aos";
  }
  {
    params::Param& q = add({.name = "transpose_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_transpose_names, d.transpose),
                            .names = params::names_of(k_mem_transpose),
                            .help = "copy | naive | tiled | tiled-padded | tiled-padded-multi"});
    q.sweep_example = "copy,naive,tiled,tiled-padded,tiled-padded-multi";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "stride_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_stride_names, d.stride_pattern),
                            .names = params::names_of(k_mem_stride),
                            .help = "strided (lanes `stride` floats apart) | random (a permutation)"});
    q.sweep_example = "strided,random";
  }
  {
    params::Param& q = add({.name = "banks_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_banks_names, d.banks),
                            .names = params::names_of(k_mem_banks),
                            .help = "plain | padded (one spare word after every 32)"});
    q.sweep_example = "plain,padded";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "aos_variant",
                            .kind = Kind::Choice,
                            .default_value = name_in(mem::k_aos_names, d.aos),
                            .names = params::names_of(k_mem_aos),
                            .help = "aos (array of structures) | soa (structure of arrays)"});
    q.sweep_example = "aos,soa";
  }
  {
    params::Param& q = add({.name = "size",
                            .kind = Kind::Pair,
                            .default_value = json::array({d.cols, d.rows}),
                            .lo = 1,
                            .hi = static_cast<double>(mem::k_max_dim),
                            .help = "transpose: the input's size, XxY = cols x rows (1..16384 each; 4096 means 4096x4096)"});
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
             .help = "stride: floats; banks: threads; aos: particles (1..256M; 64M = 64 x 2^20)"});
    q.sweep_example = "1M,4M,16M,64M";
    q.bench_default = mem::k_bench_n;
  }
  {
    params::Param& q = add({.name = "stride",
                            .kind = Kind::Int,
                            .default_value = d.stride,
                            .lo = 1,
                            .hi = mem::k_max_stride,
                            .help = "strided read: floats between neighbouring lanes (1..64)"});
    q.sweep_example = "1,2,4,8,16,32,64";
  }
  {
    params::Param& q =
        add({.name = "bank_stride",
             .kind = Kind::Int,
             .default_value = d.bank_stride,
             .lo = 1,
             .hi = mem::k_max_bank_stride,
             .help = "banks: 4-byte words between neighbouring lanes (1..32; 2^k: 2^k-way conflict)"});
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
             .help = "transpose block, XxY (copy and multi: 32 x 1|2|4|8|16|32; naive: x*y <= 1024)"});
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
                            .help = "stride, banks, aos: threads per block (1..1024)"});
    q.sweep_names = "block.x";
    q.sweep_example = "64,128,256,512,1024";
    q.gpu_only = true;
  }
  {
    params::Param& q = add({.name = "device",
                            .kind = Kind::Choice,
                            .default_value = std::string(mem::k_device_names.name_of(mem::Device::All)),
                            .names = params::names_of(k_mem_devices),
                            .help = "rows the bench times: gpu | cpu | all"});
    q.saved = false;
  }
  return params::Schema("memory", std::move(p));
}

template <class Table>
memory::Variant choice(const json& v, const Table& table, memory::Variant fallback) {
  return v.is_string() ? table.parse(v.get<std::string>()).value_or(fallback) : fallback;
}

}  // namespace

const params::Schema& memory_schema() {
  static const params::Schema s = make_schema();
  return s;
}

memory::Params memory_params_from(const json& state) {
  namespace mem = memory;
  const params::Schema& s = memory_schema();
  const auto get = [&](const char* name) -> json {
    return state.is_object() && state.contains(name) ? state[name] : s.at(name).default_value;
  };
  mem::Params p;
  p.kernel = mem::k_kernel_names.parse(get("kernel").get<std::string>()).value_or(p.kernel);
  p.transpose = choice(get("transpose_variant"), mem::k_transpose_names, p.transpose);
  p.stride_pattern = choice(get("stride_variant"), mem::k_stride_names, p.stride_pattern);
  p.banks = choice(get("banks_variant"), mem::k_banks_names, p.banks);
  p.aos = choice(get("aos_variant"), mem::k_aos_names, p.aos);
  const json size = get("size");
  if (size.is_array() && size.size() == 2) {
    p.cols = size[0].get<int64_t>();  // x first, as every lab's size
    p.rows = size[1].get<int64_t>();
  } else if (size.is_number_integer()) {
    p.rows = p.cols = size.get<int64_t>();
  }
  const json n = get("n");
  const auto parsed = mem::parse_count(n.is_string() ? n.get<std::string>() : n.dump(), "n");
  if (parsed.value) p.n = *parsed.value;
  p.stride = get("stride").get<int>();
  p.bank_stride = get("bank_stride").get<int>();
  const json block = get("block");
  p.block = Dim2{block[0].get<int64_t>(), block[1].get<int64_t>()};
  p.threads = get("threads").get<int>();
  return p;
}

json memory_state_of(const memory::Params& p) {
  namespace mem = memory;
  return json{{"kernel", std::string(mem::k_kernel_names.name_of(p.kernel))},
              {"transpose_variant", std::string(mem::k_transpose_names.name_of(p.transpose))},
              {"stride_variant", std::string(mem::k_stride_names.name_of(p.stride_pattern))},
              {"banks_variant", std::string(mem::k_banks_names.name_of(p.banks))},
              {"aos_variant", std::string(mem::k_aos_names.name_of(p.aos))},
              {"size", json::array({p.cols, p.rows})},
              {"n", mem::format_count(p.n)},
              {"stride", p.stride},
              {"bank_stride", p.bank_stride},
              {"block", json::array({p.block.x, p.block.y})},
              {"threads", p.threads}};
}

}  // namespace bs::ui
