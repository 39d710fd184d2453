// runner.cpp: see runner.h.
#include "gpu/exercise/runner.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "gpu/exercise/cpu_reference.h"
#include "gpu/kernel/contracts.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "sim/sim.h"

namespace bs::exercise {

namespace {

constexpr const char* k_check_file = "blockscope_exercise_check";
constexpr uint64_t k_max_elements = uint64_t{1} << 26;  // per buffer: 256 MiB of 4-byte elements
constexpr uint32_t k_poison_int = 0xCDCDCDCDu;

std::string check_source_text(const Exercise& e) {
  std::string sig = e.signature();
  std::replace(sig.begin(), sig.end(), '"', '\'');
  return "\n#line 1 \"" + std::string(k_check_file) +
         "\"\n#undef bs_contract\n#undef is_same\n#undef value\n"
         "static_assert(bs_contract::is_same<decltype(&" + e.kernel + "), " + e.pointer_type() +
         ">::value, \"the exercise expects: " + sig + "\");\n";
}

// The PTX entry of `name`: extern "C" keeps it, C++ mangles it as _Z<length><name>...
std::string find_entry(const sim::Module& m, const std::string& name) {
  const std::string mangled = "_Z" + std::to_string(name.size()) + name;
  for (const sim::Function& f : m.functions)
    if (f.entry && (f.name == name || f.name.rfind(mangled, 0) == 0)) return f.name;
  return "";
}

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t hash_text(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

constexpr uint64_t k_poison_int64 = 0xCDCDCDCDCDCDCDCDull;
constexpr uint64_t k_nan64 = 0x7FF8000000000000ull;

// An element's bits (8-byte types: all 64; 4-byte ones: the low 32).
uint64_t bits_of(ElemType t, double v) {
  switch (t) {
    case ElemType::Float: return std::bit_cast<uint32_t>(static_cast<float>(v));
    case ElemType::Int: return static_cast<uint32_t>(static_cast<int32_t>(v));
    case ElemType::Uint: return static_cast<uint32_t>(v);
    case ElemType::Int64: return static_cast<uint64_t>(static_cast<int64_t>(v));
    case ElemType::Uint64: return static_cast<uint64_t>(v);
    case ElemType::Double: return std::bit_cast<uint64_t>(v);
  }
  return 0;
}

// Buffers are held as 4-byte words; an 8-byte element takes two (little-endian, as the device's memory).
uint64_t element(const std::vector<uint32_t>& v, size_t k, uint32_t words) {
  return words == 1 ? v[k] : uint64_t{v[2 * k]} | uint64_t{v[2 * k + 1]} << 32;
}
void set_element(std::vector<uint32_t>& v, size_t k, uint32_t words, uint64_t bits) {
  if (words == 1) {
    v[k] = static_cast<uint32_t>(bits);
    return;
  }
  v[2 * k] = static_cast<uint32_t>(bits);
  v[2 * k + 1] = static_cast<uint32_t>(bits >> 32);
}

uint64_t poison_of(ElemType t) {
  switch (t) {
    case ElemType::Float: return 0x7FC00000u;
    case ElemType::Double: return k_nan64;
    case ElemType::Int64:
    case ElemType::Uint64: return k_poison_int64;
    default: return k_poison_int;
  }
}

void fill_buffer(const Arg& a, uint64_t seed, std::vector<uint32_t>& v) {
  const uint32_t words = elem_bytes(a.type) / 4;
  const size_t count = v.size() / words;
  if (a.dir == Dir::Out) {
    for (size_t i = 0; i < count; ++i) set_element(v, i, words, poison_of(a.type));
    return;
  }
  const Fill& f = a.fill;
  uint64_t s = seed;
  for (size_t i = 0; i < count; ++i) {
    double x = f.value;
    if (f.kind == Fill::Kind::Uniform) {
      const uint64_t r = splitmix(s);
      if (a.type == ElemType::Float) {
        x = f.lo + (f.hi - f.lo) * static_cast<double>(r >> 40) / static_cast<double>(uint64_t{1} << 24);
      } else if (a.type == ElemType::Double) {
        x = f.lo + (f.hi - f.lo) * static_cast<double>(r >> 11) / static_cast<double>(uint64_t{1} << 53);
      } else {
        const uint64_t span = static_cast<uint64_t>(f.hi - f.lo) + 1;
        x = f.lo + static_cast<double>(r % span);
      }
    } else if (f.kind == Fill::Kind::Index) {
      const uint64_t k = f.modulo ? i % static_cast<uint64_t>(f.modulo) : i;
      x = f.offset + f.scale * static_cast<double>(k);
    }
    set_element(v, i, words, bits_of(a.type, x));
  }
}

double as_double(ElemType t, uint64_t bits) {
  return t == ElemType::Double ? std::bit_cast<double>(bits)
                               : static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
}

std::string value_text(ElemType t, uint64_t bits) {
  char b[48];
  if (is_floating(t)) {
    if (bits == poison_of(t)) return "NaN (never written)";
    std::snprintf(b, sizeof b, t == ElemType::Double ? "%.17g" : "%.9g", as_double(t, bits));
    return b;
  }
  if (bits == poison_of(t)) {
    const bool wide = elem_bytes(t) == 8;
    const std::string shown = t == ElemType::Int ? std::to_string(static_cast<int32_t>(bits))
                              : t == ElemType::Int64 ? std::to_string(static_cast<int64_t>(bits))
                                                     : std::to_string(bits);
    return shown + (wide ? " (0xCDCDCDCDCDCDCDCD, never written)" : " (0xCDCDCDCD, never written)");
  }
  switch (t) {
    case ElemType::Int: return std::to_string(static_cast<int32_t>(bits));
    case ElemType::Int64: return std::to_string(static_cast<int64_t>(bits));
    default: return std::to_string(bits);
  }
}

// One test's buffers, arguments and launch, evaluated from the contract.
struct Prepared {
  std::vector<std::vector<uint32_t>> data;  // per argument (scalars: empty)
  std::vector<int64_t> cols;                // per argument: row length or 0
  std::vector<int> buffer_of_arg;           // per argument: its index in cfg.buffers, or -1
  std::vector<int64_t> ints;                // per argument: an integer scalar's value (else 0)
  std::vector<double> reals;                // per argument: a float scalar's value (else 0)
  sim::LaunchConfig cfg;
  Bindings names;
};

std::optional<std::string> prepare(const Exercise& e, const TestCase& t, const uint32_t block[3], uint64_t seed,
                                   Prepared& p) {
  p.names = e.bindings(t, block);
  const auto eval = [&](const std::string& expr, const std::string& what, int64_t lo, int64_t hi,
                        int64_t* out) -> std::optional<std::string> {
    const ExprResult r = eval_int_expr(expr, p.names);
    if (!r.value) return what + " '" + expr + "': " + r.error;
    if (*r.value < lo || *r.value > hi)
      return what + " '" + expr + "' = " + std::to_string(*r.value) + ", outside " + std::to_string(lo) + ".." +
             std::to_string(hi);
    *out = *r.value;
    return std::nullopt;
  };
  p.cfg.block = sim::Dim3{block[0], block[1], block[2]};
  int64_t g[3];
  const int64_t gmax[3] = {INT32_MAX, 65535, 65535};
  for (int i = 0; i < 3; ++i)
    if (auto err = eval(e.grid[i], "launch.grid[" + std::to_string(i) + "]", 1, gmax[i], &g[i])) return err;
  p.cfg.grid = sim::Dim3{static_cast<uint32_t>(g[0]), static_cast<uint32_t>(g[1]), static_cast<uint32_t>(g[2])};
  int64_t dyn = 0;
  if (auto err = eval(e.dynamic_shared, "launch.dynamic_shared", 0, 227 * 1024, &dyn)) return err;
  p.cfg.dynamic_shared_bytes = static_cast<uint32_t>(dyn);
  p.data.resize(e.args.size());
  p.cols.assign(e.args.size(), 0);
  p.buffer_of_arg.assign(e.args.size(), -1);
  p.ints.assign(e.args.size(), 0);
  p.reals.assign(e.args.size(), 0);
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Arg& a = e.args[i];
    const std::string at = "args[" + std::to_string(i) + "] (" + a.name + ")";
    if (!a.buffer) {
      if (a.float_value && a.type == ElemType::Double) {
        p.reals[i] = *a.float_value;
        p.cfg.args.push_back(sim::Arg::value(*a.float_value));
      } else if (a.float_value) {
        p.reals[i] = static_cast<float>(*a.float_value);
        p.cfg.args.push_back(sim::Arg::value(static_cast<float>(*a.float_value)));
      } else {
        int64_t v = 0;
        const bool wide = a.type == ElemType::Int64;
        if (auto err = eval(a.value, at + ".value", wide ? INT64_MIN : INT32_MIN, wide ? INT64_MAX : INT32_MAX, &v))
          return err;
        p.ints[i] = v;
        p.reals[i] = a.type == ElemType::Double ? static_cast<double>(v) : static_cast<float>(v);
        if (a.type == ElemType::Float) p.cfg.args.push_back(sim::Arg::value(static_cast<float>(v)));
        else if (a.type == ElemType::Double) p.cfg.args.push_back(sim::Arg::value(static_cast<double>(v)));
        else if (wide) p.cfg.args.push_back(sim::Arg::value(v));
        else p.cfg.args.push_back(sim::Arg::value(static_cast<int32_t>(v)));
      }
      continue;
    }
    int64_t n = 0;
    if (auto err = eval(a.size, at + ".size", 1, static_cast<int64_t>(k_max_elements), &n)) return err;
    if (!a.cols.empty())
      if (auto err = eval(a.cols, at + ".cols", 1, n, &p.cols[i])) return err;
    const uint32_t eb = elem_bytes(a.type);
    p.data[i].resize(static_cast<size_t>(n) * (eb / 4));
    fill_buffer(a, seed ^ hash_text(a.name), p.data[i]);
    p.buffer_of_arg[i] = static_cast<int>(p.cfg.buffers.size());
    p.cfg.args.push_back(sim::Arg::pointer(static_cast<int>(p.cfg.buffers.size())));
    sim::Buffer b;
    b.name = a.name;
    b.bytes = static_cast<uint64_t>(n) * eb;
    b.elem_bytes = eb;
    b.output = a.dir != Dir::In && a.every_element_written;
    b.cols = static_cast<uint32_t>(p.cols[i]);
    p.cfg.buffers.push_back(b);
  }
  return std::nullopt;
}

// Points the launch's buffers at `data` (a copy of the prepared inputs, one per run).
sim::LaunchConfig bind(const Prepared& p, std::vector<std::vector<uint32_t>>& data, const Exercise& e, int workers,
                       sim::Observer* obs) {
  sim::LaunchConfig cfg = p.cfg;
  for (size_t i = 0; i < p.buffer_of_arg.size(); ++i)
    if (p.buffer_of_arg[i] >= 0) cfg.buffers[static_cast<size_t>(p.buffer_of_arg[i])].data = data[i].data();
  cfg.budget = e.budget;
  cfg.workers = workers;
  cfg.observer = obs;
  return cfg;
}

std::string thread_text(sim::Dim3 grid, sim::Dim3 block, uint64_t linear_block, uint32_t t) {
  const sim::Dim3 b{static_cast<uint32_t>(linear_block % grid.x), static_cast<uint32_t>(linear_block / grid.x % grid.y),
                    static_cast<uint32_t>(linear_block / (uint64_t{grid.x} * grid.y))};
  const sim::Dim3 th{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
  return "thread " + sim::dim_text(th) + " of block " + sim::dim_text(b);
}

// Records who writes one 4-byte element (global writes and atomics), for the failure message.
class WriterWatch final : public sim::Observer {
 public:
  WriterWatch(uint64_t addr, sim::Dim3 grid, sim::Dim3 block) : m_addr(addr), m_grid(grid), m_block(block) {}
  void on_access(int, const sim::WarpAccess& a) override {
    if (a.space != sim::Space::Global || a.access == sim::Access::Read) return;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(a.mask >> l & 1u) || a.addr[l] > m_addr || a.addr[l] + a.bytes <= m_addr) continue;
      std::lock_guard<std::mutex> lock(m_mu);
      ++m_count;
      if (first_block < 0) {
        first_block = static_cast<int64_t>(a.block);
        first_thread = a.warp * 32 + l;
      }
      if (writers.size() < 3)
        writers.push_back(thread_text(m_grid, m_block, a.block, a.warp * 32 + l) +
                          (a.access == sim::Access::Atomic ? " (atomic)" : ""));
    }
  }
  void on_barrier(int, uint64_t, uint32_t, uint64_t) override {}
  void on_step(int, uint64_t, uint32_t, uint32_t, uint32_t) override {}
  void on_start(int) override {}
  std::vector<std::string> writers;
  int64_t first_block = -1;  // the first writer seen (linear block, linear thread in it)
  uint32_t first_thread = 0;
  uint64_t count() const { return m_count; }

