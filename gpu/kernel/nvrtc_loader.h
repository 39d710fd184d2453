// nvrtc_loader.h: NVRTC, loaded at run time with dlopen so blockscope starts (and every other lab works)
// where the CUDA toolkit's NVRTC is not installed. Plain C++: no nvrtc.h here (nvrtc_api.h has the entry
// points).
#pragma once

#include <string>
#include <vector>

namespace bs::kernel {

// The sonames tried, in order: CUDA 13's, then the unversioned development link.
inline constexpr const char* k_nvrtc_soname = "libnvrtc.so.13";
inline constexpr const char* k_nvrtc_fallback = "libnvrtc.so";
// What the kernel features say where NVRTC cannot be loaded.
std::string nvrtc_missing_message();

struct NvrtcApi;  // nvrtc_api.h

// The outcome of loading NVRTC: the entry points, or why not.
struct NvrtcLoad {
  const NvrtcApi* api = nullptr;  // null when NVRTC is missing
  std::string error;              // set when api is null
  std::string library;            // the name that loaded, e.g. "libnvrtc.so.13"
  int version_major = 0, version_minor = 0;
  std::vector<int> supported_archs;  // nvrtcGetSupportedArchs: 75, 80, ..., 120
  bool ok() const { return api != nullptr; }
  std::string version() const { return std::to_string(version_major) + "." + std::to_string(version_minor); }
};

// Loads NVRTC once per process (thread-safe); later calls return the same outcome. The library stays loaded
// until the process ends. The environment variable BLOCKSCOPE_NVRTC_LIBRARY, when set, is the only name
// tried.
const NvrtcLoad& nvrtc();
// Loads from the given names (first that loads wins), not cached: tests use it to see the missing case.
NvrtcLoad load_nvrtc(const std::vector<std::string>& names);

}  // namespace bs::kernel
