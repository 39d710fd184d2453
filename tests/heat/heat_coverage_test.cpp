// heat_coverage_test.cpp: the CPU step that computes only the cells a launch covers (the GPU kernel's rule
// for a hand-set grid that is too small), and the paint stroke that joins two frames' mouse positions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpu/heat/heat.h"
#include "gpu/heat/stencil.h"

namespace bs::heat {

namespace {

Params awkward(Boundary b) {
  Params p;
  p.nx = 203;  // not a multiple of any block width below
  p.ny = 149;
  p.dt = 0.24f;
  p.boundary = b;
  p.boundary_temp = 0.3f;
  return p;
}

// The rule written out cell by cell, the way the GPU kernel applies it: a cell is updated when a thread of
// the grid owns it (x < covered_x, y < covered_y); off-grid neighbours follow the boundary; every other cell
// keeps its value.
std::vector<float> reference_step(const std::vector<float>& in, const Params& p, const Coverage& c) {
  std::vector<float> out = in;
  const bool fixed = p.boundary == Boundary::Fixed;
  auto at = [&](int64_t x, int64_t y, float self) {
    if (x < 0 || y < 0 || x >= p.nx || y >= p.ny) return fixed ? p.boundary_temp : self;
    return in[static_cast<size_t>(y * p.nx + x)];
  };
  for (int64_t y = 0; y < std::min(c.covered_y, p.ny); ++y)
    for (int64_t x = 0; x < std::min(c.covered_x, p.nx); ++x) {
      const float u = in[static_cast<size_t>(y * p.nx + x)];
      out[static_cast<size_t>(y * p.nx + x)] =
          stencil_update(u, at(x - 1, y, u), at(x + 1, y, u), at(x, y - 1, u), at(x, y + 1, u), p.r());
    }
  return out;
}

}  // namespace

TEST(HeatCpuCoverage, FullCoverageIsThePlainStep) {
  const Params p = awkward(Boundary::Fixed);
  const auto in = make_initial(p, InitialPattern::Noise);
  std::vector<float> a(in.size()), b(in.size());
  step_cpu(in.data(), a.data(), p, CpuMode::AllThreads);
  step_cpu(in.data(), b.data(), p, CpuMode::AllThreads,
           coverage_of({7, 5}, cells_of({32, 8}, 4), {p.nx, p.ny}));
  EXPECT_EQ(a, b);
}

TEST(HeatCpuCoverage, OnlyCoveredCellsAreComputedForManySteps) {
  for (Boundary bnd : {Boundary::Fixed, Boundary::Insulated})
    for (CpuMode mode : {CpuMode::OneThread, CpuMode::AllThreads}) {
      const Params p = awkward(bnd);
      // Floor division, the tutorial mistake: 203/32 = 6 blocks across (192 columns), 149/(8*2) = 9 blocks
      // down (144 rows) with 2 cells per thread.
      const Coverage c = coverage_of({p.nx / 32, p.ny / 16}, cells_of({32, 8}, 2), {p.nx, p.ny});
      ASSERT_EQ(c.covered_x, 192);
      ASSERT_EQ(c.covered_y, 144);
      const auto init = make_initial(p, InitialPattern::Noise);
      std::vector<float> f = init, tmp(f.size()), ref = init;
      for (int s = 0; s < 25; ++s) {
        step_cpu(f.data(), tmp.data(), p, mode, c);
        f.swap(tmp);
        ref = reference_step(ref, p, c);
      }
      EXPECT_EQ(f, ref);
      size_t kept = 0, changed = 0;
      for (int64_t y = 0; y < p.ny; ++y)
        for (int64_t x = 0; x < p.nx; ++x) {
          const size_t i = static_cast<size_t>(y * p.nx + x);
          if (x >= c.covered_x || y >= c.covered_y)
            kept += f[i] == init[i];
          else
            changed += f[i] != init[i];
        }
      EXPECT_EQ(kept, static_cast<size_t>(c.uncovered_cells));
      EXPECT_GT(changed, static_cast<size_t>(c.covered_x * c.covered_y) / 2);
    }
}

TEST(HeatCpuCoverage, OneColumnAndOneRowGrids) {
  const Params p = awkward(Boundary::Insulated);
  const auto in = make_initial(p, InitialPattern::Noise);
  for (const Coverage c :
       {coverage_of({1, 1}, {1, 1}, {p.nx, p.ny}), coverage_of({1, 200}, {1, 1}, {p.nx, p.ny}),
        coverage_of({300, 1}, {1, 1}, {p.nx, p.ny})}) {
    std::vector<float> out(in.size());
    step_cpu(in.data(), out.data(), p, CpuMode::AllThreads, c);
    EXPECT_EQ(out, reference_step(in, p, c)) << c.covered_x << "x" << c.covered_y;
  }
}

// --- Paint strokes
// ------------------------------------------------------------------------------------------------
TEST(HeatStroke, AFastDragLeavesAContinuousStroke) {
  const int64_t nx = 300, ny = 200;
  std::vector<float> f(static_cast<size_t>(nx * ny), 0.0f);
  // One frame's jump of 190 x 70 cells with a brush of radius 1.5.
  const Stroke s{10.5, 20.5, 200.5, 90.5, 1.5, 5.0f};
  apply_stroke_cpu(f, nx, ny, s);
  for (int i = 0; i <= 1000; ++i) {
    const double t = i / 1000.0;
    const auto x = static_cast<int64_t>(s.x0 + t * (s.x1 - s.x0)),
               y = static_cast<int64_t>(s.y0 + t * (s.y1 - s.y0));
    ASSERT_EQ(f[static_cast<size_t>(y * nx + x)], 5.0f) << "gap at cell (" << x << ", " << y << ")";
  }
  // Nothing far from the segment.
  EXPECT_EQ(f[static_cast<size_t>(90 * nx + 10)], 0.0f);
  EXPECT_EQ(f[static_cast<size_t>(20 * nx + 200)], 0.0f);
}

TEST(HeatStroke, AZeroLengthStrokeIsTheBrushDisc) {
  const int64_t nx = 64, ny = 48;
  std::vector<float> a(static_cast<size_t>(nx * ny), 0.0f), b = a;
  apply_brush_cpu(a, nx, ny, Brush{20.3, 30.7, 6.0, 1.0f});
  apply_stroke_cpu(b, nx, ny, Stroke{20.3, 30.7, 20.3, 30.7, 6.0, 1.0f});
  EXPECT_EQ(a, b);
  size_t painted = 0;
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const double dx = x + 0.5 - 20.3, dy = y + 0.5 - 30.7;
      const bool inside = dx * dx + dy * dy <= 36.0;
      EXPECT_EQ(a[static_cast<size_t>(y * nx + x)], inside ? 1.0f : 0.0f) << x << ", " << y;
      painted += inside;
    }
  EXPECT_GT(painted, 100u);  // about pi * 36
}

TEST(HeatStroke, StrokesFarOutsideTheFieldAreClipped) {
  const int64_t nx = 64, ny = 64;
  std::vector<float> f(static_cast<size_t>(nx * ny), 0.0f);
  apply_stroke_cpu(f, nx, ny, Stroke{-5000, 10.5, 5000, 10.5, 1.0, 2.0f});  // the whole row 10
  EXPECT_TRUE(stroke_box(Stroke{1e9, 1e9, 2e9, 2e9, 5, 1}, nx, ny).empty());
  EXPECT_TRUE(stroke_box(Stroke{std::nan(""), 1, 2, 2, 5, 1}, nx, ny).empty());
  for (int64_t x = 0; x < nx; ++x)
    EXPECT_EQ(f[static_cast<size_t>(10 * nx + x)], 2.0f) << x;
  EXPECT_EQ(f[static_cast<size_t>(12 * nx + 5)], 0.0f);
}

}  // namespace bs::heat