 private:
  uint64_t m_addr;
  sim::Dim3 m_grid, m_block;
  std::mutex m_mu;
  uint64_t m_count = 0;
};

std::string shown_file(const std::string& file, const std::string& shown) {
  if (file.empty()) return shown;
  return std::filesystem::path(file).filename() == kernel::k_user_file ? shown : file;
}

// The message with NVRTC's name for the user's file ("<cwd>/kernel.cu:8") replaced by the shown one, everywhere
// (a race names the other access's line too).
std::string with_shown_file(std::string m, const std::string& file, const std::string& shown) {
  if (file.empty() || shown_file(file, shown) != shown) return m;
  const std::string from = file + ":";
  for (size_t at = m.find(from); at != std::string::npos; at = m.find(from, at + shown.size() + 1))
    m.replace(at, file.size(), shown);
  return m;
}

std::string diagnostic_text(const sim::Diagnostic& d, const std::string& shown) {
  std::string s = d.line > 0 ? shown_file(d.file, shown) + ":" + std::to_string(d.line) + ": " : "";
  s += std::string(sim::diag_name(d.kind)) + ": " + with_shown_file(d.message, d.file, shown);
  if (d.count > 1) s += " (" + std::to_string(d.count) + " times)";
  return s;
}

std::string failure_text(const sim::Failure& f, const std::string& shown) {
  return with_shown_file(f.message, f.file, shown);
}

bool close_enough(double expected, double actual, const Tolerance& t) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  const double d = std::fabs(actual - expected);
  return d <= t.abs + t.rel * std::fabs(expected);
}

