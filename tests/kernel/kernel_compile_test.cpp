// kernel_compile_test.cpp: real NVRTC compiles (NVRTC needs no GPU, so these run on CI): templates against
// their contracts, broken sources (syntax error, undeclared identifier, wrong signature, missing kernel, a
// __device__ function in place of a kernel), warnings, options, architectures, resources and PTX line info.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/ptx_lines.h"

namespace bs::kernel {
namespace {

#define REQUIRE_NVRTC()                                                             \
  do {                                                                              \
    if (!nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc().error; \
  } while (0)

CompileResult compile(const std::string& src, std::optional<Target> target, CompileOptions opt = {},
                      int arch = 90) {
  CompileRequest r;
  r.source = src;
  r.target = target;
  r.options = std::move(opt);
  r.arch = arch;
  return compile_kernel(r);
}

std::string all_messages(const CompileResult& r) {
  std::string s = r.message + "\n";
  for (const Diagnostic& d : r.diagnostics)
    s += format_diagnostic(d, "k.cu") + "\n";
  return s + "--- log:\n" + r.log;
}

const Diagnostic* first_error(const CompileResult& r) {
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Severity::Error) return &d;
  return nullptr;
}

TEST(Nvrtc, LoadsVersion13WithHopperSupport) {
  REQUIRE_NVRTC();
  EXPECT_EQ(nvrtc().version_major, 13);
  EXPECT_NE(std::find(nvrtc().supported_archs.begin(), nvrtc().supported_archs.end(), 90),
            nvrtc().supported_archs.end());
}

TEST(Nvrtc, MissingLibraryIsAClearMessageNotACrash) {
  const NvrtcLoad l = load_nvrtc({"libnvrtc-that-does-not-exist.so.13"});
  EXPECT_FALSE(l.ok());
  EXPECT_EQ(l.error, "NVRTC not found (libnvrtc.so.13): install the CUDA toolkit's NVRTC (cuda-nvrtc-13-0)");
}

TEST(Compile, EveryTemplateCompilesAndPassesItsContract) {
  REQUIRE_NVRTC();
  for (const KernelTemplate& t : kernel_templates()) {
    SCOPED_TRACE(std::string(t.id));
    const std::string src(template_source(t));
    ASSERT_FALSE(src.empty()) << "template not embedded: " << t.file;
    const CompileResult r = compile(src, t.target);
    ASSERT_EQ(r.status, CompileStatus::Ok) << all_messages(r);
    EXPECT_EQ(count_of_severity(r.diagnostics, Severity::Warning), 0) << all_messages(r);
    EXPECT_FALSE(r.cubin.empty());
    EXPECT_EQ(r.cubin.substr(0, 4), std::string("\x7f"
                                                "ELF"));
    EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
    EXPECT_EQ(r.kernel_name, contract(t.target).kernel_name);
    EXPECT_EQ(r.lowered_name, r.kernel_name);  // extern "C" in every template
    ASSERT_NE(r.main_kernel(), nullptr);
    EXPECT_GT(r.main_kernel()->registers, 0);
    EXPECT_EQ(r.main_kernel()->spill_store_bytes, 0);
    EXPECT_GT(r.nvrtc_ms, 0.0);
    const PtxLineMap map = map_ptx_lines(r.ptx, k_user_file);
    EXPECT_TRUE(map.has_line_info);
  }
}

TEST(Compile, TiledMatmulReportsItsSharedMemoryAndLaunchBounds) {
  REQUIRE_NVRTC();
  const CompileResult r =
      compile(std::string(template_source(*find_template("matmul-tiled"))), Target::Matmul);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  const KernelResources* k = r.main_kernel();
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shared_static_bytes, 2 * 16 * 16 * 4);  // two 16 x 16 float tiles
  EXPECT_EQ(k->barriers, 1);
  EXPECT_EQ(k->launch_bounds_threads, 256);
  EXPECT_EQ(k->max_threads_per_block, 256);
}

TEST(Compile, KernelWithoutExternCGetsItsMangledName) {
  REQUIRE_NVRTC();
  const CompileResult r = compile(
      "__global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] - b[i];\n}\n",
      Target::Vector);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  EXPECT_EQ(r.lowered_name, "_Z9vector_opPKfS0_Pfx");
  EXPECT_NE(r.main_kernel(), nullptr);
}

TEST(Compile, SyntaxErrorIsOnTheUsersLine) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x\n"
      "  if (i < n) c[i] = a[i] + b[i];\n"
      "}\n";
  const CompileResult r = compile(src, Target::Vector);
  EXPECT_EQ(r.status, CompileStatus::CompileError) << all_messages(r);
  const Diagnostic* e = first_error(r);
  ASSERT_NE(e, nullptr) << all_messages(r);
  EXPECT_EQ(e->origin, Origin::User);
  EXPECT_EQ(e->line, 3) << all_messages(r);  // NVRTC names the line where the ';' is found missing
  EXPECT_EQ(e->message, "expected a \";\"");
  EXPECT_TRUE(r.cubin.empty());
  // The contract check's messages are not shown on top of a real error.
  for (const Diagnostic& d : r.diagnostics)
    EXPECT_EQ(d.message.find("contract"), std::string::npos) << all_messages(r);
}

