// kernel_parse_test.cpp: the pure parsers on canned text: NVRTC log lines (the format NVRTC 13 writes, see
// kernel_compile_test.cpp for real logs), the ptxas report, PTX line info, SHA-256 vectors, find_kernel_line.
#include <gtest/gtest.h>

#include "gpu/kernel/contracts.h"
#include "gpu/kernel/diagnostics.h"
#include "gpu/kernel/ptx_lines.h"
#include "gpu/kernel/resources.h"
#include "gpu/kernel/sha256.h"

namespace bs::kernel {
namespace {

const char* k_source = "line one\n  int x = y;\nline three\nline four\n";

TEST(LogParser, LocatedErrorWithCaretGivesLineAndColumnAndContext) {
  const std::string log =
      "kernel.cu(2): error: identifier \"y\" is undefined\n"
      "    int x = y;\n"
      "            ^\n"
      "\n"
      "1 error detected in the compilation of \"kernel.cu\".\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", k_source);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].origin, Origin::User);
  EXPECT_EQ(d[0].severity, Severity::Error);
  EXPECT_EQ(d[0].line, 2);
  EXPECT_EQ(d[0].column, 11);
  EXPECT_EQ(d[0].message, "identifier \"y\" is undefined");
  EXPECT_EQ(d[0].context_first, 1);
  EXPECT_EQ(d[0].context, (std::vector<std::string>{"line one", "  int x = y;", "line three"}));
  EXPECT_EQ(format_diagnostic(d[0], "my.cu"), "my.cu:2:11: error: identifier \"y\" is undefined");
}

TEST(LogParser, WarningCodeAndRemarkNoiseDropped) {
  const std::string log =
      "kernel.cu(3): warning #177-D: variable \"z\" was declared but never referenced\n"
      "  line three\n"
      "       ^\n"
      "\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
      "\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Used 8 registers, used 0 barriers\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", k_source);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::Warning);
  EXPECT_EQ(d[0].code, "177-D");
  EXPECT_EQ(d[0].line, 3);
  EXPECT_EQ(d[0].column, 6);
  EXPECT_EQ(format_diagnostic(d[0], "a.cu"),
            "a.cu:3:6: warning: variable \"z\" was declared but never referenced [#177-D]");
}

TEST(LogParser, PreludeAndContractMessagesAreLabelledNotPutOnUserLines) {
  const std::string log =
      "blockscope_prelude.h(4): error: expected an expression\n"
      "  int oops = ;\n"
      "             ^\n"
      "\n"
      "blockscope_contract_check(1): error: static assertion failed with \"...\"\n"
      "  static_assert(...);\n"
      "  ^\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", k_source);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].origin, Origin::Prelude);
  EXPECT_EQ(d[0].line, 0);
  EXPECT_EQ(d[0].origin_line, 4);
  EXPECT_EQ(d[0].column, 0);
  EXPECT_EQ(format_diagnostic(d[0], "k.cu"),
            "k.cu: error: in blockscope's prelude (line 4): expected an expression");
  EXPECT_EQ(d[1].origin, Origin::Contract);
  EXPECT_EQ(d[1].line, 0);
}

TEST(LogParser, ToolMessagesWithoutLocation) {
  const std::string log =
      "nvrtc: error: unrecognized option -Wall found\n"
      "ptxas fatal   : Unresolved extern function 'foo'\n"
      "kernel.cu(9): catastrophic error: cannot open source file \"cuda_runtime.h\"\n"
      "  #include <cuda_runtime.h>\n"
      "                           ^\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", k_source);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].origin, Origin::Compiler);
  EXPECT_EQ(d[0].message, "nvrtc: unrecognized option -Wall found");
  EXPECT_EQ(d[1].origin, Origin::Compiler);
  EXPECT_EQ(d[1].severity, Severity::Error);
  EXPECT_EQ(d[1].message, "ptxas: Unresolved extern function 'foo'");
  // Line 9 is past the 4-line source: clamped to the last line, caret column dropped.
  EXPECT_EQ(d[2].origin, Origin::User);
  EXPECT_EQ(d[2].severity, Severity::Error);
  EXPECT_EQ(d[2].line, 4);
}

