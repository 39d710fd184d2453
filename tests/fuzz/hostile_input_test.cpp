// hostile_input_test.cpp: the helpers that take user values apart, fed what a fuzzer feeds them: values that
// overflow int64 products, control characters and broken UTF-8 in echoed text, absurd sizes and prices.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/launch.h"
#include "core/text.h"
#include "gpu/montecarlo/montecarlo.h"
#include "gpu/vector/vector.h"

namespace bs {

constexpr int64_t k_max = std::numeric_limits<int64_t>::max();
constexpr int64_t k_min = std::numeric_limits<int64_t>::min();

TEST(HostileLaunch, BlockProductNeverOverflows) {
  // x*y of these overflows int64: the check must refuse without forming the product (UBSan would abort).
  for (const Dim2 b : {Dim2{k_max, k_max}, Dim2{int64_t{1} << 62, 4}, Dim2{4, int64_t{1} << 62},
                       Dim2{k_max, 2}, Dim2{3037000500, 3037000500}}) {
    const auto err = validate_block(b, DeviceLimits{});
    ASSERT_TRUE(err) << to_string(b);
    EXPECT_NE(err->find("1024 threads per block"), std::string::npos) << *err;
  }
  EXPECT_TRUE(validate_block({k_min, -1}, DeviceLimits{}));
  EXPECT_FALSE(validate_block({32, 32}, DeviceLimits{}));
  EXPECT_FALSE(block_advice({k_max, k_max}, DeviceLimits{})) << "no advice for an illegal block";
}

TEST(HostileLaunch, ParsedHugeShapesAreRefusedByValidation) {
  const ParsedDim2 p = parse_dim2("9223372036854775807x9223372036854775807", "--block");
  ASSERT_TRUE(p.value);
  EXPECT_TRUE(validate_block(*p.value, DeviceLimits{}));
  EXPECT_TRUE(validate_grid(*p.value, DeviceLimits{}));
  EXPECT_FALSE(parse_dim2("99999999999999999999x1", "--block").value) << "beyond int64: not a number";
}

TEST(HostileLaunch, CeilDivAndCoverageSaturateInsteadOfOverflowing) {
  EXPECT_EQ(ceil_div(k_max, 2), int64_t{1} << 62);
  EXPECT_EQ(ceil_div(k_max, 1), k_max);
  EXPECT_EQ(ceil_div(7, 2), 4);
  EXPECT_EQ(ceil_div(0, 5), 0);
  const Coverage c = coverage_of({k_max, k_max}, {1024, 1024}, {8192, 8192});
  EXPECT_TRUE(c.full());
  const Coverage none = coverage_of({1, 1}, {1, 1}, {k_max, k_max});
  EXPECT_EQ(none.covered_x, 1);
  EXPECT_GT(none.uncovered_cells, 0);
}

TEST(HostileLaunch, ParseErrorsEchoTheValueEscaped) {
  const ParsedDim2 p = parse_dim2("\x1b[2J32\nx8", "--block");
  ASSERT_FALSE(p.value);
  EXPECT_EQ(p.error.find('\x1b'), std::string::npos) << p.error;
  EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("\\x1b[2J32\\x0ax8"), std::string::npos) << p.error;
}

TEST(Printable, EscapesControlBytesAndKeepsUtf8) {
  EXPECT_EQ(printable("plain text 123"), "plain text 123");
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable("l1\nl2\r\t"), "l1\\x0al2\\x0d\\x09");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
  EXPECT_EQ(printable("heat \xe7\x86\xb1 caf\xc3\xa9"), "heat \xe7\x86\xb1 caf\xc3\xa9")
      << "valid UTF-8 stays";
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m")
      << "C1 control CSI (U+009B) is escaped";
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe") << "not UTF-8";
  EXPECT_EQ(printable("\xe7\x86"), "\\xe7\\x86") << "truncated sequence";
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf") << "overlong encoding";
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "surrogate";
}

TEST(Printable, CapsTheLengthAtACharacterBoundary) {
  const std::string huge(100000, 'x');
  const std::string p = printable(huge, 50);
  EXPECT_EQ(p, std::string(50, 'x') + "...");
  // A multi-byte character or an escape is never cut in half.
  EXPECT_EQ(printable("ab\xe7\x86\xb1", 4), "ab...");
  EXPECT_EQ(printable("ab\x1b", 4), "ab...");
  EXPECT_EQ(printable("", 10), "");
}

TEST(HostileMonteCarlo, MarketInputsAreBoundedAndTheRangeIsStated) {
  struct Bad {
    void (*change)(montecarlo::Params&);
    const char* param;
    const char* says;
  };
  const Bad bad[] = {
      {[](montecarlo::Params& p) { p.s0 = 1e308; }, "s0", "outside 0.001 .. 1e+06"},
      {[](montecarlo::Params& p) { p.s0 = 1e-300; }, "s0", "outside 0.001 .. 1e+06"},
      {[](montecarlo::Params& p) { p.strike = 1e308; }, "strike", "outside 0.001 .. 1e+06"},
      {[](montecarlo::Params& p) { p.rate = 1e308; }, "rate", "outside -1 .. 1"},
      {[](montecarlo::Params& p) { p.rate = -2; }, "rate", "outside -1 .. 1"},
      {[](montecarlo::Params& p) { p.maturity = 1e308; }, "maturity", "more than 100 years"},
      {[](montecarlo::Params& p) { p.sigma = 1e308; }, "sigma", "overflow"},
  };
  for (const Bad& b : bad) {
    montecarlo::Params p;
    b.change(p);
    const auto err = montecarlo::check(p);
    ASSERT_TRUE(err) << b.param;
    EXPECT_EQ(err->param, b.param) << err->message;
    EXPECT_NE(err->message.find(b.says), std::string::npos) << err->message;
  }
  montecarlo::Params edge;
  edge.s0 = montecarlo::k_min_price;
  edge.strike = montecarlo::k_max_price;
  edge.rate = -montecarlo::k_max_abs_rate / 10;
  edge.maturity = montecarlo::k_max_maturity;
  edge.sigma = 0.4;
  EXPECT_FALSE(montecarlo::check(edge)) << montecarlo::check(edge)->message;
}

TEST(HostileVector, HostMemoryCheckSaturatesHugeCounts) {
  // n * 4 * 3 overflows uint64 for n near INT64_MAX: the check must still refuse (it used to wrap).
  const auto err = vector::check_host_memory(k_max, 3, uint64_t{1} << 40);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("MiB are available"), std::string::npos) << *err;
  EXPECT_FALSE(vector::check_host_memory(0, 3, 1024));
  EXPECT_GT(vector::available_host_bytes(), 0u);
}

}  // namespace bs