// One output buffer against the expected one: the wrong elements (integers exactly, floating-point types
// within the tolerance), the first of them, and the largest error among the tolerated ones.
struct BufferDiff {
  uint64_t count = 0, wrong = 0, first = 0;
  double max_err = 0;
};
BufferDiff compare_buffer(const Arg& a, const std::vector<uint32_t>& want, const std::vector<uint32_t>& got,
                          const Tolerance& tol) {
  BufferDiff d;
  const uint32_t words = elem_bytes(a.type) / 4;
  d.count = want.size() / words;
  for (size_t k = 0; k < d.count; ++k) {
    const uint64_t wb = element(want, k, words), gb = element(got, k, words);
    bool ok = wb == gb;
    if (!ok && is_floating(a.type)) {
      const double w = as_double(a.type, wb), g = as_double(a.type, gb);
      ok = close_enough(w, g, tol);
      if (ok) d.max_err = std::max(d.max_err, std::fabs(g - w));
    }
    if (!ok && d.wrong++ == 0) d.first = k;
  }
  return d;
}

std::vector<ScoreItem> score_of(const Exercise& e, const Prepared& p, const sim::LaunchResult& r,
                                const sim::Module& m, const std::string& entry) {
  std::vector<ScoreItem> out;
  uint32_t reads = 0, writes = 0;
  for (const sim::ThreadStats& t : r.threads) {
    reads = std::max(reads, t.global_reads);
    writes = std::max(writes, t.global_writes);
  }
  const sim::Function* f = m.find(entry);
  const uint64_t shared = (f ? f->shared_bytes : 0) + p.cfg.dynamic_shared_bytes;
  const auto add = [&](const std::string& expr, const char* what, int64_t actual) {
    if (expr.empty()) return;
    const ExprResult v = eval_int_expr(expr, p.names);
    if (v.value) out.push_back({what, actual, *v.value});
  };
  add(e.par.global_reads, "global reads per thread", reads);
  add(e.par.global_writes, "global writes per thread", writes);
  add(e.par.shared_bytes, "shared memory per block (bytes)", static_cast<int64_t>(shared));
  return out;
}

}  // namespace

