// toolkit_headers.cpp: see toolkit_headers.h.
#include "gpu/kernel/toolkit_headers.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "gpu/kernel/nvrtc_api.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs::kernel {

namespace fs = std::filesystem;

ToolkitHeaders find_toolkit_headers(const char* cuda_path, const char* cuda_home, const std::string& nvrtc_library,
                                    const std::string& fallback) {
  ToolkitHeaders out;
  std::vector<fs::path> candidates;
  for (const char* env : {cuda_path, cuda_home})
    if (env && *env) candidates.push_back(fs::path(env) / "include");
  if (!nvrtc_library.empty()) {
    std::error_code ec;
    const fs::path lib = fs::canonical(nvrtc_library, ec);
    const fs::path folder = (ec ? fs::path(nvrtc_library) : lib).parent_path();
    candidates.push_back(folder.parent_path() / "include");
    candidates.push_back(folder.parent_path().parent_path() / "include");
  }
  if (!fallback.empty()) candidates.emplace_back(fallback);
  for (const fs::path& c : candidates) {
    const std::string text = c.lexically_normal().string();
    bool seen = false;
    for (const std::string& s : out.searched) seen = seen || s == text;
    if (seen) continue;
    out.searched.push_back(text);
    std::error_code ec;
    if (fs::is_regular_file(c / "cuda_fp16.h", ec)) {
      out.dir = text;
      break;
    }
  }
  return out;
}

namespace {
// The loaded NVRTC library's path (dladdr of one of its entry points); empty when NVRTC is not loaded.
std::string nvrtc_library_path() {
  const NvrtcLoad& l = nvrtc();
  if (!l.ok()) return {};
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(l.api->version), &info) == 0 || !info.dli_fname) return {};
  return info.dli_fname;
}
}  // namespace

const ToolkitHeaders& toolkit_headers() {
  static const ToolkitHeaders h =
      find_toolkit_headers(std::getenv("CUDA_PATH"), std::getenv("CUDA_HOME"), nvrtc_library_path());
  return h;
}

std::string explain_missing_header(const std::string& message, const ToolkitHeaders& h) {
  if (!h.dir.empty() || message.find("could not open source file") == std::string::npos) return message;
  std::string where;
  for (const std::string& s : h.searched) where += (where.empty() ? "" : ", ") + s;
  return message + " (blockscope found no CUDA toolkit headers; it looked in " + where +
         ": install the toolkit's headers, e.g. the cuda-nvrtc-dev and cuda-cudart-dev packages, or set CUDA_PATH "
         "to the toolkit's folder)";
}

}  // namespace bs::kernel
