// contracts.cpp: see contracts.h. The signatures follow the labs' built-in kernels: gpu/heat/heat_gpu.cu's
// step kernel (row-major field, x = column, r = alpha dt / dx^2, fixed or insulated edges),
// gpu/vector/vector_gpu.cu's one_per_element_float (int64 n, c[i] = f(a[i], b[i])) and gpu/matmul's naive
// kernels (row-major A (M x K), B (K x N), C (M x N), int dimensions).
#include "gpu/kernel/contracts.h"

#include <array>
#include <cctype>

#include "assets/embedded.h"

namespace bs::kernel {

namespace {

const std::array<Contract, 3> k_contracts = {{
    {Target::Heat, "heat_step",
     "extern \"C\" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, "
     "float boundary_temp, int fixed_boundary)",
     "void (*)(const float*, float*, int, int, float, float, int)",
     "one explicit step of the heat equation on the lab's field, nx x ny floats, row-major (cell (x, y) at "
     "in[y * nx + x]); r = alpha * dt / dx^2; fixed_boundary = 1: cells outside the field hold "
     "boundary_temp, "
     "0: insulated (an outside neighbour reads as the cell itself). Launched with the heat panel's block "
     "(bx, by), grid (ceil(nx / bx), ceil(ny / by)), one thread per cell; in and out swap after every step.",
     32, 8},
    {Target::Vector, "vector_op",
     "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n)",
     "void (*)(const float*, const float*, float*, long long)",
     "c[i] = f(a[i], b[i]) for i in [0, n). Launched with the vector panel's block size b (1D), grid "
     "ceil(n / b), one thread per element.",
     256, 1},
    {Target::Matmul, "matmul",
     "extern \"C\" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)",
     "void (*)(const float*, const float*, float*, int, int, int)",
     "C = A x B in float32, all row-major: A is M x K, B is K x N, C is M x N. Launched with block (bx, by) "
     "(default 16 x 16), grid (ceil(N / bx), ceil(M / by)): x runs along the columns of C, y along its "
     "rows; checked against cuBLAS beside the ladder.",
     16, 16},
}};

const std::array<KernelTemplate, 5> k_templates = {{
    {"heat", Target::Heat, "heat_stencil.cu", "a coalesced 5-point stencil (x = column)"},
    {"heat-tutorial", Target::Heat, "heat_tutorial.cu",
     "the tutorials' kernel: the row from cuda.grid's fastest index (slow; fix it)"},
    {"vector", Target::Vector, "vector_formula.cu", "the tutorials' formula (a*10+2)*((b+2)*10-5)*5"},
    {"matmul", Target::Matmul, "matmul_naive.cu", "the tutorials' naive kernel, one thread per output"},
    {"matmul-tiled", Target::Matmul, "matmul_tiled.cu", "shared-memory 16 x 16 tiles"},
}};

constexpr const char* k_prelude =
    "// blockscope_prelude.h (version 1): given to NVRTC in memory and included before the kernel's file.\n"
    "#pragma once\n"
    "namespace bs_contract {\n"
    "// enum, not a static data member: nothing is emitted into the module (a bool member becomes a PTX "
    "global).\n"
    "template <class A, class B> struct is_same { enum { value = 0 }; };\n"
    "template <class A> struct is_same<A, A> { enum { value = 1 }; };\n"
    "}  // namespace bs_contract\n";

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

const Contract& contract(Target t) {
  for (const Contract& c : k_contracts)
    if (c.target == t) return c;
  return k_contracts[0];
}

std::string_view prelude_source() {
  return k_prelude;
}

std::string contract_check_source(const Contract& c) {
  // The message names the expected declaration; it cannot hold double quotes (NVRTC prints it quoted).
  std::string sig(c.signature);
  for (char& ch : sig)
    if (ch == '"') ch = '\'';
  std::string out = "\n#line 1 \"";
  out += k_contract_file;
  // After the user's text: a macro of theirs (or a -D) named like the check's own names must not reach it.
  out += "\"\n#undef bs_contract\n#undef is_same\n#undef value\n";
  out += "static_assert(bs_contract::is_same<decltype(&";
  out += c.kernel_name;
  out += "), ";
  out += c.pointer_type;
  out += ">::value, \"the ";
  out += k_target_names.name_of(c.target);
  out += " contract expects: " + sig + "\");\n";
  return out;
}

int find_kernel_line(std::string_view s, std::string_view name) {
  int line = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '\n') {
      ++line;
    } else if (ch == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i + 1 < s.size() && s[i + 1] != '\n')
        ++i;
    } else if (ch == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      for (i += 2; i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/'); ++i)
        if (s[i] == '\n') ++line;
      ++i;
    } else if (s.compare(i, name.size(), name) == 0 && (i == 0 || !is_ident(s[i - 1])) &&
               (i + name.size() >= s.size() || !is_ident(s[i + name.size()]))) {
      size_t j = i + name.size();
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j])))
        ++j;
      if (j < s.size() && s[j] == '(') return line;
      i += name.size() - 1;  // go on after the name (the loop still counts the line breaks that follow)
    }
  }
  return 0;
}

std::span<const KernelTemplate> kernel_templates() {
  return k_templates;
}

std::string template_ids(std::string_view sep) {
  std::string out;
  for (const KernelTemplate& t : k_templates)
    out += (out.empty() ? "" : std::string(sep)) + std::string(t.id);
  return out;
}

const KernelTemplate* find_template(std::string_view id) {
  for (const KernelTemplate& t : k_templates)
    if (t.id == id) return &t;
  return nullptr;
}

std::string_view template_source(const KernelTemplate& t) {
  return embedded::find(t.file);
}

}  // namespace bs::kernel