Compiled compile_source(const Exercise& e, const std::string& source, const std::string& shown_name,
                        kernel::KernelCache* cache, int arch) {
  Compiled c;
  kernel::CompileRequest req;
  req.arch = arch;
  req.source = source;
  if (!req.source.empty() && req.source.back() != '\n') req.source += '\n';
  req.source += check_source_text(e);
  req.control.memory_bytes = std::min<uint64_t>(req.control.memory_bytes, e.memory_mb << 20);
  const std::string version = cache ? kernel::nvrtc().version() : std::string();
  std::optional<kernel::CompileResult> hit = cache ? cache->find(req, version) : std::nullopt;
  const kernel::CompileResult r = hit ? std::move(*hit) : kernel::compile_kernel(req);
  if (cache && !hit) cache->store(req, r);
  c.status = r.status;
  for (const kernel::Diagnostic& d : r.diagnostics) {
    if (d.severity != kernel::Severity::Error) continue;
    if (d.origin == kernel::Origin::Included && d.message.rfind(k_check_file, 0) == 0) {
      const bool missing = d.message.find("is undefined") != std::string::npos;
      const int line = kernel::find_kernel_line(source, e.kernel);
      const std::string why = (missing ? "no kernel named " + e.kernel : e.kernel + " has the wrong signature") +
                              "; the exercise expects: " + e.signature();
      c.errors.insert(c.errors.begin(),
                      shown_name + (line > 0 && !missing ? ":" + std::to_string(line) : "") + ": error: " + why);
      if (line > 0 && !missing) {
        kernel::Diagnostic m;
        m.line = line;
        m.message = why;
        c.diagnostics.insert(c.diagnostics.begin(), std::move(m));
      }
      continue;
    }
    c.errors.push_back(kernel::format_diagnostic(d, shown_name));
  }
  for (const kernel::Diagnostic& d : r.diagnostics)
    if (d.origin == kernel::Origin::User && d.line > 0 && d.severity != kernel::Severity::Remark) c.diagnostics.push_back(d);
  if (!r.ok()) {
    c.message = shown_name + ": " + (r.status == kernel::CompileStatus::CompileError ? "compile failed" : r.message) +
                (c.errors.empty() ? "" : "; the first error: " + c.errors.front());
    return c;
  }
  try {
    c.module = std::make_shared<const sim::Module>(sim::parse_ptx(r.ptx));
  } catch (const std::exception& ex) {
    c.message = shown_name + ": the simulator cannot read NVRTC's PTX: " + ex.what();
    return c;
  }
  c.entry = find_entry(*c.module, e.kernel);
  if (c.entry.empty()) {
    c.message = shown_name + ": no __global__ kernel named " + e.kernel + " in the compiled code; the exercise expects: " +
                e.signature();
    return c;
  }
  c.ok = true;
  c.binary = std::make_shared<const kernel::CompileResult>(r);
  c.message = shown_name + ": " + r.message;
  return c;
}

