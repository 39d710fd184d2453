// info.h: `blockscope info`: the CUDA device, the GL renderer (through a headless EGL context), and the
// render path the app would choose here, with the reason.
#pragma once

#include <string>

namespace bs {

struct InfoOptions {
  std::string render_path = "auto";
};

int run_info(const InfoOptions& opt);

// "blockscope 0.1.0 (built with the CUDA 13.0 runtime)": the CMake project version and CUDART_VERSION.
std::string version_text();

}  // namespace bs
