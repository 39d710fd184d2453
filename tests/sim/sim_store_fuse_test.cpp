// sim_store_fuse_test.cpp: ptxas's fusion of four adjacent 4-byte global stores into one 16-byte store
// (fuse_adjacent_stores, ptx.h), as the memory counters see it. One warp; thread t writes 8 floats at
// out + 32 t. Fused, the four scalar stores are one request of 32 sectors; every case ptxas cannot fuse
// (no alignment proof, a proof at the wrong offset, a branch target inside, a volatile store) counts four.
// The values written are the same in every case.
#include "sim_util.h"

namespace bs::sim::test {
namespace {

std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<12>;\n  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
         "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd2, %r1, 32;\n  add.s64 %rd3, %rd1, %rd2;\n"
         "  cvt.rn.f32.u32 %f1, %r1;\n  add.f32 %f2, %f1, 0f3F800000;\n  add.f32 %f3, %f1, 0f40000000;\n"
         "  add.f32 %f4, %f1, 0f40400000;\n  setp.gt.u32 %p1, %r1, 100;\n" +
         body + "  ret;\n}\n";
}

struct Ran {
  Module m;
  MemoryCounts counts;
  std::vector<float> out;
};

Ran run(const std::string& body) {
  Ran r{parse_ptx(kernel(body)), {}, std::vector<float>(32 * 8, -1.0f)};
  LaunchConfig cfg;
  cfg.grid = dim(1);
  cfg.block = dim(32);
  cfg.buffers = {buffer("out", r.out)};
  cfg.args = {Arg::pointer(0)};
  const LaunchResult lr = launch(r.m, "k", cfg);
  EXPECT_TRUE(lr.ok) << lr.failure.message;
  r.counts = memory_counts(r.m, lr);
  return r;
}

// Thread t's first four floats are t, t+1, t+2, t+3 (wherever the body put them).
void expect_values(const Ran& r, int first) {
  for (int t = 0; t < 32; ++t)
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(r.out[static_cast<size_t>(t * 8 + first + k)], static_cast<float>(t + k)) << "thread " << t;
}

constexpr const char* k_four = R"(
  st.global.f32 [%rd3], %f1;
  st.global.f32 [%rd3+4], %f2;
  st.global.f32 [%rd3+8], %f3;
  st.global.f32 [%rd3+12], %f4;
)";

TEST(SimStoreFuse, FourScalarStoresProvedAlignedCountAsOne) {
  const Ran r = run(std::string(k_four) + "  st.global.v4.f32 [%rd3+16], {%f1, %f2, %f3, %f4};\n");
  EXPECT_EQ(r.m.fused_stores, 1u);
  EXPECT_EQ(r.counts.st_requests, 2u);  // the group and the v4
  EXPECT_EQ(r.counts.st_sectors, 64u);  // 16 bytes per lane in its own sector, twice
  expect_values(r, 0);
  expect_values(r, 4);
  bool said = false;
  for (const std::string& t : r.m.text) said = said || t.find("one 16-byte store") != std::string::npos;
  EXPECT_TRUE(said) << "the first store's PTX text says what the GPU does";
  // The proof may come first in the run.
  const Ran before = run("  st.global.v4.f32 [%rd3+16], {%f1, %f2, %f3, %f4};\n" + std::string(k_four));
  EXPECT_EQ(before.counts.st_requests, 2u);
}

TEST(SimStoreFuse, WithoutAProvedAlignmentTheFourCountAsFour) {
  const Ran none = run(k_four);  // nothing proves [%rd3] a multiple of 16
  EXPECT_EQ(none.m.fused_stores, 0u);
  EXPECT_EQ(none.counts.st_requests, 4u);
  EXPECT_EQ(none.counts.st_sectors, 128u);
  expect_values(none, 0);
  // A proof 12 bytes off the group's start: [%rd3+4] is not a multiple of 16.
  const Ran off = run(R"(
  st.global.f32 [%rd3+4], %f1;
  st.global.f32 [%rd3+8], %f2;
  st.global.f32 [%rd3+12], %f3;
  st.global.f32 [%rd3+16], %f4;
  st.global.v4.f32 [%rd3+32], {%f1, %f2, %f3, %f4};
)");
  EXPECT_EQ(off.counts.st_requests, 5u);
  // The proof off another register.
  const Ran other =
      run(std::string(k_four) + "  add.s64 %rd4, %rd3, 0;\n  st.global.v4.f32 [%rd4+16], {%f1, %f2, %f3, %f4};\n");
  EXPECT_EQ(other.counts.st_requests, 5u);
}

TEST(SimStoreFuse, ABranchTargetOrAVolatileStoreKeepsThemApart) {
  const Ran label = run(R"(
  @%p1 bra $L__skip;
  st.global.f32 [%rd3], %f1;
  st.global.f32 [%rd3+4], %f2;
$L__skip:
  st.global.f32 [%rd3+8], %f3;
  st.global.f32 [%rd3+12], %f4;
  st.global.v4.f32 [%rd3+16], {%f1, %f2, %f3, %f4};
)");
  EXPECT_EQ(label.m.fused_stores, 0u);
  EXPECT_EQ(label.counts.st_requests, 5u);
  expect_values(label, 0);
  const Ran vol = run(R"(
  st.global.f32 [%rd3], %f1;
  st.volatile.global.f32 [%rd3+4], %f2;
  st.global.f32 [%rd3+8], %f3;
  st.global.f32 [%rd3+12], %f4;
  st.global.v4.f32 [%rd3+16], {%f1, %f2, %f3, %f4};
)");
  EXPECT_EQ(vol.counts.st_requests, 5u);
  // Guarded differently: not one run.
  const Ran guard = run(R"(
  st.global.f32 [%rd3], %f1;
  st.global.f32 [%rd3+4], %f2;
  @!%p1 st.global.f32 [%rd3+8], %f3;
  st.global.f32 [%rd3+12], %f4;
  st.global.v4.f32 [%rd3+16], {%f1, %f2, %f3, %f4};
)");
  EXPECT_EQ(guard.counts.st_requests, 5u);
  expect_values(guard, 0);
}

}  // namespace
}  // namespace bs::sim::test