namespace {

// Each input buffer read once and each output written once (an in-out buffer both): the least traffic any
// correct kernel makes, so bytes / time is a figure no kernel can beat by moving less.
uint64_t compulsory_bytes(const Exercise& e, const Prepared& p) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (!e.args[i].buffer) continue;
    const uint64_t b = p.data[i].size() * 4;
    bytes += e.args[i].dir == Dir::InOut ? 2 * b : b;
  }
  return bytes;
}

// The GPU launch of one test's prepared arguments, writing into `data`.
GpuJob gpu_job(const Exercise& e, const Prepared& p, std::vector<std::vector<uint32_t>>& data, const Compiled& c,
               const std::string& shown_name) {
  GpuJob j;
  j.binary = c.binary.get();
  j.entry = c.entry;
  j.shown_name = e.kernel + " (" + shown_name + ")";
  const sim::Dim3 g = p.cfg.grid, b = p.cfg.block;
  j.grid[0] = g.x, j.grid[1] = g.y, j.grid[2] = g.z;
  j.block[0] = b.x, j.block[1] = b.y, j.block[2] = b.z;
  j.dynamic_shared = p.cfg.dynamic_shared_bytes;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Arg& a = e.args[i];
    GpuArg ga;
    if (a.buffer) {
      ga.buffer = static_cast<int>(j.buffers.size());
      j.buffers.push_back(&data[i]);
    } else if (a.type == ElemType::Float) {
      ga.bits = std::bit_cast<uint32_t>(static_cast<float>(p.reals[i]));
    } else if (a.type == ElemType::Double) {
      ga.bits = std::bit_cast<uint64_t>(p.reals[i]);
      ga.bytes = 8;
    } else if (elem_bytes(a.type) == 8) {
      ga.bits = static_cast<uint64_t>(p.ints[i]);
      ga.bytes = 8;
    } else {
      ga.bits = static_cast<uint32_t>(static_cast<int32_t>(p.ints[i]));
    }
    j.args.push_back(ga);
  }
  return j;
}

