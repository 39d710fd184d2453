// export.cpp: see export.h. The program fills its inputs with the runner's generator (splitmix64 seeded by the
// exercise's seed, the test's name and the buffer's name), so a test's inputs are the ones the simulator used.
// Both kernels are compiled into one program: each source in a namespace of its own, its kernel renamed by a
// macro (extern "C" names must differ), with #line so nvcc's messages name the original files.
#include "gpu/exercise/export.h"

#include <cstdio>
#include <sstream>

namespace bs::exercise {

namespace {

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The source inside a namespace, the kernel renamed to prefix_kernel.
void wrap(std::ostringstream& o, const Exercise& e, const std::string& src, const std::string& prefix,
          const std::string& file) {
  o << "#define " << e.kernel << " " << prefix << "_" << e.kernel << "\nnamespace bs_" << prefix << " {\n#line 1 \""
    << file << "\"\n"
    << src << (src.empty() || src.back() != '\n' ? "\n" : "") << "}  // namespace bs_" << prefix << "\n#undef "
    << e.kernel << "\n";
}

std::string launch_fn(const Exercise& e, const std::string& prefix) {
  std::ostringstream o;
  o << "static void launch_" << prefix << "(const TestCase& t, void* const* d) {\n  bs_" << prefix << "::" << prefix
    << "_" << e.kernel << "<<<dim3(t.grid[0], t.grid[1], t.grid[2]), dim3(k_block[0], k_block[1], k_block[2]), "
       "t.dynamic_shared>>>(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Arg& a = e.args[i];
    if (i) o << ", ";
    if (a.buffer)
      o << "(" << (a.dir == Dir::In ? "const " : "") << c_type(a.type) << "*)d[" << i << "]";
    else
      o << "(" << c_type(a.type) << ")t.scalar[" << i << "]";
  }
  o << ");\n}\n";
  return o.str();
}

const char* k_runtime = R"CU(
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    const cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
      std::exit(2);                                                                                  \
    }                                                                                                \
  } while (0)

enum { T_FLOAT, T_INT, T_UINT, T_INT64, T_UINT64, T_DOUBLE };  // 4 bytes, then 8 bytes
enum { D_IN, D_OUT, D_INOUT };
enum { F_UNIFORM, F_INDEX, F_CONSTANT, F_POISON };
struct ArgSpec {
  const char* name;
  int buffer, type, dir, fill;
  double lo, hi, scale, offset;
  long long modulo;
  double value;
};
struct TestCase {
  const char* name;
  int hidden;
  long long size[16];   // buffers: elements
  double scalar[16];    // scalars: the value
  unsigned grid[3];
  unsigned dynamic_shared;
};
)CU";

