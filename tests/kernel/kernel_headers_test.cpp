// kernel_headers_test.cpp: the CUDA toolkit's headers for user kernels (toolkit_headers.h): where blockscope
// looks (CUDA_PATH first, then CUDA_HOME, beside the loaded NVRTC, /usr/local/cuda), a missing header's message
// when no folder was found, and a kernel that includes <cuda_fp16.h> compiling where the toolkit is installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/toolkit_headers.h"

namespace bs::kernel {
namespace {

namespace fs = std::filesystem;

fs::path fake_toolkit(const std::string& name) {
  const fs::path root = fs::temp_directory_path() / ("bs_toolkit_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(root / "include");
  fs::create_directories(root / "targets" / "x86_64-linux" / "lib");
  fs::create_directories(root / "targets" / "x86_64-linux" / "include");
  std::ofstream(root / "include" / "cuda_fp16.h") << "// fake\n";
  std::ofstream(root / "targets" / "x86_64-linux" / "include" / "cuda_fp16.h") << "// fake\n";
  std::ofstream(root / "targets" / "x86_64-linux" / "lib" / "libnvrtc.so.13") << "";
  return root;
}

TEST(ToolkitHeaders, CudaPathComesFirstThenTheFolderBesideNvrtc) {
  const fs::path a = fake_toolkit("a"), b = fake_toolkit("b");
  ToolkitHeaders h = find_toolkit_headers(a.c_str(), b.c_str(), "", "/nonexistent");
  EXPECT_EQ(h.dir, (a / "include").string());
  ASSERT_EQ(h.searched.size(), 1u);
  // CUDA_PATH without headers: CUDA_HOME.
  h = find_toolkit_headers("/nonexistent/cuda", b.c_str(), "", "/nonexistent");
  EXPECT_EQ(h.dir, (b / "include").string());
  EXPECT_EQ(h.searched.size(), 2u);
  // Neither: beside the library (the toolkit's targets/<arch>/lib/ -> targets/<arch>/include).
  h = find_toolkit_headers(nullptr, "", (a / "targets" / "x86_64-linux" / "lib" / "libnvrtc.so.13").string(),
                           "/nonexistent");
  EXPECT_EQ(h.dir, (a / "targets" / "x86_64-linux" / "include").string());
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(ToolkitHeaders, WithoutHeadersAMissingIncludeSaysWhereItLookedAndWhatToDo) {
  const ToolkitHeaders none = find_toolkit_headers("/nonexistent/a", nullptr, "/nonexistent/lib64/libnvrtc.so",
                                                   "/nonexistent/cuda/include");
  EXPECT_TRUE(none.dir.empty());
  ASSERT_EQ(none.searched.size(), 4u);  // CUDA_PATH, beside the library (two), the fallback
  const std::string msg = "could not open source file \"cuda_fp16.h\" (no directories in search list)";
  const std::string explained = explain_missing_header(msg, none);
  EXPECT_EQ(explained.rfind(msg, 0), 0u);
  EXPECT_NE(explained.find("no CUDA toolkit headers"), std::string::npos) << explained;
  EXPECT_NE(explained.find("/nonexistent/a/include"), std::string::npos) << explained;
  EXPECT_NE(explained.find("set CUDA_PATH"), std::string::npos) << explained;
  // Other messages, and any message once a folder is found, stay as NVRTC wrote them.
  EXPECT_EQ(explain_missing_header("identifier \"x\" is undefined", none), "identifier \"x\" is undefined");
  ToolkitHeaders found = none;
  found.dir = "/usr/local/cuda/include";
  EXPECT_EQ(explain_missing_header(msg, found), msg);
}

TEST(ToolkitHeaders, AKernelIncludingCudaFp16Compiles) {
  if (!nvrtc().ok()) GTEST_SKIP() << nvrtc().error;
  if (toolkit_headers().dir.empty()) GTEST_SKIP() << "no CUDA toolkit headers here (the message is tested above)";
  CompileRequest r;
  r.source =
      "#include <cuda_fp16.h>\n"
      "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = __half2float(__hadd(__float2half(a[i]), __float2half(b[i])));\n"
      "}\n";
  r.target = Target::Vector;
  const CompileResult c = compile_kernel(r);
  EXPECT_TRUE(c.ok()) << c.message << "\n" << c.log;
  const std::vector<std::string> opts = nvrtc_options(r);
  EXPECT_NE(std::find(opts.begin(), opts.end(), "--include-path=" + toolkit_headers().dir), opts.end());
}

}  // namespace
}  // namespace bs::kernel
