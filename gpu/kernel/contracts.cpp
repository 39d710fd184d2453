// contracts.cpp: see contracts.h. The contracts are files (gpu/<lab>/<lab>.contract.json) whose signatures
// follow the labs' built-in kernels: gpu/heat/heat_gpu.cu's step kernel (row-major field, x = column,
// r = alpha dt / dx^2, fixed or insulated edges), gpu/vector/vector_gpu.cu's one_per_element_float (int64 n,
// c[i] = f(a[i], b[i])) and gpu/matmul's naive kernels (row-major A (M x K), B (K x N), C (M x N), int
// dimensions).
#include "gpu/kernel/contracts.h"

#include <array>
#include <cctype>
#include <mutex>

#include "assets/embedded.h"
#include "gpu/exercise/exercise.h"

namespace bs::kernel {

namespace {

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

namespace {

struct LabContract {
  ContractStorage storage;
  Contract contract;
  std::string error;
};

// Filled in place, once: the contracts' string_views point into their own storage (never moved).
const std::array<LabContract, 3>& lab_contracts() {
  static std::array<LabContract, 3> all;
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < all.size(); ++i) {
      const Target t = static_cast<Target>(i);
      const std::string file = contract_file(t);
      const std::string_view text = embedded::find(file);
      all[i].contract.target = t;
      all[i].error = text.empty() ? file + ": not embedded in this build"
                                  : parse_lab_contract(t, text, file, all[i].storage, all[i].contract);
    }
  });
  return all;
}

}  // namespace

std::string contract_file(Target t) {
  return std::string(k_target_names.name_of(t)) + ".contract.json";
}

std::string parse_lab_contract(Target t, std::string_view json_text, std::string_view where, ContractStorage& storage,
                               Contract& out) {
  out = Contract{};
  out.target = t;
  storage = ContractStorage{};
  const exercise::LoadResult r = exercise::parse_contract(std::string(json_text), std::string(where));
  if (!r.exercise) return r.error;
  const exercise::Exercise& e = *r.exercise;
  if (e.block[2] != 1) return std::string(where) + ": launch.block: a lab launches a 1D or 2D block";
  storage.kernel_name = e.kernel;
  storage.signature = e.signature();
  storage.pointer_type = e.pointer_type();
  storage.launch = e.topic;
  out.kernel_name = storage.kernel_name;
  out.signature = storage.signature;
  out.pointer_type = storage.pointer_type;
  out.launch = storage.launch;
  out.default_block_x = static_cast<int>(e.block[0]);
  out.default_block_y = static_cast<int>(e.block[1]);
  return "";
}

const Contract& contract(Target t) {
  return lab_contracts()[static_cast<size_t>(t)].contract;
}

const std::string& contract_error(Target t) {
  return lab_contracts()[static_cast<size_t>(t)].error;
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
