// render_path_test.cpp: the fallback ladder's decisions and the reasons it gives.
#include <gtest/gtest.h>

#include "app/render_path.h"

namespace bs {

TEST(RenderPath, NoCudaMeansCpuWithTheDriverReason) {
  const PathDecision d =
      decide_path(PathRequest::Auto, false, "CUDA driver version is insufficient", "llvmpipe");
  EXPECT_EQ(d.path, RenderPath::Cpu);
  EXPECT_FALSE(d.try_interop);
  EXPECT_NE(d.reason.find("no CUDA device: CUDA driver version is insufficient"), std::string::npos);
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
