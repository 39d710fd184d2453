// eight_byte_test.cpp: double, int64 and uint64 buffers and scalars in contracts: parsed and typed in the
// signature, generated (doubles with 53 random bits), poisoned (a double NaN, 0xCDCDCDCDCDCDCDCD), compared
// (doubles with the tolerance, integers exactly) and run in the simulator, with the first wrong element shown at
// full precision.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "gpu/exercise/export.h"
#include "gpu/exercise/runner.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "check_expect.h"

namespace bs::exercise {
namespace {

// `text` with the first `from` replaced by `to` (built by concatenation: GCC 12's -Wrestrict misfires on
// std::string::replace here).
std::string with(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.substr(0, at) + to + text.substr(at + from.size());
}

Exercise contract(const std::string& text, const std::string& reference) {
  const LoadResult r = parse_contract(text, "t.json");
  EXPECT_TRUE(r.exercise) << r.error;
  Exercise e;
  if (r.exercise) e = *r.exercise;
  e.id.push_back('t');  // (not = "t": GCC 12's -Wrestrict false positive)
  e.reference += reference;
  return e;
}

const char* k_axpy = R"J({"format": 1, "title": "axpy in double", "kernel": "axpy", "params": ["n"],
  "args": [{"name": "a", "kind": "scalar", "type": "double", "value": 0.1},
           {"name": "x", "kind": "buffer", "type": "double", "dir": "in", "size": "n", "fill": {"kind": "uniform", "lo": -1, "hi": 1}},
           {"name": "y", "kind": "buffer", "type": "double", "dir": "inout", "size": "n", "fill": {"kind": "uniform", "lo": 1, "hi": 2}},
           {"name": "n", "kind": "scalar", "type": "int64", "value": "n"}],
  "launch": {"block": [128], "grid": ["ceil_div(n, block_x)"]},
  "tolerance": {"abs": 1e-15, "rel": 1e-15},
  "tests": {"visible": [{"n": 1000}], "hidden": [{"n": 1}, {"n": 4099}]}})J";

const char* k_axpy_ref =
    "extern \"C\" __global__ void axpy(double a, const double* x, double* y, long long n) {\n"
    "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

TEST(EightByte, DoubleAndInt64ParseIntoTheSignature) {
  const Exercise e = contract(k_axpy, k_axpy_ref);
  EXPECT_EQ(e.signature(), "extern \"C\" __global__ void axpy(double a, const double* x, double* y, long long n)");
  EXPECT_EQ(e.pointer_type(), "void (*)(double, const double*, double*, long long)");
  EXPECT_EQ(elem_bytes(ElemType::Double), 8u);
  EXPECT_EQ(elem_bytes(ElemType::Float), 4u);
  const std::string bad = with(with(k_axpy, "\"type\": \"double\", \"dir\": \"in\"", "\"type\": \"uint64\", \"dir\": \"in\""),
                               "\"lo\": -1", "\"lo\": -2");
  EXPECT_EQ(parse_contract(bad, "t.json").error, "t.json: args[1].fill.lo: an unsigned buffer holds no negative numbers");
  const std::string scalar = with(k_axpy, "\"type\": \"double\", \"value\"", "\"type\": \"uint64\", \"value\"");
  EXPECT_EQ(parse_contract(scalar, "t.json").error,
            "t.json: args[0].type: 'uint64' is not a type here (give float, double, int or int64)");
}

TEST(EightByte, ADoubleKernelPassesAndAFloatOneFailsWithFullPrecision) {
  REQUIRE_NVRTC();
  const Exercise e = contract(k_axpy, k_axpy_ref);
  const CheckResult good = check_source(e, k_axpy_ref, "mine.cu");
  EXPECT_TRUE(passes_every_test(good));
  EXPECT_EQ(good.tests.size(), 3u);
  // Computing in float loses the double's digits: the first element is wrong, shown with 17 digits.
  const std::string in_float =
      "extern \"C\" __global__ void axpy(double a, const double* x, double* y, long long n) {\n"
      "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = (float)a * (float)x[i] + (float)y[i];\n"
      "}\n";
  const CheckResult r = check_source(e, in_float, "mine.cu");
  ASSERT_TRUE(fails_first_test_on(r, "y"));
  const TestResult& t = r.tests[0];
  EXPECT_EQ(t.wrong->index, 0u);
  EXPECT_GE(t.wrong->expected.size(), 15u) << t.wrong->expected;
  EXPECT_NE(t.wrong->expected, t.wrong->actual);
  EXPECT_EQ(t.wrong->writers.front(), "thread (0, 0, 0) of block (0, 0, 0)");
}

