// readout_test.cpp: the shared read-out formats (core/readout.h) the reduce and vector panels and the SVG
// exports print with.
#include "core/readout.h"

#include <gtest/gtest.h>

// Durations: microseconds under 0.1 ms, three decimals under 10 ms, one above.
TEST(Readout, FormatMsUnitAndDecimalsPerRange) {
  EXPECT_EQ(bs::format_ms(0.0425), "42.5 us");
  EXPECT_EQ(bs::format_ms(0.1), "0.100 ms");
  EXPECT_EQ(bs::format_ms(1.23456), "1.235 ms");
  EXPECT_EQ(bs::format_ms(12.34), "12.3 ms");
}

TEST(Readout, FmtDoubleUsesTheCallersFormat) {
  EXPECT_EQ(bs::fmt_double("%.4g GB/s", 1234.567), "1235 GB/s");
  EXPECT_EQ(bs::fmt_double("  (%.0f%% copy)", 87.6), "  (88% copy)");
}

// The alpha byte is dropped, leading zeros kept.
TEST(Readout, RgbHexDropsAlpha) {
  EXPECT_EQ(bs::rgb_hex(0x3b8bebffu), "#3b8beb");
  EXPECT_EQ(bs::rgb_hex(0x00000a80u), "#00000a");
}