// The reference run on the GPU as well, checked against its simulated run (whose outputs are the expected
// values): a simulator bug would otherwise fail every submission on the GPU, the reference included, as the
// student's fault. On the H100, 20_scan's reference failed its own test this way (a load the simulator did not
// sign-extend). A disagreement, or a reference the GPU cannot run, is said as such.
std::optional<std::string> reference_on_gpu(const Exercise& e, const Prepared& p,
                                            const std::vector<std::vector<uint32_t>>& simulated, const Compiled& ref) {
  std::vector<std::vector<uint32_t>> data = p.data;
  GpuJob job = gpu_job(e, p, data, ref, e.id + "/reference.cu");
  job.warmup = 0;
  job.repetitions = 0;
  const GpuRun g = run_on_gpu(job);
  if (!g.error.empty()) return "the exercise's reference fails on the GPU: " + g.error;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Arg& a = e.args[i];
    if (!a.buffer || a.dir == Dir::In) continue;
    const BufferDiff d = compare_buffer(a, simulated[i], data[i], e.tolerance);
    if (!d.wrong) continue;
    const uint32_t words = elem_bytes(a.type) / 4;
    return "the simulator and the GPU disagree on the exercise's reference: " + a.name + ", element " +
           std::to_string(d.first) + ": simulated " + value_text(a.type, element(simulated[i], d.first, words)) +
           ", on the GPU " + value_text(a.type, element(data[i], d.first, words)) + " (" + std::to_string(d.wrong) +
           " of " + std::to_string(d.count) +
           " elements differ). That is a bug in blockscope's simulator, not in your kernel; please report it (--sim "
           "checks in the simulator alone)";
  }
  return std::nullopt;
}

// The block a run uses: the exercise's, or the student's where the exercise allows it.
std::optional<std::string> chosen_block(const Exercise& e, const RunOptions& o, uint32_t block[3]) {
  std::copy(e.block, e.block + 3, block);
  if (!o.block) return std::nullopt;
  if (!e.student_block)
    return e.id + " launches a fixed block (" + std::to_string(e.block[0]) + "x" + std::to_string(e.block[1]) + "x" +
           std::to_string(e.block[2]) + "); --block is not taken here";
  const auto& b = *o.block;
  if (!b[0] || !b[1] || !b[2] || uint64_t{b[0]} * b[1] * b[2] > 1024)
    return "--block: give 1 to 1024 threads per block in all";
  std::copy(b.begin(), b.end(), block);
  return std::nullopt;
}

}  // namespace

Replay prepare_replay(const Exercise& e, const TestCase& t, const RunOptions& o) {
  Replay r;
  uint32_t block[3];
  if (auto err = chosen_block(e, o, block)) {
    r.error = *err;
    return r;
  }
  Prepared p;
  if (auto err = prepare(e, t, block, e.seed ^ hash_text(t.name), p)) {
    r.error = e.id + ", test " + t.name + ": " + *err;
    return r;
  }
  r.data = p.data;
  r.config = bind(p, r.data, e, o.workers, nullptr);
  r.config.budget = e.budget;
  return r;
}

void run_replay(const Compiled& c, Replay& r, sim::Observer* observer) {
  r.config.observer = observer;
  r.result = sim::launch(*c.module, c.entry, r.config);
}