// ptxas refusing a kernel's resources has no location; it is put on the kernel's line, in the user's terms.
TEST(LogParser, PtxasResourceRefusalsAreTheKernelsErrors) {
  const std::string src = "// k\nextern \"C\" __global__ void kern(float* p) {\n  __shared__ float a[1];\n}\n";
  const std::string log =
      "ptxas error   : Entry function 'kern' uses too much shared data (0x10000000 bytes, 0xc000 max)\n"
      "ptxas error   : Entry function 'kern' uses too much local data (0x100000 bytes, 0x80000 max)\n"
      "ptxas error   : Entry function 'kern' uses too much parameter space (0x2000 bytes, 0x1000 max)\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", src);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].origin, Origin::User);
  EXPECT_EQ(d[0].line, 2);
  EXPECT_EQ(d[0].message,
            "kern declares 256 MiB (268435456 bytes) of static __shared__ memory; a block can have at most 48 KiB "
            "(49152 bytes) of static shared memory: make the __shared__ arrays smaller, or use extern __shared__ "
            "(dynamic) memory, sized at launch up to the device's limit");
  EXPECT_EQ(d[1].origin, Origin::User);
  EXPECT_NE(d[1].message.find("1 MiB (1048576 bytes) of local memory per thread"), std::string::npos) << d[1].message;
  EXPECT_NE(d[2].message.find("kern's parameters take 8 KiB (8192 bytes); at most 4 KiB"), std::string::npos)
      << d[2].message;
  // A ptxas message of another form stays the tool's, word for word.
  const auto other = parse_nvrtc_log("ptxas fatal   : Unresolved extern function 'f'\n", "kernel.cu", src);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].origin, Origin::Compiler);
  EXPECT_EQ(other[0].message, "ptxas: Unresolved extern function 'f'");
}

TEST(LogParser, FullPathsAndMessagesWithoutCaret) {
  const std::string log = "/tmp/x/kernel.cu(1): remark #1234: something to note\n";
  const auto d = parse_nvrtc_log(log, "kernel.cu", k_source);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::Remark);
  EXPECT_EQ(d[0].line, 1);
  EXPECT_EQ(d[0].column, 0);
  EXPECT_TRUE(parse_nvrtc_log("", "kernel.cu", k_source).empty());
}

TEST(PtxasReport, ParsesEachKernel) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
      "ptxas info    : Function properties for a\n"
      "ptxas         .     24 bytes stack frame, 20 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 16 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n"
      "ptxas info    : Compile time = 5.429 ms\n"
      "ptxas info    : Compiling entry function '_Z1bPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z1bPf\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 128 registers, used 0 barriers\n";
  const auto k = parse_ptxas_report(log);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "a");
  EXPECT_EQ(k[0].registers, 16);
  EXPECT_EQ(k[0].barriers, 1);
  EXPECT_EQ(k[0].shared_static_bytes, 2048);
  EXPECT_EQ(k[0].constant_bytes, 380);
  EXPECT_EQ(k[0].stack_frame_bytes, 24);
  EXPECT_EQ(k[0].spill_store_bytes, 20);
  EXPECT_EQ(k[0].spill_load_bytes, 16);
  EXPECT_EQ(k[0].max_threads_per_block, 1024);
  EXPECT_EQ(k[1].name, "_Z1bPf");
  EXPECT_EQ(k[1].registers, 128);
  EXPECT_EQ(k[1].max_threads_per_block, 512);
}

TEST(PtxasReport, MaxThreadsFromRegisters) {
  // 64K registers per block, allocated per warp in units of 256.
  EXPECT_EQ(max_threads_for_registers(32, 0), 1024);
  EXPECT_EQ(max_threads_for_registers(64, 0), 1024);
  EXPECT_EQ(max_threads_for_registers(72, 0), 896);  // 2304 per warp: 28 warps
  EXPECT_EQ(max_threads_for_registers(128, 0), 512);
  EXPECT_EQ(max_threads_for_registers(255, 0), 256);  // 8160 -> 8192 per warp: 8 warps
  EXPECT_EQ(max_threads_for_registers(32, 128), 128);
}

