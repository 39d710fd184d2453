// nccl_loader.cpp: dlopen/dlsym of libnccl.so.2 (see nccl_loader.h). Loaded once, on first use.
#include <dlfcn.h>

#include <mutex>

#include "core/error.h"
#include "gpu/multigpu/nccl_api.h"
#include "gpu/multigpu/nccl_loader.h"

namespace bs::multigpu {

namespace {
struct Loaded {
  NcclApi api;
  std::string error;  // empty when loaded
};

const Loaded& load() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      loaded.error = std::string("NCCL is not installed (libnccl.so.2 not found: ") + (why ? why : "?") + ")";
      return;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && loaded.error.empty()) loaded.error = std::string("libnccl.so.2 lacks ") + name;
    };
    NcclApi& a = loaded.api;
    sym(a.GetVersion, "ncclGetVersion");
    sym(a.GetErrorString, "ncclGetErrorString");
    sym(a.GetUniqueId, "ncclGetUniqueId");
    sym(a.CommInitRank, "ncclCommInitRank");
    sym(a.CommInitAll, "ncclCommInitAll");
    sym(a.CommDestroy, "ncclCommDestroy");
    sym(a.GroupStart, "ncclGroupStart");
    sym(a.GroupEnd, "ncclGroupEnd");
    sym(a.Send, "ncclSend");
    sym(a.Recv, "ncclRecv");
    sym(a.AllReduce, "ncclAllReduce");
  });
  return loaded;
}
}  // namespace

const NcclApi& nccl() {
  const Loaded& l = load();
  if (!l.error.empty()) throw GpuError(l.error, 0, false);
  return l.api;
}

void nccl_check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  const NcclApi& a = nccl();
  throw GpuError(std::string("NCCL: ") + what + ": " + (a.GetErrorString ? a.GetErrorString(r) : "error") +
                     " (" + std::to_string(static_cast<int>(r)) + ")",
                 static_cast<int>(r), false);
}

std::optional<std::string> nccl_unavailable() {
  const Loaded& l = load();
  if (l.error.empty()) return std::nullopt;
  return l.error;
}

std::string nccl_version() {
  if (nccl_unavailable()) return "";
  int v = 0;
  if (nccl().GetVersion(&v) != ncclSuccess) return "";
  // Since 2.9: major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace bs::multigpu
