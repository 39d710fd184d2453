// nvrtc_loader.cpp: see nvrtc_loader.h.
#include "gpu/kernel/nvrtc_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>

#include "gpu/kernel/nvrtc_api.h"

namespace bs::kernel {

std::string nvrtc_missing_message() {
  return std::string("NVRTC not found (") + k_nvrtc_soname +
         "): install the CUDA toolkit's NVRTC (cuda-nvrtc-13-0)";
}

namespace {

template <class Fn>
bool bind(void* handle, const char* name, Fn& fn, std::string* missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn && missing->empty()) *missing = name;
  return fn != nullptr;
}

}  // namespace

NvrtcLoad load_nvrtc(const std::vector<std::string>& names) {
  NvrtcLoad out;
  void* handle = nullptr;
  for (const std::string& n : names) {
    handle = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      out.library = n;
      break;
    }
  }
  if (!handle) {
    out.error = nvrtc_missing_message();
    return out;
  }
  auto api = std::make_unique<NvrtcApi>();
  api->handle = handle;
  std::string missing;
  bind(handle, "nvrtcGetErrorString", api->get_error_string, &missing);
  bind(handle, "nvrtcVersion", api->version, &missing);
  bind(handle, "nvrtcGetNumSupportedArchs", api->get_num_supported_archs, &missing);
  bind(handle, "nvrtcGetSupportedArchs", api->get_supported_archs, &missing);
  bind(handle, "nvrtcCreateProgram", api->create_program, &missing);
  bind(handle, "nvrtcDestroyProgram", api->destroy_program, &missing);
  bind(handle, "nvrtcCompileProgram", api->compile_program, &missing);
  bind(handle, "nvrtcGetPTXSize", api->get_ptx_size, &missing);
  bind(handle, "nvrtcGetPTX", api->get_ptx, &missing);
  bind(handle, "nvrtcGetCUBINSize", api->get_cubin_size, &missing);
  bind(handle, "nvrtcGetCUBIN", api->get_cubin, &missing);
  bind(handle, "nvrtcGetProgramLogSize", api->get_program_log_size, &missing);
  bind(handle, "nvrtcGetProgramLog", api->get_program_log, &missing);
  bind(handle, "nvrtcAddNameExpression", api->add_name_expression, &missing);
  bind(handle, "nvrtcGetLoweredName", api->get_lowered_name, &missing);
  if (!missing.empty()) {
    out.error =
        out.library + " lacks " + missing + " (an NVRTC older than CUDA 11?): " + nvrtc_missing_message();
    dlclose(handle);
    return out;
  }
  if (api->version(&out.version_major, &out.version_minor) != NVRTC_SUCCESS) {
    out.error = out.library + ": nvrtcVersion failed";
    dlclose(handle);
    return out;
  }
  int n = 0;
  if (api->get_num_supported_archs(&n) == NVRTC_SUCCESS && n > 0) {
    out.supported_archs.resize(static_cast<size_t>(n));
    if (api->get_supported_archs(out.supported_archs.data()) != NVRTC_SUCCESS) out.supported_archs.clear();
  }
  // The entry points live as long as the process (the handle is never closed once loaded).
  out.api = api.release();
  return out;
}

const NvrtcLoad& nvrtc() {
  // BLOCKSCOPE_NVRTC_LIBRARY names the one library to try (tests use a missing name to see that case).
  static const NvrtcLoad loaded = [] {
    const char* env = std::getenv("BLOCKSCOPE_NVRTC_LIBRARY");
    if (env && *env) return load_nvrtc({env});
    return load_nvrtc({k_nvrtc_soname, k_nvrtc_fallback});
  }();
  return loaded;
}

}  // namespace bs::kernel
