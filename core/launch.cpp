// launch.cpp: launch-configuration arithmetic and validation (see launch.h).
#include "core/launch.h"

#include <algorithm>
#include <charconv>

#include "core/text.h"

namespace bs {

Dim2 covering_grid(Dim2 block, Dim2 domain) {
  if (block.x <= 0 || block.y <= 0 || domain.x <= 0 || domain.y <= 0) return {0, 0};
  return {ceil_div(domain.x, block.x), ceil_div(domain.y, block.y)};
}

namespace {
// a * b, saturated to INT64_MAX / INT64_MIN instead of overflowing (signed overflow is undefined behaviour).
int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}
}  // namespace

Coverage coverage_of(Dim2 grid, Dim2 block, Dim2 domain) {
  Coverage c;
  c.covered_x = std::clamp<int64_t>(saturating_mul(grid.x, block.x), 0, std::max<int64_t>(domain.x, 0));
  c.covered_y = std::clamp<int64_t>(saturating_mul(grid.y, block.y), 0, std::max<int64_t>(domain.y, 0));
  c.uncovered_cells = saturating_mul(std::max<int64_t>(domain.x, 0), std::max<int64_t>(domain.y, 0)) -
                      c.covered_x * c.covered_y;
  return c;
}

std::string to_string(Dim2 d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y);
}

namespace {

constexpr const char* k_largest_x = ", the largest x a block may have on this device";
constexpr const char* k_largest_y = ", the largest y a block may have on this device";

// "<what> = v > limit<why>" when v is above the device's limit for it.
std::optional<std::string> above_limit(const char* what, int64_t v, int64_t limit, const char* why) {
  if (v <= limit) return std::nullopt;
  return std::string(what) + " = " + std::to_string(v) + " > " + std::to_string(limit) + why;
}

}  // namespace

std::optional<std::string> validate_block(Dim2 block, const DeviceLimits& lim) {
  if (block.x <= 0 || block.y <= 0)
    return "block " + to_string(block) + " is empty: blockDim.x and blockDim.y must be at least 1";
  // The product is formed only when it cannot overflow: a factor above the limit already breaks the rule.
  int64_t threads = 0;
  if (__builtin_mul_overflow(block.x, block.y, &threads))
    return "x*y = " + std::to_string(block.x) + "*" + std::to_string(block.y) + " > " +
           std::to_string(lim.max_threads_per_block) + " threads per block, the most one block may hold";
  if (threads > lim.max_threads_per_block)
    return "x*y = " + std::to_string(block.x) + "*" + std::to_string(block.y) + " = " +
           std::to_string(threads) + " > " + std::to_string(lim.max_threads_per_block) +
           " threads per block, the most one block may hold";
  if (auto e = above_limit("blockDim.x", block.x, lim.max_block_x, k_largest_x)) return e;
  return above_limit("blockDim.y", block.y, lim.max_block_y, k_largest_y);
}

std::optional<std::string> validate_grid(Dim2 grid, const DeviceLimits& lim) {
  if (grid.x <= 0 || grid.y <= 0)
    return "grid " + to_string(grid) + " is empty: gridDim.x and gridDim.y must be at least 1";
  if (auto e = above_limit("gridDim.x", grid.x, lim.max_grid_x, ", the device's limit")) return e;
  return above_limit("gridDim.y", grid.y, lim.max_grid_y,
                     ", the device's limit for y (use x for long 1-D grids)");
}

std::optional<std::string> block_advice(Dim2 block, const DeviceLimits& lim) {
  if (validate_block(block, lim) || lim.warp_size <= 0) return std::nullopt;  // advice only for legal blocks
  if (block.count() % lim.warp_size != 0) {
    const int64_t warps = ceil_div(block.count(), lim.warp_size);
    return std::to_string(block.count()) + " threads per block is not a multiple of the warp size (" +
           std::to_string(lim.warp_size) + "): " + count_of(warps, "warp") + " run, " +
           count_of(warps * lim.warp_size - block.count(), "lane") + " idle in every block";
  }
  return std::nullopt;
}

namespace {
std::optional<int64_t> parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

ParsedDim2 parse_dim2(std::string_view text, std::string_view what) {
  ParsedDim2 r;
  const auto sep = text.find_first_of("xX");
  auto x = parse_int(text.substr(0, sep));
  std::optional<int64_t> y = int64_t{1};
  if (sep != std::string_view::npos) y = parse_int(text.substr(sep + 1));
  if (!x || !y) {
    r.error = std::string(what) + ": '" + printable(text) +
              "' is not of the form XxY (two whole numbers, e.g. 32x8)";
    return r;
  }
  r.value = Dim2{*x, *y};
  return r;
}

ParsedDim2 parse_size2(std::string_view text, std::string_view what) {
  ParsedDim2 r = parse_dim2(text, what);
  if (r.value && text.find_first_of("xX") == std::string_view::npos) r.value->y = r.value->x;
  return r;
}

}  // namespace bs
