// kernel_cache_test.cpp: the compile cache with real NVRTC compiles: a hit never calls NVRTC (memory, and
// disk through a fresh cache object), any change to source, option, target or architecture misses, damaged
// entries are misses that get replaced, the memory LRU evicts, and the folder follows the environment.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/text.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs::kernel {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_NVRTC()                                                             \
  do {                                                                              \
    if (!nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc().error; \
  } while (0)

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = (fs::temp_directory_path() / ("bs-kernel-cache-" + std::to_string(getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  static CompileRequest heat_request() {
    CompileRequest r;
    r.source = std::string(template_source(*find_template("heat")));
    r.target = Target::Heat;
    return r;
  }

  std::string m_dir;
};

TEST_F(KernelCacheTest, SecondCompileIsAHitWithoutNvrtc) {
  REQUIRE_NVRTC();
  KernelCache cache(m_dir);
  const CompileRequest r = heat_request();
  const CompileResult first = compile_cached(cache, r);
  ASSERT_TRUE(first.ok()) << first.message;
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(cache.last_error().empty()) << cache.last_error();
  const long long calls = nvrtc_compile_calls();
  const CompileResult again = compile_cached(cache, r);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.cubin, first.cubin);
  EXPECT_EQ(again.ptx, first.ptx);
  EXPECT_EQ(again.lowered_name, "heat_step");
  EXPECT_DOUBLE_EQ(again.nvrtc_ms, first.nvrtc_ms);  // the first compile's figure, kept
  EXPECT_LT(again.total_ms, 50.0);
}

TEST_F(KernelCacheTest, DiskHitInAFreshCacheRestoresEverything) {
  REQUIRE_NVRTC();
  CompileResult first;
  {
    KernelCache cache(m_dir);
    first = compile_cached(cache, heat_request());
    ASSERT_TRUE(first.ok());
  }
  const long long calls = nvrtc_compile_calls();
  KernelCache fresh(m_dir);
  const CompileResult r = compile_cached(fresh, heat_request());
  EXPECT_EQ(nvrtc_compile_calls(), calls);
  ASSERT_TRUE(r.from_cache);
  ASSERT_EQ(r.status, CompileStatus::Ok);
  EXPECT_EQ(r.cubin, first.cubin);
  EXPECT_EQ(r.log, first.log);
  ASSERT_NE(r.main_kernel(), nullptr);
  EXPECT_EQ(r.main_kernel()->registers, first.main_kernel()->registers);
  EXPECT_EQ(r.nvrtc_version, nvrtc().version());
}

TEST_F(KernelCacheTest, CompileErrorsAreCachedToo) {
  REQUIRE_NVRTC();
  KernelCache cache(m_dir);
  CompileRequest r = heat_request();
  r.source += "\nint broken = ;\n";
  const CompileResult first = compile_cached(cache, r);
  ASSERT_EQ(first.status, CompileStatus::CompileError);
  const long long calls = nvrtc_compile_calls();
  KernelCache fresh(m_dir);
  const CompileResult again = compile_cached(fresh, r);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.status, CompileStatus::CompileError);
  ASSERT_EQ(again.diagnostics.size(), first.diagnostics.size());
  EXPECT_EQ(again.diagnostics[0].line, first.diagnostics[0].line);
}

TEST_F(KernelCacheTest, AnyChangeMisses) {
  const CompileRequest base = heat_request();
  const std::string k0 = cache_key(base, "13.0");
  std::vector<CompileRequest> changed(8, base);
  changed[0].source += " ";
  changed[1].options.fast_math = true;
  changed[2].options.maxrregcount = 32;
  changed[3].options.lineinfo = false;
  changed[4].options.defines = {{"X", "1"}};
  changed[5].arch = 80;
  changed[6].target = std::nullopt;
  changed[7].options.device_debug = true;
  for (size_t i = 0; i < changed.size(); ++i)
    EXPECT_NE(cache_key(changed[i], "13.0"), k0) << "change " << i;
  EXPECT_NE(cache_key(base, "13.1"), k0);  // another NVRTC
  EXPECT_EQ(cache_key(base, "13.0"), k0);
  // Options are normalised: the order of defines does not matter.
  CompileRequest a = base, b = base;
  a.options.defines = {{"A", "1"}, {"B", "2"}};
  b.options.defines = {{"B", "2"}, {"A", "1"}};
  EXPECT_EQ(cache_key(a, "13.0"), cache_key(b, "13.0"));
}

TEST_F(KernelCacheTest, ChangingAnOptionOrTheArchitectureReallyCompiles) {
  REQUIRE_NVRTC();
  KernelCache cache(m_dir);
  ASSERT_TRUE(compile_cached(cache, heat_request()).ok());
  CompileRequest fast = heat_request();
  fast.options.fast_math = true;
  long long calls = nvrtc_compile_calls();
  const CompileResult r1 = compile_cached(cache, fast);
  EXPECT_FALSE(r1.from_cache);
  EXPECT_EQ(nvrtc_compile_calls(), calls + 1);
  CompileRequest other_arch = heat_request();
  other_arch.arch = 86;
  calls = nvrtc_compile_calls();
  const CompileResult r2 = compile_cached(cache, other_arch);
  EXPECT_FALSE(r2.from_cache);
  EXPECT_EQ(nvrtc_compile_calls(), calls + 1);
  EXPECT_NE(r2.ptx.find(".target sm_86"), std::string::npos);
}

TEST_F(KernelCacheTest, DamagedEntriesAreMissesAndGetReplaced) {
  REQUIRE_NVRTC();
  const CompileRequest r = heat_request();
  const std::string key = cache_key(r, nvrtc().version());
  CompileResult good;
  {
    KernelCache cache(m_dir);
    good = compile_cached(cache, r);
    ASSERT_TRUE(good.ok());
  }
  const std::string path = KernelCache(m_dir).entry_path(key);
  std::string bytes, err;
  ASSERT_TRUE(read_file_limited(path, 64 << 20, &bytes, &err)) << err;
  const std::vector<std::string> damaged = {
      bytes.substr(0, bytes.size() / 2),  // truncated
      "",                                 // empty
      std::string(bytes.size(), 'x'),     // garbage
      [&] {
        std::string b = bytes;
        b[b.size() / 2] ^= 0x5a;
        return b;
      }(),                                // one byte flipped
      bytes.substr(0, bytes.size() - 1),  // the last byte lost
  };
  for (size_t i = 0; i < damaged.size(); ++i) {
    SCOPED_TRACE("damage " + std::to_string(i));
    ASSERT_TRUE(write_file_atomic(path, damaged[i], &err)) << err;
    EXPECT_FALSE(parse_entry(key, damaged[i]));
    KernelCache fresh(m_dir);
    const long long calls = nvrtc_compile_calls();
    const CompileResult r2 = compile_cached(fresh, r);
    EXPECT_FALSE(r2.from_cache);
    EXPECT_EQ(nvrtc_compile_calls(), calls + 1);
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(r2.cubin, good.cubin);
    // Replaced: the entry on disk is whole again.
    std::string now;
    ASSERT_TRUE(read_file_limited(path, 64 << 20, &now, &err));
    EXPECT_TRUE(parse_entry(key, now));
  }
  // An entry stored under another key's name is refused too.
  EXPECT_FALSE(parse_entry(std::string(64, '0'), bytes));
}

TEST_F(KernelCacheTest, UnwritableFolderKeepsWorkingInMemory) {
  REQUIRE_NVRTC();
  // A regular file where the folder should be: no entry can be written.
  fs::create_directories(fs::path(m_dir));
  const std::string blocker = m_dir + "/file";
  std::ofstream(blocker) << "x";
  KernelCache cache(blocker + "/kernels");
  const CompileResult r = compile_cached(cache, heat_request());
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(cache.last_error().empty());
  const long long calls = nvrtc_compile_calls();
  EXPECT_TRUE(compile_cached(cache, heat_request()).from_cache);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
}

TEST_F(KernelCacheTest, MemoryLruEvictsTheOldest) {
  REQUIRE_NVRTC();
  KernelCache cache("", 2);  // memory only
  std::vector<CompileRequest> reqs(3, heat_request());
  reqs[1].options.fast_math = true;
  reqs[2].options.lineinfo = false;
  for (const CompileRequest& r : reqs)
    ASSERT_TRUE(compile_cached(cache, r).ok());
  EXPECT_EQ(cache.memory_size(), 2u);
  long long calls = nvrtc_compile_calls();
  EXPECT_TRUE(compile_cached(cache, reqs[2]).from_cache);
  EXPECT_TRUE(compile_cached(cache, reqs[1]).from_cache);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
  EXPECT_FALSE(compile_cached(cache, reqs[0]).from_cache);  // evicted
  EXPECT_EQ(nvrtc_compile_calls(), calls + 1);
}

TEST_F(KernelCacheTest, ClearEmptiesMemoryAndDisk) {
  REQUIRE_NVRTC();
  KernelCache cache(m_dir);
  ASSERT_TRUE(compile_cached(cache, heat_request()).ok());
  cache.clear();
  EXPECT_EQ(cache.memory_size(), 0u);
  EXPECT_FALSE(compile_cached(cache, heat_request()).from_cache);
}

TEST(KernelCacheDir, FollowsTheEnvironment) {
  const auto get = [](const char* n) {
    const char* v = std::getenv(n);
    return v ? std::string(v) : std::string();
  };
  const std::string old_bs = get("BLOCKSCOPE_CACHE_DIR"), old_xdg = get("XDG_CACHE_HOME"),
                    old_home = get("HOME");
  setenv("BLOCKSCOPE_CACHE_DIR", "/tmp/bsc", 1);
  EXPECT_EQ(default_cache_dir(), "/tmp/bsc");
  unsetenv("BLOCKSCOPE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(default_cache_dir(), "/tmp/xdg/blockscope/kernels");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(default_cache_dir(), "/home/someone/.cache/blockscope/kernels");
  const auto restore = [](const char* n, const std::string& v) {
    if (v.empty())
      unsetenv(n);
    else
      setenv(n, v.c_str(), 1);
  };
  restore("BLOCKSCOPE_CACHE_DIR", old_bs);
  restore("XDG_CACHE_HOME", old_xdg);
  restore("HOME", old_home);
}

}  // namespace
}  // namespace bs::kernel
