// heat_cpu.cpp: parameter validation, initial fields, brush, and the CPU baselines (one thread; all threads
// with OpenMP) of the heat stencil.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "gpu/heat/brush.h"
#include "gpu/heat/heat.h"
#include "gpu/heat/stencil.h"
#include "core/stats.h"

namespace bs::heat {

float max_stable_dt(float alpha, float dx) {
  return dx * dx / (4.0f * alpha);
}

std::optional<std::string> validate(const Params& p) {
  if (p.nx < k_min_size || p.ny < k_min_size)
    return "grid " + std::to_string(p.nx) + "x" + std::to_string(p.ny) +
           " is empty: both sides must be at least 1";
  if (p.nx > k_max_size || p.ny > k_max_size)
    return "grid " + std::to_string(p.nx) + "x" + std::to_string(p.ny) + " is larger than " +
           std::to_string(k_max_size) + "x" + std::to_string(k_max_size) + ", the largest the heat lab runs";
  if (!(p.alpha > 0.0f) || !std::isfinite(p.alpha)) return "alpha must be a positive number";
  if (!(p.dx > 0.0f) || !std::isfinite(p.dx)) return "dx must be a positive number";
  if (!(p.dt > 0.0f) || !std::isfinite(p.dt)) return "dt must be a positive number";
  const float limit = max_stable_dt(p.alpha, p.dx);
  // A hair of tolerance so that dt typed as exactly the limit is accepted despite rounding.
  if (p.dt > limit * (1.0f + 1e-6f))
    return "dt = " + std::to_string(p.dt) +
           " exceeds the stability limit dx^2/(4 alpha) = " + std::to_string(limit) +
           ": the explicit scheme would blow up (r = alpha dt/dx^2 = " + std::to_string(p.r()) + " > 0.25)";
  return std::nullopt;
}

std::optional<std::string> validate_cells_per_thread(int c) {
  for (int k : k_cells_per_thread_choices)
    if (c == k) return std::nullopt;
  return "cells per thread must be 1, 2, 4 or 8 (got " + std::to_string(c) + ")";
}

std::vector<float> make_initial(const Params& p, InitialPattern pattern, uint32_t seed) {
  std::vector<float> f(static_cast<size_t>(p.cells()));
  const double sx = static_cast<double>(p.nx), sy = static_cast<double>(p.ny);
  switch (pattern) {
    case InitialPattern::Gaussian:
      return make_gaussian(p, std::max(2.0, std::min(sx, sy) / 10.0), 1.0);
    case InitialPattern::Noise: {
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> u(0.05f, 1.0f);
      for (auto& v : f)
        v = u(rng);
      return f;
    }
    case InitialPattern::HotSpots:
    default: {
      // A warm background with a few hot and cold discs: visible structure at every size.
      std::mt19937 rng(seed);
      std::uniform_real_distribution<double> ux(0.1, 0.9), ur(0.03, 0.12), ut(-0.6, 1.0);
      struct Spot {
        double x, y, r;
        float t;
      };
      std::vector<Spot> spots(7);
      for (auto& s : spots)
        s = {ux(rng) * sx, ux(rng) * sy, ur(rng) * std::min(sx, sy) + 1.0, static_cast<float>(ut(rng))};
      for (int64_t y = 0; y < p.ny; ++y)
        for (int64_t x = 0; x < p.nx; ++x) {
          float v = 0.25f + 0.1f * static_cast<float>(y) / static_cast<float>(p.ny);
          for (const auto& s : spots) {
            const double dx = x + 0.5 - s.x, dy = y + 0.5 - s.y;
            if (dx * dx + dy * dy < s.r * s.r) v = s.t;
          }
          f[static_cast<size_t>(y * p.nx + x)] = v;
        }
      return f;
    }
  }
}

std::vector<float> make_gaussian(const Params& p, double sigma, double amplitude) {
  std::vector<float> f(static_cast<size_t>(p.cells()));
  const double cx = p.nx / 2.0, cy = p.ny / 2.0;
  for (int64_t y = 0; y < p.ny; ++y)
    for (int64_t x = 0; x < p.nx; ++x) {
      const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      f[static_cast<size_t>(y * p.nx + x)] =
          static_cast<float>(amplitude * std::exp(-(dx * dx + dy * dy) / (2.0 * sigma * sigma)));
    }
  return f;
}

CellBox stroke_box(const Stroke& s, int64_t nx, int64_t ny) {
  CellBox b;
  if (!(s.radius >= 0) || !std::isfinite(s.x0 + s.y0 + s.x1 + s.y1 + s.radius)) return b;
  // Clamp before converting: a mouse far outside the view must not overflow int64.
  auto lo = [](double v, int64_t n) {
    return static_cast<int64_t>(std::floor(std::clamp(v, -1.0, static_cast<double>(n))));
  };
  auto hi = [](double v, int64_t n) {
    return static_cast<int64_t>(std::ceil(std::clamp(v, -1.0, static_cast<double>(n))));
  };
  b.x0 = std::max<int64_t>(0, lo(std::min(s.x0, s.x1) - s.radius, nx));
  b.x1 = std::min<int64_t>(nx - 1, hi(std::max(s.x0, s.x1) + s.radius, nx));
  b.y0 = std::max<int64_t>(0, lo(std::min(s.y0, s.y1) - s.radius, ny));
  b.y1 = std::min<int64_t>(ny - 1, hi(std::max(s.y0, s.y1) + s.radius, ny));
  return b;
}

void apply_stroke_cpu(std::vector<float>& field, int64_t nx, int64_t ny, const Stroke& s) {
  const CellBox b = stroke_box(s, nx, ny);
  if (b.empty()) return;
  const auto r2 = static_cast<float>(s.radius * s.radius);
  for (int64_t y = b.y0; y <= b.y1; ++y)
    for (int64_t x = b.x0; x <= b.x1; ++x)
      if (segment_dist2(static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f, static_cast<float>(s.x0),
                        static_cast<float>(s.y0), static_cast<float>(s.x1), static_cast<float>(s.y1)) <= r2)
        field[static_cast<size_t>(y * nx + x)] = s.value;
}

void apply_brush_cpu(std::vector<float>& field, int64_t nx, int64_t ny, const Brush& b) {
  apply_stroke_cpu(field, nx, ny, Stroke{b.cx, b.cy, b.cx, b.cy, b.radius, b.value});
}

namespace {

// One row of the stencil, columns [0, cx) (cx <= nx); columns from cx on keep their value (no thread of a
// too-small grid computes them). Interior columns need no bounds checks; the edge columns use the boundary
// rule.
inline void step_row(const float* in, float* out, const Params& p, int64_t y, int64_t cx) {
  const int64_t nx = p.nx, ny = p.ny;
  const float r = p.r();
  const bool fixed = p.boundary == Boundary::Fixed;
  const float bt = p.boundary_temp;
  const float* row = in + y * nx;
  const float* up = y > 0 ? in + (y - 1) * nx : nullptr;
  const float* down = y + 1 < ny ? in + (y + 1) * nx : nullptr;
  float* o = out + y * nx;
  auto north = [&](int64_t x) { return up ? up[x] : (fixed ? bt : row[x]); };
  auto south = [&](int64_t x) { return down ? down[x] : (fixed ? bt : row[x]); };
  auto edge = [&](int64_t x) {
    const float c = row[x];
    const float w = x > 0 ? row[x - 1] : (fixed ? bt : c);
    const float e = x + 1 < nx ? row[x + 1] : (fixed ? bt : c);
    o[x] = stencil_update(c, w, e, north(x), south(x), r);
  };
  if (cx <= 0) {
    std::copy(row, row + nx, o);
    return;
  }
  edge(0);
  // Interior columns 1 .. end-1: with full coverage the last column is an edge, otherwise column cx-1 has an
  // east neighbour inside the field.
  const int64_t end = cx < nx ? cx : nx - 1;
  if (up && down) {
    for (int64_t x = 1; x < end; ++x)
      o[x] = stencil_update(row[x], row[x - 1], row[x + 1], up[x], down[x], r);
  } else {
    for (int64_t x = 1; x < end; ++x)
      o[x] = stencil_update(row[x], row[x - 1], row[x + 1], north(x), south(x), r);
  }
  if (cx >= nx) {
    if (nx > 1) edge(nx - 1);
  } else {
    std::copy(row + cx, row + nx, o + cx);
  }
}

void step_rows(const float* in, float* out, const Params& p, CpuMode mode, int64_t cx, int64_t cy) {
  if (mode == CpuMode::OneThread) {
    for (int64_t y = 0; y < p.ny; ++y)
      if (y < cy)
        step_row(in, out, p, y, cx);
      else
        std::copy(in + y * p.nx, in + (y + 1) * p.nx, out + y * p.nx);
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < p.ny; ++y)
      if (y < cy)
        step_row(in, out, p, y, cx);
      else
        std::copy(in + y * p.nx, in + (y + 1) * p.nx, out + y * p.nx);
  }
}

}  // namespace

