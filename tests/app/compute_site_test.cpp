// compute_site_test.cpp: the labs' "what runs where" line (app/shell/compute_site.h): GPU rows only where a
// device is usable and the path in force is not the CPU one, and otherwise a reason a student can act on.
#include "app/shell/compute_site.h"

#include <gtest/gtest.h>

#include "app/lab.h"

namespace bs {
namespace {

LabEnv env_with(bool device, RenderPath path, const std::string& why) {
  LabEnv env;
  env.device.available = device;
  env.device.name = "Test GPU";
  env.device.reason = device ? "" : "no NVIDIA driver found";
  env.path.path = path;
  env.path.reason = why;
  return env;
}

TEST(ComputeSite, GpuRowsNameTheDeviceAndTheCpuThreads) {
  const ComputeSite s = compute_site(env_with(true, RenderPath::HostCopy, ""), 7, "unused");
  EXPECT_TRUE(s.gpu);
  EXPECT_EQ(s.gpu_missing, "");
  EXPECT_EQ(s.label, "GPU rows: Test GPU; CPU rows: this machine's CPU (7 threads)");
}

TEST(ComputeSite, WithoutADeviceSaysWhyAndWhatStillWorks) {
  const ComputeSite s =
      compute_site(env_with(false, RenderPath::Cpu, "no device"), 3, "the CPU rows work here.");
  EXPECT_FALSE(s.gpu);
  EXPECT_EQ(s.gpu_missing, "no CUDA device: no NVIDIA driver found");
  EXPECT_EQ(s.label, "CPU only (3 threads): the CPU rows work here.");
}

TEST(ComputeSite, OnTheCpuPathWithADeviceNamesThePathsReason) {
  const ComputeSite s = compute_site(env_with(true, RenderPath::Cpu, "--cpu was given"), 2, "x");
  EXPECT_FALSE(s.gpu);
  EXPECT_EQ(s.gpu_missing, "the app runs on the CPU path (--cpu was given)");
}

}  // namespace
}  // namespace bs