CheckResult check_source(const Exercise& e, const std::string& source, const std::string& shown_name,
                         const RunOptions& o) {
  CheckResult out;
  uint32_t block[3];
  if (auto err = chosen_block(e, o, block)) {
    out.error = *err;
    return out;
  }
  if (o.only_test >= static_cast<int>(e.tests.size())) {
    out.error = "--test " + std::to_string(o.only_test + 1) + ": " + e.id + " has " + std::to_string(e.tests.size()) +
                " tests";
    return out;
  }
  const EngineChoice choice = o.engine == Engine::Simulator
                                  ? choose_engine(o.engine, GpuStatus{})
                                  : choose_engine(o.engine, o.gpu ? *o.gpu : gpu_status());
  const GpuStatus* gpu = choice.gpu ? (o.gpu ? o.gpu : &gpu_status()) : nullptr;
  out.engine = choice.label;
  out.on_gpu = choice.gpu;
  const int arch = gpu && gpu->arch > 0 ? gpu->arch : kernel::k_default_arch;
  out.compiled = compile_source(e, source, shown_name, o.cache, arch);
  if (!out.compiled.ok) return out;
  const CpuReference* cpu = e.cpu_reference.empty() ? nullptr : find_cpu_reference(e.cpu_reference);
  const Compiled ref = cpu ? Compiled{} : compile_source(e, e.reference, e.id + "/reference.cu", o.cache, arch);
  if (!cpu && !ref.ok) {
    out.error = "the exercise's reference does not compile: " + ref.message;
    return out;
  }
  bool scored = false;
  for (size_t ti = 0; ti < e.tests.size(); ++ti) {
    const TestCase& t = e.tests[ti];
    if ((t.hidden && !o.hidden) || (o.only_test >= 0 && static_cast<size_t>(o.only_test) != ti)) continue;
    const auto t0 = std::chrono::steady_clock::now();
    TestResult tr;
    tr.test = t;
    Prepared p;
    if (auto err = prepare(e, t, block, e.seed ^ hash_text(t.name), p)) {
      out.error = e.id + ", test " + t.name + ": " + *err;
      return out;
    }
    std::vector<std::vector<uint32_t>> expected = p.data, actual = p.data;
    if (cpu) {
      CpuCall call;
      call.data = &expected;
      call.ints = p.ints;
      call.reals = p.reals;
      cpu->run(call);
    }
    const sim::LaunchResult rr =
        cpu ? sim::LaunchResult{.ok = true} : sim::launch(*ref.module, ref.entry, bind(p, expected, e, o.workers, nullptr));
    if (!rr.ok || !rr.diagnostics.empty()) {
      out.error = "the exercise's reference fails test " + t.name + ": " +
                  (!rr.ok ? failure_text(rr.failure, "reference.cu")
                          : diagnostic_text(rr.diagnostics.front(), "reference.cu"));
      return out;
    }
    if (gpu && !cpu) {
      if (auto err = reference_on_gpu(e, p, expected, ref)) {
        out.error = "test " + t.name + ": " + *err;
        return out;
      }
    }
    // In the simulator: the run checked (no GPU), or on the GPU a second run for the score, the bug checks and
    // the writers of a wrong element (its outputs go to a scratch copy; the GPU's are the ones checked).
    sim::LaunchResult sr;
    bool simulated = false;
    std::vector<std::vector<uint32_t>> scratch;
    const auto simulate = [&] {
      if (simulated) return;
      if (gpu) scratch = p.data;
      sr = sim::launch(*out.compiled.module, out.compiled.entry, bind(p, gpu ? scratch : actual, e, o.workers, nullptr));
      simulated = true;
    };
    tr.bytes = compulsory_bytes(e, p);
    if (gpu) {
      tr.on_gpu = true;
      GpuRun g = run_on_gpu(gpu_job(e, p, actual, out.compiled, shown_name));
      if (!g.error.empty()) tr.stopped = "on the GPU: " + g.error;
      tr.gpu_ms = std::move(g.ms);
      if (!scored && !t.hidden) simulate();
    } else {
      simulate();
    }
    if (!tr.stopped.empty()) {
      // The GPU run failed: nothing to compare.
    } else if (simulated && !sr.ok) {
      tr.stopped = failure_text(sr.failure, shown_name);
      // The simulator's advice names kernel check's flag; here the budget is the exercise's limit.
      const std::string advice = "raise it with --budget if the kernel really needs more";
      if (const size_t at = tr.stopped.find(advice); at != std::string::npos)
        tr.stopped.replace(at, advice.size(), "this exercise allows " + std::to_string(e.budget) + " instructions per thread");
    } else {
      uint64_t elements = 0;
      double max_err = 0;
      for (size_t i = 0; i < e.args.size() && !tr.wrong; ++i) {
        const Arg& a = e.args[i];
        if (!a.buffer || a.dir == Dir::In) continue;
        const std::vector<uint32_t>& want = expected[i];
        const std::vector<uint32_t>& got = actual[i];
        const uint32_t words = elem_bytes(a.type) / 4;
        const BufferDiff d = compare_buffer(a, want, got, e.tolerance);
        elements += d.count;
        max_err = std::max(max_err, d.max_err);
        const uint64_t wrong = d.wrong, first = d.first;
        if (!wrong) continue;
        WrongElement w;
        w.buffer = a.name;
        w.index = first;
        w.wrong_count = wrong;
        w.where = "element " + std::to_string(first);
        if (p.cols[i] > 0)
          w.where = "row " + std::to_string(first / static_cast<uint64_t>(p.cols[i])) + ", column " +
                    std::to_string(first % static_cast<uint64_t>(p.cols[i])) + " (element " + std::to_string(first) + ")";
        w.expected = value_text(a.type, element(want, first, words));
        w.actual = value_text(a.type, element(got, first, words));
        // Run the student's kernel again on the same inputs, watching that element.
        simulate();  // on the GPU: the simulator's buffer addresses, and its bug checks for the message
        const size_t buf = static_cast<size_t>(p.buffer_of_arg[i]);
        if (buf < sr.buffer_base.size()) {
          std::vector<std::vector<uint32_t>> again = p.data;
          WriterWatch watch(sr.buffer_base[buf] + first * elem_bytes(a.type), p.cfg.grid, p.cfg.block);
          sim::LaunchConfig wcfg = bind(p, again, e, o.workers, &watch);
          wcfg.diagnostics = false;
          wcfg.thread_stats = false;
          sim::launch(*out.compiled.module, out.compiled.entry, wcfg);
          w.writers = watch.writers;
          w.writer_block = watch.first_block;
          w.writer_thread = watch.first_thread;
          if (watch.count() > w.writers.size())
            w.writers.push_back("and " + std::to_string(watch.count() - w.writers.size()) + " more writes");
        }
        tr.wrong = std::move(w);
      }
      if (tr.wrong) {
        tr.check = wrong_text(*tr.wrong);
      } else {
        char b[96];
        std::snprintf(b, sizeof b, "%llu output elements match the reference (max |error| %.3g)",
                      static_cast<unsigned long long>(elements), max_err);
        tr.check = b;
      }
    }
    if (simulated)
      for (const sim::Diagnostic& d : sr.diagnostics) tr.diagnostics.push_back(diagnostic_text(d, shown_name));
    if (!tr.check.empty() && !tr.wrong && !tr.diagnostics.empty())
      tr.check += "; but the simulator found " + std::to_string(tr.diagnostics.size()) +
                  (tr.diagnostics.size() == 1 ? " bug" : " bugs") + " (below)";
    tr.passed = tr.stopped.empty() && !tr.wrong && tr.diagnostics.empty();
    if (!tr.passed) tr.gpu_ms.clear();
    if (!scored && !t.hidden && simulated && sr.ok) {
      tr.score = score_of(e, p, sr, *out.compiled.module, out.compiled.entry);
      scored = true;
    }
    tr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.tests.push_back(std::move(tr));
    if (!out.tests.back().passed && out.first_failure < 0) {
      out.first_failure = static_cast<int>(out.tests.size()) - 1;
      if (o.stop_at_first_failure) break;
    }
  }
  const TestResult* largest = nullptr;
  for (const TestResult& r : out.tests)
    if (!r.gpu_ms.empty() && (!largest || r.bytes > largest->bytes)) largest = &r;
  if (largest && gpu) out.timing = make_timing(largest->test.name, largest->gpu_ms, largest->bytes, *gpu);
  return out;
}

std::string wrong_text(const WrongElement& w) {
  std::string s = w.buffer + ", " + w.where + ": expected " + w.expected + ", got " + w.actual;
  if (w.wrong_count > 1) s += " (" + std::to_string(w.wrong_count) + " elements of " + w.buffer + " are wrong)";
  if (w.writers.empty()) return s + "; no thread wrote it";
  s += "; written by ";
  for (size_t i = 0; i < w.writers.size(); ++i) s += (i ? ", " : "") + w.writers[i];
  return s;
}

std::string score_line(const std::vector<ScoreItem>& s) {
  if (s.empty()) return "no par for this exercise";
  int met = 0;
  std::string items;
  for (const ScoreItem& i : s) {
    met += i.met();
    items += (items.empty() ? "" : ", ") + i.what + " " + std::to_string(i.actual) + " (par " +
             std::to_string(i.par) + (i.met() ? ")" : ", over)");
  }
  return std::to_string(met) + " of " + std::to_string(s.size()) + " at par: " + items;
}

}  // namespace bs::exercise
