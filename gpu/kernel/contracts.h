// contracts.h: what a user kernel must look like to run in a lab (heat, vector, matmul): its name, its fixed
// signature, how the lab will launch it, the in-memory prelude NVRTC pre-includes, the compile-time signature
// check appended to the user's source, and the templates (assets/kernels/*.cu, embedded at build time).
//
// Kernel names: the check takes decltype(&name), and the compiler asks NVRTC for the lowered (mangled) name
// of the expression "&name" (nvrtcAddNameExpression / nvrtcGetLoweredName). So a kernel works whether or not
// the student writes extern "C"; the templates use extern "C" so the PTX names read plainly.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/enum_names.h"

namespace bs::kernel {

enum class Target { Heat, Vector, Matmul };
inline constexpr auto k_target_names =
    enum_names<Target>({{Target::Heat, "heat"}, {Target::Vector, "vector"}, {Target::Matmul, "matmul"}});

struct Contract {
  Target target;
  std::string_view kernel_name;  // "heat_step"
  std::string_view signature;    // the declaration a student writes (shown in templates and messages)
  std::string_view
      pointer_type;         // the type decltype(&kernel_name) must have, e.g. "void (*)(const float*, ...)"
  std::string_view launch;  // how the lab launches it (grid, block, arguments), for the template and docs
  int default_block_x = 0, default_block_y = 0;
};

// The lab's contract, read from its file (gpu/heat/heat.contract.json, gpu/vector/vector.contract.json,
// gpu/matmul/matmul.contract.json, embedded at build time) through the exercise contract parser
// (gpu/exercise/exercise.h, docs/EXERCISES.md): the signature and pointer type follow its args, `launch` is its
// topic, the default block its launch.block. A file that does not parse leaves the contract's strings empty and
// contract_error() says why (a test keeps the shipped files parsing).
const Contract& contract(Target t);
// "" when the target's file parsed, else "heat.contract.json: args[2].type: ..." (the field named).
const std::string& contract_error(Target t);
// The embedded file's name for `t` ("heat.contract.json").
std::string contract_file(Target t);
// Parses a lab contract's text as contract() does (tests: a malformed file names its field).
// Returns the error ("" when it parsed) and fills `out` (strings owned by `storage`).
struct ContractStorage {
  std::string kernel_name, signature, pointer_type, launch;
};
std::string parse_lab_contract(Target t, std::string_view json_text, std::string_view where, ContractStorage& storage,
                               Contract& out);

// The prelude: given to NVRTC as an in-memory header and pre-included (--pre-include), so the user's line
// numbers are unchanged and no include path is searched. Changing its text changes k_prelude_version (a
// cache-key input).
inline constexpr const char* k_prelude_name = "blockscope_prelude.h";
inline constexpr int k_prelude_version = 1;
std::string_view prelude_source();

// The file name NVRTC sees for the user's source (messages name it; the CLI prints the user's own path).
inline constexpr const char* k_user_file = "kernel.cu";
// The file name of the appended signature check (#line), so its messages are recognised as the contract's.
inline constexpr const char* k_contract_file = "blockscope_contract_check";
// The file NVRTC names in messages about a name expression (nvrtcAddNameExpression): part of the check too.
inline constexpr const char* k_name_map_file = "__nv_name_map";
// The text appended to the user's source when compiling for `c`: a static_assert on decltype(&name).
std::string contract_check_source(const Contract& c);

// The 1-based line of the first "name(" (the kernel's definition, as far as plain text tells; comments are
// skipped); 0 when there is none.
int find_kernel_line(std::string_view source, std::string_view name);

// --- Templates ---------------------------------------------------------------------------------------------
struct KernelTemplate {
  std::string_view id;  // "heat", "heat-tutorial", ...
  Target target;
  std::string_view file;  // the embedded file, e.g. "heat_stencil.cu"
  std::string_view summary;
};
std::span<const KernelTemplate> kernel_templates();
// "heat | heat-tutorial | vector | matmul | matmul-tiled"
std::string template_ids(std::string_view sep = " | ");
// The template named `id` (a template id, or a target name for that target's first template).
const KernelTemplate* find_template(std::string_view id);
// Its source text (embedded).
std::string_view template_source(const KernelTemplate& t);

}  // namespace bs::kernel
