// render_path_test.cpp: the fallback ladder's decisions and the reasons it gives, and why no CUDA device is
// usable (no driver installed vs a driver older than the runtime).
#include <gtest/gtest.h>

#include "app/render_path.h"
#include "gpu/common/device_info.h"

namespace bs {

TEST(RenderPath, NoCudaMeansCpuWithTheDriverReason) {
  const std::string reason = "no NVIDIA driver found (libcuda.so.1 cannot be loaded): running on the CPU";
  const PathDecision d = decide_path(PathRequest::Auto, false, reason, "llvmpipe");
  EXPECT_EQ(d.path, RenderPath::Cpu);
  EXPECT_FALSE(d.try_interop);
  EXPECT_NE(d.reason.find("no CUDA device: " + reason), std::string::npos) << d.reason;
}

// cudaErrorInsufficientDriver means two things; the reason must say which, since only one is fixed by
// updating a driver.
TEST(DeviceReason, NoDriverInstalledIsNotCalledAnOldDriver) {
  NoDeviceFacts f;
  f.error = 35;  // cudaErrorInsufficientDriver
  f.error_name = "cudaErrorInsufficientDriver";
  f.error_text = "CUDA driver version is insufficient for CUDA runtime version";
  f.runtime_version = 13000;
  const std::string r = no_device_reason(f);
  EXPECT_NE(r.find("no NVIDIA driver found"), std::string::npos) << r;
  EXPECT_NE(r.find("running on the CPU"), std::string::npos) << r;
  EXPECT_EQ(r.find("insufficient"), std::string::npos) << r;
}

TEST(DeviceReason, AnOldDriverNamesBothVersions) {
  NoDeviceFacts f;
  f.error = 35;
  f.error_name = "cudaErrorInsufficientDriver";
  f.error_text = "CUDA driver version is insufficient for CUDA runtime version";
  f.driver_library_loads = true;
  f.driver_proc_present = true;
  f.driver_version = 12040;
  f.runtime_version = 13000;
  const std::string r = no_device_reason(f);
  EXPECT_NE(r.find("CUDA 12.4"), std::string::npos) << r;
  EXPECT_NE(r.find("CUDA 13.0 runtime"), std::string::npos) << r;
  EXPECT_NE(r.find("update the driver"), std::string::npos) << r;
}

TEST(DeviceReason, OtherErrorsKeepTheRuntimeText) {
  NoDeviceFacts f;
  f.error = 100;  // cudaErrorNoDevice
  f.error_name = "cudaErrorNoDevice";
  f.error_text = "no CUDA-capable device is detected";
  f.driver_library_loads = true;
  EXPECT_EQ(no_device_reason(f), "no CUDA-capable device is detected (cudaErrorNoDevice)");
}

TEST(DeviceReason, ThisMachineWithoutADriverSaysSo) {
  const DeviceInfo d = query_device();
  if (d.available) GTEST_SKIP() << "a CUDA device is present: " << d.name;
  if (d.driver_version != 0) GTEST_SKIP() << "a driver is installed: " << d.reason;
  // Without a driver the reason must not ask the user to upgrade one (this machine: no libcuda.so.1 at all).
  EXPECT_EQ(d.reason.find("insufficient"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("running on the CPU"), std::string::npos) << d.reason;
  EXPECT_EQ(built_cuda_runtime_version(), d.runtime_version);
}

TEST(RenderPath, ForcedPathsAreHonouredAndSaySo) {
  EXPECT_EQ(decide_path(PathRequest::Cpu, true, "", "NVIDIA H100").path, RenderPath::Cpu);
  const PathDecision h = decide_path(PathRequest::Host, true, "", "NVIDIA H100");
  EXPECT_EQ(h.path, RenderPath::HostCopy);
  EXPECT_NE(h.reason.find("--render-path host"), std::string::npos);
  const PathDecision i = decide_path(PathRequest::Interop, false, "no driver", "llvmpipe");
  EXPECT_EQ(i.path, RenderPath::Cpu);
  EXPECT_NE(i.reason.find("--render-path interop needs CUDA"), std::string::npos);
}

TEST(RenderPath, AutoTriesInteropThenStepsDownWithTheRenderer) {
  const PathDecision d = decide_path(PathRequest::Auto, true, "", "llvmpipe (LLVM 15)");
  EXPECT_TRUE(d.try_interop);
  const PathDecision ok = settle_interop(d, true, "", "NVIDIA H100", false);
  EXPECT_EQ(ok.path, RenderPath::Interop);
  const PathDecision failed = settle_interop(d, false, "cudaErrorUnknown", "llvmpipe (LLVM 15)", true);
  EXPECT_EQ(failed.path, RenderPath::HostCopy);
  EXPECT_NE(failed.reason.find("GL renderer is llvmpipe (LLVM 15), not the CUDA device"), std::string::npos)
      << failed.reason;
  const PathDecision other = settle_interop(d, false, "cudaErrorOperatingSystem", "AMD Radeon", false);
  EXPECT_EQ(other.path, RenderPath::HostCopy);
  EXPECT_NE(other.reason.find("cudaErrorOperatingSystem"), std::string::npos);
}

TEST(RenderPath, ParseRequest) {
  EXPECT_EQ(parse_path_request("interop"), PathRequest::Interop);
  EXPECT_FALSE(parse_path_request("gpu"));
}

}  // namespace bs
