// counters.cpp: collect() with CUPTI's range profiler (CUDA 13: cupti_range_profiler.h,
// cupti_profiler_host.h, cupti_target.h). libcupti is dlopen'ed; only its types come from the headers. The
// CUDA context comes from the runtime (the driver entry point cuCtxGetCurrent is fetched through the runtime,
// never linked).
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <tuple>

#include "gpu/common/device_info.h"
#include "gpu/counters/counters.h"
#include "gpu/counters/flush.h"

namespace bs::counters {

namespace {

// The CUPTI entry points blockscope uses, bound with dlsym.
struct CuptiApi {
  void* handle = nullptr;
#define BS_CUPTI_FN(name) decltype(&::name) name = nullptr;
#define BS_CUPTI_FNS(X)                           \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)
  BS_CUPTI_FNS(BS_CUPTI_FN)
};

constexpr const char* k_sonames[] = {"libcupti.so.13", "libcupti.so"};

std::string missing_message(const std::string& tried) {
  return "CUPTI not found (" + tried +
         "): hardware counters need the CUDA toolkit's CUPTI (cuda-cupti-13-0; libcupti.so.13 in "
         "/usr/local/cuda/lib64 or /usr/local/cuda/extras/CUPTI/lib64, on LD_LIBRARY_PATH). The model values "
         "stay, labelled \"model\".";
}

// Loads from `names`; nullptr and `why` when none loads or an entry point is missing.
CuptiApi* load(const std::vector<std::string>& names, std::string* why) {
  void* handle = nullptr;
  std::string tried, loaded;
  for (const auto& n : names) {
    tried += (tried.empty() ? "" : ", ") + n;
    handle = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      loaded = n;
      break;
    }
  }
  if (!handle) {
    if (why) *why = missing_message(tried);
    return nullptr;
  }
  auto* api = new CuptiApi;
  api->handle = handle;
  std::string missing;
#define BS_CUPTI_BIND(name)                                                \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(handle, #name)); \
  if (!api->name && missing.empty()) missing = #name;
  BS_CUPTI_FNS(BS_CUPTI_BIND)
  if (!missing.empty()) {
    if (why)
      *why = loaded + " lacks " + missing +
             " (a CUPTI older than CUDA 12.6 has no range profiler): " + missing_message(loaded);
    dlclose(handle);
    delete api;
    return nullptr;
  }
  return api;  // kept for the process's life
}

std::mutex g_mutex;  // one profiling session at a time; also guards the cache below
CuptiApi* g_api = nullptr;
std::string g_api_error;
std::string g_api_key;  // the BLOCKSCOPE_CUPTI_LIBRARY value the cache was made with
bool g_api_tried = false;

const CuptiApi* cupti_locked(std::string* why) {
  const char* env = std::getenv("BLOCKSCOPE_CUPTI_LIBRARY");
  const std::string key = env ? env : "";
  if (!g_api_tried || key != g_api_key) {
    std::vector<std::string> names;
    if (env && *env)
      names.push_back(env);
    else
      names.assign(std::begin(k_sonames), std::end(k_sonames));
    g_api_error.clear();
    g_api = load(names, &g_api_error);  // a previous successful load stays mapped (harmless)
    g_api_key = key;
    g_api_tried = true;
  }
  if (!g_api && why) *why = g_api_error;
  return g_api;
}

struct Failure {
  CUptiResult code;
  const char* step;
};

// Checks a CUPTI call; throws Failure (caught in collect) on error.
void check(CUptiResult r, const char* step) {
  if (r != CUPTI_SUCCESS) throw Failure{r, step};
}

template <class P>
P params(size_t size) {
  P p{};
  p.structSize = size;
  return p;
}
#define BS_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// A host object (metric configuration and evaluation) for `chip`, freed on scope exit.
struct HostObject {
  const CuptiApi& api;
  CUpti_Profiler_Host_Object* obj = nullptr;
  HostObject(const CuptiApi& a, const char* chip, const std::vector<uint8_t>& avail) : api(a) {
    auto p = BS_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail.empty() ? nullptr : avail.data();
    check(api.cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    obj = p.pHostObject;
  }
  ~HostObject() {
    auto p = BS_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = obj;
    api.cuptiProfilerHostDeinitialize(&p);
  }
  CUptiResult add(const std::vector<const char*>& names) {
    auto p = BS_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = obj;
    p.ppMetricNames = const_cast<const char**>(names.data());
    p.numMetrics = names.size();
    return api.cuptiProfilerHostConfigAddMetrics(&p);
  }
};

std::string result_text(const CuptiApi& api, CUptiResult r) {
  const char* s = nullptr;
  if (api.cuptiGetResultString && api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
  return "";
}

using CtxGetCurrent = CUresult (*)(CUcontext*);

// The device to profile; false with `out`'s status and message when there is none or it is too old for the
// range profiler.
bool profiled_device(Result& out, int* device, DeviceInfo* dev) {
  if (cudaGetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    *device = 0;
  }
  *dev = query_device(*device);
  if (!dev->available) {
    out.status = Status::NoDevice;
    out.message = no_device_message(dev->reason);
    return false;
  }
  if (dev->cc_major * 10 + dev->cc_minor < 75) {
    out.status = Status::Unsupported;
    out.message = dev->name + " (compute capability " + dev->compute_capability() +
                  ") is older than CUPTI's range profiler supports (7.5 and newer). The model values stay.";
    return false;
  }
  return true;
}

// The runtime's primary context of `device`, made current on this thread; false with `out`'s status and
// message when that fails.
bool current_context(Result& out, int device, CUcontext* ctx) {
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    out.status = Status::Failed;
    out.message =
        std::string("could not make the CUDA context current: ") + cudaGetErrorString(cudaGetLastError());
    return false;
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      !fn || reinterpret_cast<CtxGetCurrent>(fn)(ctx) != CUDA_SUCCESS || !*ctx) {
    cudaGetLastError();
    out.status = Status::Failed;
    out.message = "could not read the current CUDA context (cuCtxGetCurrent)";
    return false;
  }
  return true;
}

// The metrics this chip offers: each is tried alone on a scratch host object (a name the chip lacks would
// fail the whole configuration); the others go to out.missing.
std::vector<const char*> usable_metrics(const CuptiApi& api, const std::vector<std::string>& all,
                                        const std::vector<uint8_t>& avail, Result& out) {
  std::vector<const char*> names;
  auto scratch = std::make_unique<HostObject>(api, out.chip.c_str(), avail);
  for (const auto& m : all) {
    if (scratch->add({m.c_str()}) == CUPTI_SUCCESS) {
      names.push_back(m.c_str());
    } else {
      out.missing.push_back(m);
      scratch = std::make_unique<HostObject>(api, out.chip.c_str(), avail);
      for (const char* n : names)
        check(scratch->add({n}), "cuptiProfilerHostConfigAddMetrics");
    }
  }
  return names;
}

// The configuration image of `host`'s metrics; the passes it needs go to out.passes.
std::vector<uint8_t> config_image(const CuptiApi& api, const HostObject& host, Result& out) {
  auto cs = BS_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  cs.pHostObject = host.obj;
  check(api.cuptiProfilerHostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize");
  std::vector<uint8_t> config(cs.configImageSize);
  auto ci = BS_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  ci.pHostObject = host.obj;
  ci.configImageSize = config.size();
  ci.pConfigImage = config.data();
  check(api.cuptiProfilerHostGetConfigImage(&ci), "cuptiProfilerHostGetConfigImage");
  auto np = BS_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  np.configImageSize = config.size();
  np.pConfigImage = config.data();
  if (api.cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
    out.passes = static_cast<int>(np.numOfPasses);
  return config;
}

constexpr size_t k_max_ranges = 64;  // kernels per launch callable

// An initialised counter-data image for `names`, room for k_max_ranges kernels.
std::vector<uint8_t> counter_data_image(const CuptiApi& api, CUpti_RangeProfiler_Object* range,
                                        std::vector<const char*>& names) {
  auto ds = BS_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  ds.pRangeProfilerObject = range;
  ds.pMetricNames = names.data();
  ds.numMetrics = names.size();
  ds.maxNumOfRanges = k_max_ranges;
  ds.maxNumRangeTreeNodes = k_max_ranges;
  check(api.cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<uint8_t> data(ds.counterDataSize);
  auto di = BS_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  di.pRangeProfilerObject = range;
  di.counterDataSize = data.size();
  di.pCounterData = data.data();
  check(api.cuptiRangeProfilerCounterDataImageInitialize(&di),
        "cuptiRangeProfilerCounterDataImageInitialize");
  return data;
}

// User replay: blockscope runs the launch once per pass, from a cold L2 each time (as Nsight Compute's
// kernel replay with --cache-control all does); CUPTI's own kernel replay keeps the cache warm between its
// passes, so the DRAM counters would miss the traffic of a cold start. Each pass re-runs `launch`: the labs'
// launches are repeatable (same inputs, same access pattern).
void set_replay_config(const CuptiApi& api, CUpti_RangeProfiler_Object* range, std::vector<uint8_t>& config,
                       std::vector<uint8_t>& data, Result& out) {
  auto sc = BS_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  sc.pRangeProfilerObject = range;
  sc.configSize = config.size();
  sc.pConfig = config.data();
  sc.counterDataImageSize = data.size();
  sc.pCounterDataImage = data.data();
  sc.range = CUPTI_AutoRange;  // one range per kernel
  // BLOCKSCOPE_COUNTERS_REPLAY=kernel: CUPTI's kernel replay instead (diagnostics, comparison).
  const char* replay_env = std::getenv("BLOCKSCOPE_COUNTERS_REPLAY");
  const bool force_kernel_replay = replay_env && std::string(replay_env) == "kernel";
  sc.replayMode = force_kernel_replay ? CUPTI_KernelReplay : CUPTI_UserReplay;
  sc.maxRangesPerPass = k_max_ranges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  if (force_kernel_replay) {
    check(api.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
    out.note = "CUPTI kernel replay (BLOCKSCOPE_COUNTERS_REPLAY=kernel): the L2 stays warm between passes";
  } else if (api.cuptiRangeProfilerSetConfig(&sc) != CUPTI_SUCCESS) {
    // Fall back to CUPTI's kernel replay (it restores memory itself; the cache stays warm between passes).
    sc.replayMode = CUPTI_KernelReplay;
    check(api.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
    out.note =
        "CUPTI kernel replay: the L2 stays warm between passes, so DRAM bytes can be below a cold run's";
  }
}

// Runs `launch` once per pass, each from a flushed L2, until CUPTI has every pass. An exception from the
// launch goes to `launch_error` (rethrown by collect once the profiler is shut down); a kernel error or too
// many passes set out's status and throw Failure.
void replay_passes(const CuptiApi& api, CUpti_RangeProfiler_Object* range, const Launch& launch,
                   int64_t l2_bytes, Result& out, std::exception_ptr& launch_error) {
  detail::L2Flusher flusher(l2_bytes > 0 ? static_cast<size_t>(l2_bytes) : 0);
  cudaError_t sync = cudaSuccess;
  constexpr int k_max_passes = 64;
  bool all_submitted = false;
  for (int pass = 0; pass < k_max_passes && !all_submitted; ++pass) {
    flusher.flush();
    auto st = BS_PARAMS(CUpti_RangeProfiler_Start_Params);
    st.pRangeProfilerObject = range;
    check(api.cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
    try {
      launch();
    } catch (...) {
      launch_error = std::current_exception();
    }
    sync = cudaDeviceSynchronize();
    auto sp = BS_PARAMS(CUpti_RangeProfiler_Stop_Params);
    sp.pRangeProfilerObject = range;
    check(api.cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
    all_submitted = sp.isAllPassSubmitted != 0;
    if (launch_error || sync != cudaSuccess) break;
  }
  if (launch_error) throw Failure{CUPTI_SUCCESS, nullptr};
  if (sync != cudaSuccess) {
    out.status = Status::Failed;
    out.message = std::string("the kernel failed while counters were collected: ") + cudaGetErrorString(sync);
    throw Failure{CUPTI_SUCCESS, nullptr};
  }
  if (!all_submitted) {
    out.status = Status::Failed;
    out.message = "CUPTI asked for more than " + std::to_string(k_max_passes) + " passes";
    throw Failure{CUPTI_SUCCESS, nullptr};
  }
}

// The decoded counter data evaluated to metric values, one Raw per kernel (range).
std::vector<Raw> evaluate_ranges(const CuptiApi& api, CUpti_RangeProfiler_Object* range,
                                 const HostObject& host, std::vector<uint8_t>& data,
                                 std::vector<const char*>& names) {
  auto dd = BS_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  dd.pRangeProfilerObject = range;
  check(api.cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
  auto info = BS_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(api.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  std::vector<Raw> kernels;
  std::vector<double> values(names.size());
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto ev = BS_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    ev.pHostObject = host.obj;
    ev.pCounterDataImage = data.data();
    ev.counterDataImageSize = data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = names.data();
    ev.numMetrics = names.size();
    ev.pMetricValues = values.data();
    check(api.cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
    Raw raw;
    for (size_t i = 0; i < names.size(); ++i)
      raw.emplace_back(names[i], values[i]);
    kernels.push_back(std::move(raw));
  }
  return kernels;
}

Result collect_locked(const Launch& launch) {
  Result out;
  std::string why;
  const CuptiApi* api_ptr = cupti_locked(&why);
  if (!api_ptr) {
    out.status = Status::NoLibrary;
    out.message = why;
    return out;
  }
  const CuptiApi& api = *api_ptr;
  int device = 0;
  DeviceInfo dev;
  CUcontext ctx = nullptr;
  if (!profiled_device(out, &device, &dev)) return out;
  const auto t0 = std::chrono::steady_clock::now();
  if (!current_context(out, device, &ctx)) return out;

  bool profiler_init = false;
  CUpti_RangeProfiler_Object* range = nullptr;
  std::exception_ptr launch_error;
  try {
    auto init = BS_PARAMS(CUpti_Profiler_Initialize_Params);
    check(api.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    profiler_init = true;

    auto chip = BS_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = static_cast<size_t>(device);
    check(api.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    out.chip = chip.pChipName ? chip.pChipName : "";

    auto en = BS_PARAMS(CUpti_RangeProfiler_Enable_Params);
    en.ctx = ctx;
    check(api.cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
    range = en.pRangeProfilerObject;

    auto av = BS_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    av.ctx = ctx;
    check(api.cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");
    std::vector<uint8_t> avail(av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = avail.data();
    check(api.cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");

    const std::vector<std::string> all = metric_names();
    std::vector<const char*> names = usable_metrics(api, all, avail, out);
    if (names.empty()) {
      out.status = Status::Unsupported;
      out.message = "CUPTI offers none of blockscope's counters on " + out.chip + ". The model values stay.";
      throw Failure{CUPTI_SUCCESS, nullptr};
    }
    HostObject host(api, out.chip.c_str(), avail);
    check(host.add(names), "cuptiProfilerHostConfigAddMetrics");
    std::vector<uint8_t> config = config_image(api, host, out);
    std::vector<uint8_t> data = counter_data_image(api, range, names);
    set_replay_config(api, range, config, data, out);
    replay_passes(api, range, launch, dev.l2_bytes, out, launch_error);
    std::vector<Raw> kernels = evaluate_ranges(api, range, host, data, names);
    if (kernels.empty()) {
      out.status = Status::Failed;
      out.message = "no kernel ran while counters were collected (the launch started no kernel)";
    } else {
      out.values = derive(kernels);
      out.raw = kernels;
      out.status = Status::Ok;
    }
  } catch (const Failure& f) {
    if (f.step)
      std::tie(out.status, out.message) = explain_cupti_error(f.code, f.step, result_text(api, f.code));
  }
  if (range) {
    auto dp = BS_PARAMS(CUpti_RangeProfiler_Disable_Params);
    dp.pRangeProfilerObject = range;
    api.cuptiRangeProfilerDisable(&dp);
  }
  if (profiler_init) {
    auto de = BS_PARAMS(CUpti_Profiler_DeInitialize_Params);
    api.cuptiProfilerDeInitialize(&de);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (launch_error) std::rethrow_exception(launch_error);
  return out;
}

}  // namespace

bool try_load_cupti(const std::vector<std::string>& names, std::string* why) {
  CuptiApi* api = load(names, why);
  if (!api) return false;
  dlclose(api->handle);
  delete api;
  return true;
}

bool cupti_available(std::string* why) {
  std::lock_guard lock(g_mutex);
  return cupti_locked(why) != nullptr;
}

Result collect(const Launch& launch) {
  std::lock_guard lock(g_mutex);
  return collect_locked(launch);
}

}  // namespace bs::counters