TEST(PtxasReport, LaunchBoundsFromPtx) {
  std::vector<KernelResources> k(1);
  k[0].name = "matmul";
  k[0].registers = 40;
  apply_ptx_limits(".visible .entry matmul(\n\t.param .u64 p0\n)\n.maxntid 16, 16, 1\n{\n}\n", &k);
  EXPECT_EQ(k[0].launch_bounds_threads, 256);
  EXPECT_EQ(k[0].max_threads_per_block, 256);
}

TEST(PtxLines, MapsLocDirectivesOfTheUsersFileOnly) {
  const std::string ptx =
      ".version 9.0\n"                                                     // 1
      ".visible .entry k(\n"                                               // 2
      ")\n"                                                                // 3
      "{\n"                                                                // 4
      "\t.loc\t1 2 3\n"                                                    // 5
      "\tmov.u32 %r1, %tid.x;\n"                                           // 6
      "\t.loc\t2 7 1, function_name $L__info_string0, inlined_at 1 5 9\n"  // 7 (prelude, inlined at 5)
      "\tmul.f32 %f2, %f1, %f1;\n"                                         // 8
      "\t.loc\t2 3 1\n"                                 // 9 (prelude, not inlined: no user line)
      "\tadd.f32 %f3, %f2, %f1;\n"                      // 10
      "\t.loc\t1 6 1\n"                                 // 11
      "\tret;\n"                                        // 12
      "}\n"                                             // 13
      "\t.file\t1 \"/home/u/kernel.cu\"\n"              // 14
      "\t.file\t2 \"/home/u/blockscope_prelude.h\"\n";  // 15
  const PtxLineMap m = map_ptx_lines(ptx, "kernel.cu");
  ASSERT_EQ(m.source_line.size(), 15u);
  EXPECT_TRUE(m.has_line_info);
  const std::vector<int> want = {0, 0, 0, 0, 2, 2, 5, 5, 0, 0, 6, 6, 6, 0, 0};
  EXPECT_EQ(m.source_line, want);
  ASSERT_EQ(m.blocks.size(), 6u);
  EXPECT_EQ(m.blocks[1].first_ptx_line, 5);
  EXPECT_EQ(m.blocks[1].last_ptx_line, 6);
  EXPECT_EQ(m.blocks[1].source_line, 2);
  EXPECT_EQ(m.blocks[4].source_line, 6);
  EXPECT_EQ(m.blocks[4].last_ptx_line, 13);
  // A file named like the user's but longer does not count.
  EXPECT_FALSE(map_ptx_lines(".loc 1 2 3\n.file 1 \"/x/mykernel.cu\"\n", "kernel.cu").has_line_info);
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Contracts, FindKernelLineSkipsCommentsAndCalls) {
  const std::string src =
      "// heat_step(in, out) is defined below\n"
      "/* heat_step(\n   also here */\n"
      "float heat_steps(int);\n"
      "extern \"C\" __global__ void\nheat_step (const float* in) {}\n";
  EXPECT_EQ(find_kernel_line(src, "heat_step"), 6);
  EXPECT_EQ(find_kernel_line(src, "matmul"), 0);
}

TEST(Contracts, EachTargetHasAContractAndTemplates) {
  for (Target t : k_target_names.values()) {
    const Contract& c = contract(t);
    EXPECT_EQ(c.target, t);
    EXPECT_NE(c.signature.find(c.kernel_name), std::string_view::npos);
    ASSERT_NE(find_template(k_target_names.name_of(t)), nullptr);
    EXPECT_EQ(find_template(k_target_names.name_of(t))->target, t);
    const std::string check = contract_check_source(c);
    EXPECT_NE(check.find("decltype(&" + std::string(c.kernel_name) + ")"), std::string::npos);
    EXPECT_EQ(check.find("\"extern"), std::string::npos);  // no quotes inside the static_assert message
  }
  EXPECT_EQ(template_ids(), "heat | heat-tutorial | vector | matmul | matmul-tiled");
  EXPECT_EQ(find_template("nope"), nullptr);
}

}  // namespace
}  // namespace bs::kernel
