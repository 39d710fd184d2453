// info.h: `blockscope info`: the CUDA device, the GL renderer (through a headless EGL context), and the
// render path the app would choose here, with the reason.
#pragma once

#include <string>

namespace bs {

struct InfoOptions {
  std::string render_path = "auto";
};

int run_info(const InfoOptions& opt);

}  // namespace bs