const char* k_generator = R"CU(
static uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t hash_text(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
// Buffers are held as 4-byte words; an 8-byte element takes two.
static size_t words_of(int type) { return type >= T_INT64 ? 2 : 1; }
static uint64_t element(const std::vector<uint32_t>& v, size_t k, size_t w) {
  return w == 1 ? v[k] : (uint64_t)v[2 * k] | (uint64_t)v[2 * k + 1] << 32;
}
static void set_element(std::vector<uint32_t>& v, size_t k, size_t w, uint64_t b) {
  if (w == 1) { v[k] = (uint32_t)b; return; }
  v[2 * k] = (uint32_t)b;
  v[2 * k + 1] = (uint32_t)(b >> 32);
}
static uint64_t bits_of(int type, double v) {
  if (type == T_FLOAT) { float f = (float)v; uint32_t u; std::memcpy(&u, &f, 4); return u; }
  if (type == T_DOUBLE) { uint64_t u; std::memcpy(&u, &v, 8); return u; }
  if (type == T_INT) return (uint32_t)(int32_t)v;
  if (type == T_INT64) return (uint64_t)(int64_t)v;
  if (type == T_UINT64) return (uint64_t)v;
  return (uint32_t)v;
}
static uint64_t poison_of(int type) {
  return type == T_FLOAT ? 0x7FC00000u : type == T_DOUBLE ? 0x7FF8000000000000ull
         : type >= T_INT64 ? 0xCDCDCDCDCDCDCDCDull : 0xCDCDCDCDu;
}
// As blockscope's runner: outputs poisoned (NaN, 0xCDCDCDCD), inputs from the seed.
static void fill(const ArgSpec& a, uint64_t seed, std::vector<uint32_t>& v) {
  const size_t w = words_of(a.type), count = v.size() / w;
  if (a.dir == D_OUT) { for (size_t i = 0; i < count; ++i) set_element(v, i, w, poison_of(a.type)); return; }
  uint64_t s = seed;
  for (size_t i = 0; i < count; ++i) {
    double x = a.value;
    if (a.fill == F_UNIFORM) {
      const uint64_t r = splitmix(s);
      if (a.type == T_FLOAT) x = a.lo + (a.hi - a.lo) * (double)(r >> 40) / (double)(1ull << 24);
      else if (a.type == T_DOUBLE) x = a.lo + (a.hi - a.lo) * (double)(r >> 11) / (double)(1ull << 53);
      else x = a.lo + (double)(r % ((uint64_t)(a.hi - a.lo) + 1));
    } else if (a.fill == F_INDEX) {
      x = a.offset + a.scale * (double)(a.modulo ? i % (uint64_t)a.modulo : i);
    }
    set_element(v, i, w, bits_of(a.type, x));
  }
}
static double as_double(int type, uint64_t u) {
  if (type == T_DOUBLE) { double d; std::memcpy(&d, &u, 8); return d; }
  const uint32_t u32 = (uint32_t)u;
  float f;
  std::memcpy(&f, &u32, 4);
  return f;
}
static bool same(int type, uint64_t want, uint64_t got) {
  if (want == got) return true;
  if (type != T_FLOAT && type != T_DOUBLE) return false;
  const double w = as_double(type, want), g = as_double(type, got);
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  if (std::isinf(w) || std::isinf(g)) return w == g;
  return std::fabs(g - w) <= k_abs + k_rel * std::fabs(w);
}
static void print_value(int type, uint64_t u) {
  if (type == T_FLOAT) std::printf("%.9g", as_double(type, u));
  else if (type == T_DOUBLE) std::printf("%.17g", as_double(type, u));
  else if (type == T_INT) std::printf("%d", (int32_t)u);
  else if (type == T_INT64) std::printf("%lld", (long long)u);
  else if (type == T_UINT64) std::printf("%llu", (unsigned long long)u);
  else std::printf("%u", (uint32_t)u);
}

int main() {
  int failed = 0;
  for (const TestCase& t : k_tests) {
    std::vector<std::vector<uint32_t>> host(k_nargs), got(k_nargs), want(k_nargs);
    void* d_ref[16] = {};
    void* d_sub[16] = {};
    for (int i = 0; i < k_nargs; ++i) {
      if (!k_args[i].buffer) continue;
      host[i].resize((size_t)t.size[i] * words_of(k_args[i].type));
      fill(k_args[i], k_seed ^ hash_text(t.name) ^ hash_text(k_args[i].name), host[i]);
      const size_t bytes = host[i].size() * 4;
      CHECK(cudaMalloc(&d_ref[i], bytes));
      CHECK(cudaMalloc(&d_sub[i], bytes));
      CHECK(cudaMemcpy(d_ref[i], host[i].data(), bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(d_sub[i], host[i].data(), bytes, cudaMemcpyHostToDevice));
    }
    launch_reference(t, d_ref);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    launch_submission(t, d_sub);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < k_nargs && ok; ++i) {
      if (!k_args[i].buffer || k_args[i].dir == D_IN) continue;
      want[i].resize(host[i].size());
      got[i].resize(host[i].size());
      CHECK(cudaMemcpy(want[i].data(), d_ref[i], want[i].size() * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(got[i].data(), d_sub[i], got[i].size() * 4, cudaMemcpyDeviceToHost));
      const size_t w = words_of(k_args[i].type);
      for (size_t k = 0; k < want[i].size() / w; ++k) {
        if (same(k_args[i].type, element(want[i], k, w), element(got[i], k, w))) continue;
        std::printf("FAIL  %s%s: %s, element %zu: expected ", t.name, t.hidden ? " (hidden)" : "", k_args[i].name, k);
        print_value(k_args[i].type, element(want[i], k, w));
        std::printf(", got ");
        print_value(k_args[i].type, element(got[i], k, w));
        std::printf("\n");
        ok = false;
        break;
      }
    }
    // Steady-state time of the submission: 10 launches after the first, each timed with CUDA events; the median.
    std::vector<float> ms;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int rep = 0; rep < 10; ++rep) {
      // In/out buffers start from their inputs again (counters, flags: a kernel may depend on them), untimed.
      for (int i = 0; i < k_nargs; ++i)
        if (k_args[i].buffer && k_args[i].dir == D_INOUT)
          CHECK(cudaMemcpy(d_sub[i], host[i].data(), host[i].size() * 4, cudaMemcpyHostToDevice));
      CHECK(cudaEventRecord(e0));
      launch_submission(t, d_sub);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float m = 0;
      CHECK(cudaEventElapsedTime(&m, e0, e1));
      ms.push_back(m);
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    if (ok) std::printf("pass  %s%s  %.4f ms (median of 10)\n", t.name, t.hidden ? " (hidden)" : "", ms[5]);
    failed += !ok;
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    for (int i = 0; i < k_nargs; ++i) {
      if (d_ref[i]) CHECK(cudaFree(d_ref[i]));
      if (d_sub[i]) CHECK(cudaFree(d_sub[i]));
    }
  }
  const int total = (int)(sizeof k_tests / sizeof k_tests[0]);
  std::printf("%s: %d of %d tests pass (on the GPU)\n", k_exercise, total - failed, total);
  return failed ? 1 : 0;
}
)CU";

std::string np_type(ElemType t) {
  switch (t) {
    case ElemType::Float: return "np.float32";
    case ElemType::Int: return "np.int32";
    case ElemType::Uint: return "np.uint32";
    case ElemType::Int64: return "np.int64";
    case ElemType::Uint64: return "np.uint64";
    case ElemType::Double: return "np.float64";
  }
  return "np.float32";
}

std::string py_fill(const Arg& a, const std::string& size) {
  const std::string dt = np_type(a.type);
  if (a.dir == Dir::Out) {
    const char* poison = is_floating(a.type)           ? "cp.nan"
                         : a.type == ElemType::Int64  ? "-3617008641903833651"
                         : a.type == ElemType::Uint64 ? "0xCDCDCDCDCDCDCDCD"
                         : a.type == ElemType::Int    ? "-842150451"
                                                      : "0xCDCDCDCD";
    return "cp.full(" + size + ", " + poison + ", dtype=" + dt + ")";
  }
  const Fill& f = a.fill;
  std::string host;
  if (f.kind == Fill::Kind::Uniform)
    host = is_floating(a.type) ? "rng.uniform(" + num(f.lo) + ", " + num(f.hi) + ", " + size + ")"
                                     : "rng.integers(" + num(f.lo) + ", " + num(f.hi + 1) + ", " + size + ")";
  else if (f.kind == Fill::Kind::Index)
    host = num(f.offset) + " + " + num(f.scale) + " * (np.arange(" + size + ")" +
           (f.modulo ? " % " + std::to_string(f.modulo) : "") + ")";
  else
    host = "np.full(" + size + ", " + num(f.value) + ")";
  return "cp.asarray((" + host + ").astype(" + dt + "))";
}

}  // namespace