const char* k_wide = R"J({"format": 1, "title": "a wide product", "kernel": "wide_mul", "params": ["n"],
  "args": [{"name": "a", "kind": "buffer", "type": "int", "dir": "in", "size": "n", "fill": {"kind": "uniform", "lo": 100000, "hi": 2000000000}},
           {"name": "b", "kind": "buffer", "type": "uint64", "dir": "in", "size": "n", "fill": {"kind": "index", "scale": 3, "offset": 70000}},
           {"name": "out", "kind": "buffer", "type": "int64", "dir": "out", "size": "n"},
           {"name": "n", "kind": "scalar", "type": "int", "value": "n"}],
  "launch": {"block": [64], "grid": ["ceil_div(n, block_x)"]},
  "tests": {"visible": [{"n": 300}], "hidden": [{"n": 1}, {"n": 1025}]}})J";

TEST(EightByte, Int64OutputsAreExactAndAnUnwrittenOneIsNamed) {
  REQUIRE_NVRTC();
  const std::string ref =
      "extern \"C\" __global__ void wide_mul(const int* a, const unsigned long long* b, long long* out, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = (long long)a[i] * (long long)b[i];\n"
      "}\n";
  const Exercise e = contract(k_wide, ref);
  const CheckResult good = check_source(e, ref, "mine.cu");
  EXPECT_TRUE(passes_every_test(good));
  // 32-bit arithmetic overflows: a products past 2^31 is wrong, exactly.
  const std::string narrow =
      "extern \"C\" __global__ void wide_mul(const int* a, const unsigned long long* b, long long* out, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = a[i] * (int)b[i];\n"
      "}\n";
  const CheckResult r = check_source(e, narrow, "mine.cu");
  ASSERT_TRUE(fails_first_test_on(r, "out"));
  EXPECT_GT(r.tests[0].wrong->wrong_count, 200u);
  // The last element left unwritten: poisoned with 0xCDCDCDCDCDCDCDCD, named, no writer.
  const std::string skip_last =
      "extern \"C\" __global__ void wide_mul(const int* a, const unsigned long long* b, long long* out, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i + 1 < n) out[i] = (long long)a[i] * (long long)b[i];\n"
      "}\n";
  const CheckResult s = check_source(e, skip_last, "mine.cu");
  ASSERT_TRUE(fails_first_test_on(s, "out"));
  EXPECT_EQ(s.tests[0].wrong->index, 299u);
  EXPECT_EQ(s.tests[0].wrong->actual, "-3617008641903833651 (0xCDCDCDCDCDCDCDCD, never written)");
  EXPECT_TRUE(s.tests[0].wrong->writers.empty());
}

// The exported standalone program holds 8-byte elements as the runner does (two words each, full-precision
// printing) and compiles with nvcc; the CuPy snippet types them (float64, int64, uint64).
TEST(EightByte, TheExportedProgramAndSnippetTakeEightByteTypes) {
  const std::string ref =
      "extern \"C\" __global__ void wide_mul(const int* a, const unsigned long long* b, long long* out, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = (long long)a[i] * (long long)b[i];\n"
      "}\n";
  Exercise wide = contract(k_wide, ref);
  const Export x = export_exercise(wide, ref);
  ASSERT_EQ(x.error, "");
  EXPECT_NE(x.program.find("words_of(k_args[i].type)"), std::string::npos);
  EXPECT_NE(x.cupy.find("dtype=np.int64"), std::string::npos);
  EXPECT_NE(x.cupy.find("astype(np.uint64)"), std::string::npos);
  const Export d = export_exercise(contract(k_axpy, k_axpy_ref), k_axpy_ref);
  ASSERT_EQ(d.error, "");
  EXPECT_NE(d.cupy.find("np.float64(0.10000000000000001)"), std::string::npos);
  EXPECT_NE(d.cupy.find("astype(np.float64)"), std::string::npos);
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc << ": the program was written, not compiled";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("bs_eight_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.cu") << x.program;
  const std::string cmd = nvcc + " -O2 -arch=sm_90 -o " + (dir / "t").string() + " " + (dir / "t.cu").string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_TRUE(std::filesystem::exists(dir / "t"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bs::exercise