TEST(Compile, UndeclaredIdentifierHasLineAndColumn) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + scale * b[i];\n"
      "}\n";
  const CompileResult r = compile(src, Target::Vector);
  EXPECT_EQ(r.status, CompileStatus::CompileError);
  const Diagnostic* e = first_error(r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->line, 3);
  EXPECT_EQ(e->column, 28) << all_messages(r);  // the 's' of scale
  EXPECT_EQ(e->message, "identifier \"scale\" is undefined");
  EXPECT_EQ(e->context_first, 2);
  ASSERT_EQ(e->context.size(), 3u);
  EXPECT_EQ(e->context[1], "  if (i < n) c[i] = a[i] + scale * b[i];");
}

TEST(Compile, WrongSignatureIsOneClearErrorOnTheKernelsLine) {
  REQUIRE_NVRTC();
  const std::string src =
      "// a heat step that forgot the boundary arguments\n"
      "extern \"C\" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r) {\n"
      "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (x < nx && y < ny) out[y * nx + x] = in[y * nx + x] * r;\n"
      "}\n";
  const CompileResult r = compile(src, Target::Heat);
  EXPECT_EQ(r.status, CompileStatus::SignatureError) << all_messages(r);
  ASSERT_EQ(count_of_severity(r.diagnostics, Severity::Error), 1) << all_messages(r);
  const Diagnostic& d = r.diagnostics.front();
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.origin, Origin::User);
  EXPECT_NE(
      d.message.find("heat_step has the wrong signature; the heat contract expects: extern \"C\" __global__ "
                     "void heat_step(const float* in, float* out, int nx, int ny, float r, float "
                     "boundary_temp, int fixed_boundary)"),
      std::string::npos)
      << d.message;
  EXPECT_TRUE(r.cubin.empty());
}

TEST(Compile, MissingKernelSaysWhichNameIsExpected) {
  REQUIRE_NVRTC();
  const CompileResult r = compile(
      "extern \"C\" __global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {}\n",
      Target::Matmul);
  EXPECT_EQ(r.status, CompileStatus::SignatureError) << all_messages(r);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all_messages(r);
  EXPECT_EQ(r.diagnostics[0].line, 0);
  EXPECT_EQ(r.diagnostics[0].message.rfind("no kernel named matmul; the matmul contract expects:", 0), 0u)
      << r.diagnostics[0].message;
}