Export export_exercise(const Exercise& e, const std::string& source) {
  Export x;
  const std::string file = e.id + ".cu";
  std::ostringstream o;
  o << "// " << file << ": \"" << e.title << "\" (blockscope exercise " << e.id
    << "), exported by `blockscope exercise export`.\n"
       "// Build: cmake -S . -B build && cmake --build build   (or: nvcc -O2 -o "
    << e.id << " " << file
    << ")\n// Run:   ./build/" << e.id
    << "   every test of the exercise: your kernel beside the reference on the GPU, checked and timed;\n"
       "//        exit 0 when every test passes, 1 when one fails, 2 on a CUDA error.\n";
  o << k_runtime;
  o << "\nstatic const char* const k_exercise = \"" << e.id << "\";\nstatic const unsigned k_block[3] = {" << e.block[0]
    << ", " << e.block[1] << ", " << e.block[2] << "};\nstatic const double k_abs = " << num(e.tolerance.abs)
    << ", k_rel = " << num(e.tolerance.rel) << ";\nstatic const uint64_t k_seed = " << e.seed
    << "ull;\nstatic const int k_nargs = " << e.args.size() << ";\nstatic const ArgSpec k_args[] = {\n";
  for (const Arg& a : e.args) {
    const Fill& f = a.fill;
    const int fill = a.dir == Dir::Out ? 3 : static_cast<int>(f.kind);
    o << "    {\"" << a.name << "\", " << a.buffer << ", " << static_cast<int>(a.type) << ", " << static_cast<int>(a.dir)
      << ", " << fill << ", " << num(f.lo) << ", " << num(f.hi) << ", " << num(f.scale) << ", " << num(f.offset)
      << ", " << f.modulo << ", " << num(f.value) << "},\n";
  }
  o << "};\nstatic const TestCase k_tests[] = {\n";
  for (const TestCase& t : e.tests) {
    const Bindings b = e.bindings(t, e.block);
    std::string sizes, scalars, grid;
    for (const Arg& a : e.args) {
      const std::string& expr = a.buffer ? a.size : a.value;
      int64_t v = 0;
      if (!expr.empty()) {
        const ExprResult r = eval_int_expr(expr, b);
        if (!r.value) {
          x.error = e.id + ", test " + t.name + ": " + a.name + " '" + expr + "': " + r.error;
          return x;
        }
        v = *r.value;
      }
      sizes += std::to_string(a.buffer ? v : 0) + ", ";
      scalars += (a.buffer ? "0" : a.float_value ? num(*a.float_value) : std::to_string(v)) + ", ";
    }
    for (int i = 0; i < 3; ++i) {
      const ExprResult r = eval_int_expr(e.grid[i], b);
      if (!r.value) {
        x.error = e.id + ", test " + t.name + ": grid '" + e.grid[i] + "': " + r.error;
        return x;
      }
      grid += std::to_string(*r.value) + "u" + (i < 2 ? ", " : "");
    }
    const ExprResult dyn = eval_int_expr(e.dynamic_shared, b);
    o << "    {\"" << t.name << "\", " << t.hidden << ", {" << sizes << "}, {" << scalars << "}, {" << grid << "}, "
      << dyn.value.value_or(0) << "u},\n";
  }
  o << "};\n\n";
  wrap(o, e, source, "submission", "submission.cu");
  wrap(o, e, e.reference, "reference", "reference.cu");
  std::string head = o.str();
  o << "#line " << count_lines(head) + 2 << " \"" << file << "\"\n";
  o << launch_fn(e, "submission") << launch_fn(e, "reference") << k_generator;
  x.program = o.str();

  x.cmake = "# Builds " + file + " (exported by `blockscope exercise export`): cmake -S . -B build && cmake --build build\n"
            "cmake_minimum_required(VERSION 3.24)\nproject(" + e.id + " LANGUAGES CXX CUDA)\n"
            "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES native)\nendif()\n"
            "add_executable(" + e.id + " " + file + ")\n"
            "target_compile_options(" + e.id + " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)\n";

  // CuPy: the first visible test.
  const TestCase* t = &e.tests.front();
  for (const TestCase& c : e.tests)
    if (!c.hidden) {
      t = &c;
      break;
    }
  const Bindings b = e.bindings(*t, e.block);
  std::ostringstream p;
  p << "# " << e.id << "_cupy.py: \"" << e.title << "\" (blockscope exercise " << e.id
    << ") with CuPy: your kernel beside the reference\n# on the test " << t->name
    << ", compared with the exercise's tolerance. Needs a GPU, numpy and cupy.\n"
       "import numpy as np\nimport cupy as cp\n\n"
       "SUBMISSION = r'''\n"
    << source << "'''\n\nREFERENCE = r'''\n" << e.reference << "'''\n\n"
    << "def kernel(code):\n    # name_expressions: the kernel is found with or without extern \"C\".\n"
       "    return cp.RawModule(code=code, name_expressions=['" << e.kernel << "']).get_function('" << e.kernel
    << "')\n\n";
  for (const std::string& name : e.params) p << name << " = " << b.at(name) << "\n";
  p << "block_x, block_y, block_z = " << e.block[0] << ", " << e.block[1] << ", " << e.block[2] << "\n";
  p << "rng = np.random.default_rng(" << e.seed << ")\n";
  const auto pyexpr = [](std::string s) {  // ceil_div(a, b) and / in Python integers
    for (size_t at = s.find('/'); at != std::string::npos; at = s.find('/', at + 2)) s.replace(at, 1, "//");
    return s;
  };
  // Defined before the buffers: their sizes may use it (20_scan's tile sums: ceil_div(n, 256)).
  p << "ceil_div = lambda a, b: -(-a // b)\n";
  std::string args_sub, args_ref;
  std::vector<std::string> outs;
  for (const Arg& a : e.args) {
    if (a.buffer) {
      const std::string size = "(" + a.size + ")";
      const std::string v = "d_" + a.name;  // a prefix: a buffer may be called `in`, a Python keyword
      p << v << " = " << py_fill(a, size) << "\n";
      if (a.dir != Dir::In) {
        p << v << "_ref = " << v << ".copy()\n";
        outs.push_back(v);
      }
      args_sub += v + ", ";
      args_ref += (a.dir != Dir::In ? v + "_ref" : v) + ", ";
    } else {
      const std::string v = a.float_value ? num(*a.float_value) : "(" + a.value + ")";
      const std::string typed = np_type(a.type) + "(" + v + ")";
      args_sub += typed + ", ";
      args_ref += typed + ", ";
    }
  }
  p << "grid = (" << pyexpr(e.grid[0]) << ", " << pyexpr(e.grid[1]) << ", " << pyexpr(e.grid[2]) << ")\n";
  p << "block = (block_x, block_y, block_z)\nshared = " << pyexpr(e.dynamic_shared) << "\n";
  p << "kernel(SUBMISSION)(grid, block, (" << args_sub << "), shared_mem=shared)\n";
  p << "kernel(REFERENCE)(grid, block, (" << args_ref << "), shared_mem=shared)\n";
  p << "cp.cuda.Device().synchronize()\n";
  p << "failed = 0\n";
  for (const std::string& out : outs)
    p << "ok = bool(cp.allclose(" << out << ", " << out << "_ref, rtol=" << num(e.tolerance.rel)
      << ", atol=" << num(e.tolerance.abs) << ", equal_nan=True))\nprint('" << out.substr(2)
      << ":', 'pass' if ok else 'FAIL')\nfailed += not ok\n";
  p << "raise SystemExit(1 if failed else 0)\n";
  x.cupy = p.str();
  return x;
}

}  // namespace bs::exercise