void step_cpu(const float* in, float* out, const Params& p, CpuMode mode) {
  step_rows(in, out, p, mode, p.nx, p.ny);
}

void step_cpu(const float* in, float* out, const Params& p, CpuMode mode, const Coverage& covered) {
  step_rows(in, out, p, mode, std::clamp<int64_t>(covered.covered_x, 0, p.nx),
            std::clamp<int64_t>(covered.covered_y, 0, p.ny));
}

void run_cpu(std::vector<float>& field, const Params& p, int steps, CpuMode mode, JobControl* ctl) {
  std::vector<float> tmp(field.size());
  for (int s = 0; s < steps; ++s) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    step_cpu(field.data(), tmp.data(), p, mode);
    field.swap(tmp);
    if (ctl) ctl->set_progress(static_cast<double>(s + 1) / steps);
  }
}

double total_heat(const std::vector<float>& field) {
  return std::accumulate(field.begin(), field.end(), 0.0, [](double a, float b) { return a + b; });
}

BenchRow bench_cpu(const Params& p, CpuMode mode, int steps, JobControl* ctl) {
  BenchRow row;
  row.variant = cpu_mode_label(mode);
  row.device = "CPU";
  row.steps = steps;
  std::vector<float> field = make_initial(p, InitialPattern::HotSpots);
  std::vector<float> tmp(field.size());
  step_cpu(field.data(), tmp.data(), p, mode);  // warm-up: first touch of the pages, thread pool start
  std::vector<double> per_step;
  per_step.reserve(static_cast<size_t>(steps));
  for (int s = 0; s < steps; ++s) {
    if (ctl && ctl->cancelled()) throw JobCancelled{};
    const auto t0 = std::chrono::steady_clock::now();
    step_cpu(field.data(), tmp.data(), p, mode);
    const auto t1 = std::chrono::steady_clock::now();
    field.swap(tmp);
    per_step.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (ctl) ctl->set_progress(static_cast<double>(s + 1) / steps);
  }
  const Summary sum = summarize(per_step);
  row.ms_per_step = sum.median;
  row.p10 = sum.p10;
  row.p90 = sum.p90;
  row.mcells_per_s = p.cells() / (sum.median * 1e-3) / 1e6;
  row.gb_per_s = 8.0 * p.cells() / (sum.median * 1e-3) / 1e9;
  return row;
}

}  // namespace bs::heat
