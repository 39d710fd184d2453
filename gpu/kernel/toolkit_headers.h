// toolkit_headers.h: the CUDA toolkit's include folder (cuda_fp16.h, cuda_bf16.h, ...), found at run time, so
// that a user kernel may #include <cuda_fp16.h>: NVRTC searches no folder by itself. Where none is found a
// compile that names a missing header says where blockscope looked and what to install.
#pragma once

#include <string>
#include <vector>

namespace bs::kernel {

struct ToolkitHeaders {
  std::string dir;                    // the folder holding cuda_fp16.h; empty: none found
  std::vector<std::string> searched;  // the folders tried, in order
};

// The first of: $CUDA_PATH/include, $CUDA_HOME/include, the include folder beside the loaded NVRTC library
// (nvrtc_library: its path; its folder's ../include, as the toolkit's lib64/ and targets/<arch>/lib/ have, and
// ../../include, as a distribution's /usr/lib/<arch>/ has),
// `fallback` (/usr/local/cuda/include), that holds cuda_fp16.h. Null or empty arguments are skipped.
ToolkitHeaders find_toolkit_headers(const char* cuda_path, const char* cuda_home, const std::string& nvrtc_library,
                                    const std::string& fallback = "/usr/local/cuda/include");

// Once per process, from the environment and the NVRTC that nvrtc() loaded.
const ToolkitHeaders& toolkit_headers();

// A diagnostic message about a header NVRTC could not open ('could not open source file "cuda_fp16.h"'), with
// what to do when no toolkit folder was found: where blockscope looked and how to point it at one. Other
// messages (and any message when a folder was found) come back unchanged.
std::string explain_missing_header(const std::string& message, const ToolkitHeaders& h);

}  // namespace bs::kernel