TEST(Compile, DeviceFunctionInPlaceOfAKernelIsRefused) {
  REQUIRE_NVRTC();
  const CompileResult r = compile(
      "__device__ void vector_op(const float* a, const float* b, float* c, long long n) { c[0] = a[0] + "
      "b[n]; }\n",
      Target::Vector);
  EXPECT_EQ(r.status, CompileStatus::SignatureError) << all_messages(r);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all_messages(r);
  EXPECT_EQ(r.diagnostics.front().line, 1);
  EXPECT_EQ(r.diagnostics.front().message.rfind(
                "vector_op is not a __global__ kernel; the vector contract expects:", 0),
            0u)
      << all_messages(r);
}

TEST(Compile, UnusedVariableIsAWarningAndStillCompiles) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  float unused_sum;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n"
      "}\n";
  const CompileResult r = compile(src, Target::Vector);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all_messages(r);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Severity::Warning);
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.column, 9);
  EXPECT_EQ(d.code, "177-D");
  EXPECT_EQ(d.message, "variable \"unused_sum\" was declared but never referenced");
  EXPECT_FALSE(r.cubin.empty());
}

TEST(Compile, UnsupportedArchitectureIsRefusedBeforeNvrtcRuns) {
  REQUIRE_NVRTC();
  const long long calls = nvrtc_compile_calls();
  const CompileResult r = compile("extern \"C\" __global__ void k() {}\n", std::nullopt, {}, 61);
  EXPECT_EQ(r.status, CompileStatus::InvalidRequest);
  EXPECT_NE(r.message.find("sm_61 is not supported by NVRTC 13"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("sm_90"), std::string::npos);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
}

TEST(Compile, OtherArchitectureTargetsIt) {
  REQUIRE_NVRTC();
  const CompileResult r =
      compile(std::string(template_source(*find_template("vector"))), Target::Vector, {}, 80);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  EXPECT_NE(r.ptx.find(".target sm_80"), std::string::npos);
  EXPECT_EQ(r.arch, 80);
}

TEST(Compile, BadOptionsAreRefused) {
  CompileRequest r;
  r.source = "extern \"C\" __global__ void k() {}\n";
  r.options.maxrregcount = 8;
  EXPECT_TRUE(check_request(r, {90}, "13.0"));
  r.options.maxrregcount = 0;
  r.options.defines = {{"1X", ""}};
  EXPECT_TRUE(check_request(r, {90}, "13.0"));
  r.options.defines = {{"SCALE", "3.0f"}};
  EXPECT_FALSE(check_request(r, {90}, "13.0"));
  EXPECT_EQ(parse_arch("sm_90"), 90);
  EXPECT_EQ(parse_arch("sm_120"), 120);
  EXPECT_FALSE(parse_arch("90"));
  EXPECT_FALSE(parse_arch("compute_90"));
  EXPECT_FALSE(parse_arch("sm_9x"));
}

TEST(Compile, DefinesReachTheSource) {
  REQUIRE_NVRTC();
  const std::string src = "extern \"C\" __global__ void k(float* p) { p[0] = SCALE; }\n";
  EXPECT_EQ(compile(src, std::nullopt).status, CompileStatus::CompileError);
  CompileOptions opt;
  opt.defines = {{"SCALE", "3.0f"}};
  const CompileResult r = compile(src, std::nullopt, opt);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  // 3.0f: as a float constant or as the bits of one (1077936128 = 0x40400000).
  EXPECT_TRUE(r.ptx.find("0f40400000") != std::string::npos || r.ptx.find("1077936128") != std::string::npos)
      << r.ptx;
}

TEST(Compile, MaxRegisterCountLimitsRegistersAndSpills) {
  REQUIRE_NVRTC();
  // 40 independent accumulators: more live values than 32 registers hold.
  std::string src = "extern \"C\" __global__ void k(const float* a, float* out, int n) {\n  float s[40];\n";
  src += "  for (int j = 0; j < 40; ++j) s[j] = a[j];\n";
  src +=
      "  for (int i = 0; i < n; ++i)\n#pragma unroll\n    for (int j = 0; j < 40; ++j) s[j] = s[j] * a[i + "
      "j] + s[(j + 1) % 40];\n";
  src +=
      "  float t = 0;\n#pragma unroll\n  for (int j = 0; j < 40; ++j) t += s[j];\n  out[threadIdx.x] = "
      "t;\n}\n";
  const CompileResult free_r = compile(src, std::nullopt);
  ASSERT_TRUE(free_r.ok()) << all_messages(free_r);
  ASSERT_NE(free_r.main_kernel(), nullptr);
  EXPECT_GT(free_r.main_kernel()->registers, 40);
  CompileOptions opt;
  opt.maxrregcount = 32;
  const CompileResult r = compile(src, std::nullopt, opt);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  ASSERT_NE(r.main_kernel(), nullptr);
  EXPECT_LE(r.main_kernel()->registers, 32);
  EXPECT_GT(r.main_kernel()->spill_store_bytes, 0) << r.log;
  EXPECT_GT(r.main_kernel()->stack_frame_bytes, 0);
}

TEST(Compile, FastMathChangesTheCode) {
  REQUIRE_NVRTC();
  const std::string src =
      "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = p[threadIdx.x] / p[0]; }\n";
  CompileOptions fast;
  fast.fast_math = true;
  const CompileResult precise = compile(src, std::nullopt), approx = compile(src, std::nullopt, fast);
  ASSERT_TRUE(precise.ok() && approx.ok());
  EXPECT_NE(precise.ptx.find("div.rn.f32"), std::string::npos);
  EXPECT_EQ(approx.ptx.find("div.rn.f32"), std::string::npos);
}

TEST(Compile, WithoutLineInfoThePtxHasNoSourceLines) {
  REQUIRE_NVRTC();
  CompileOptions opt;
  opt.lineinfo = false;
  const CompileResult r = compile(std::string(template_source(*find_template("heat"))), Target::Heat, opt);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  EXPECT_FALSE(map_ptx_lines(r.ptx, k_user_file).has_line_info);
}

TEST(Compile, DeviceDebugCompilesWithoutWarningsAndKeepsLines) {
  REQUIRE_NVRTC();
  CompileOptions opt;
  opt.device_debug = true;  // lineinfo stays on in the request: -G replaces it
  const CompileResult r = compile(std::string(template_source(*find_template("heat"))), Target::Heat, opt);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  EXPECT_TRUE(r.diagnostics.empty()) << all_messages(r);
  EXPECT_TRUE(map_ptx_lines(r.ptx, k_user_file).has_line_info);
}

TEST(Compile, PtxLinesPointAtTheUsersSource) {
  REQUIRE_NVRTC();
  const std::string src = std::string(template_source(*find_template("matmul")));
  const CompileResult r = compile(src, Target::Matmul);
  ASSERT_TRUE(r.ok()) << all_messages(r);
  const PtxLineMap map = map_ptx_lines(r.ptx, k_user_file);
  ASSERT_TRUE(map.has_line_info);
  // The fused multiply-add of the dot product comes from the line with "acc +=".
  const int acc_line = [&] {
    int line = 1;
    for (size_t i = 0, start = 0; i <= src.size(); ++i)
      if (i == src.size() || src[i] == '\n') {
        if (src.substr(start, i - start).find("acc +=") != std::string::npos) return line;
        ++line;
        start = i + 1;
      }
    return 0;
  }();
  ASSERT_GT(acc_line, 0);
  int ptx_line = 1;
  bool found = false;
  for (size_t i = 0, start = 0; i < r.ptx.size(); ++i)
    if (r.ptx[i] == '\n') {
      if (r.ptx.substr(start, i - start).find("fma.rn.f32") != std::string::npos) {
        EXPECT_EQ(map.source_line[static_cast<size_t>(ptx_line) - 1], acc_line);
        found = true;
      }
      ++ptx_line;
      start = i + 1;
    }
  EXPECT_TRUE(found) << r.ptx;
}

}  // namespace
}  // namespace bs::kernel
