// launch.h: launch configurations (block and grid shapes), their validation against a device's limits with
// messages a student can act on, and parsing of "32x8"-style arguments. Pure C++: ui/ and app/ include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bs {

struct Dim2 {
  int64_t x = 1;
  int64_t y = 1;
  friend bool operator==(const Dim2&, const Dim2&) = default;
  // x * y; callers multiply only validated shapes (validate_block / validate_grid bound both factors).
  int64_t count() const { return x * y; }
};

// The per-block and per-grid limits that decide whether a launch is legal. Defaults are those of every GPU
// from compute capability 3.0 on; DeviceInfo fills in the real values.
struct DeviceLimits {
  int64_t max_threads_per_block = 1024;
  int64_t max_block_x = 1024;
  int64_t max_block_y = 1024;
  int64_t max_grid_x = 2147483647;
  int64_t max_grid_y = 65535;
  int warp_size = 32;
};

// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b near INT64_MAX.
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// The grid that covers `domain` with blocks of `block` (ceil-division; an empty domain gives an empty grid).
Dim2 covering_grid(Dim2 block, Dim2 domain);

// How much of `domain` a launch covers, assuming the kernel maps thread (x, y) to cell (x, y).
struct Coverage {
  int64_t covered_x = 0;
  int64_t covered_y = 0;
  int64_t uncovered_cells = 0;
  bool full() const { return uncovered_cells == 0; }
};
Coverage coverage_of(Dim2 grid, Dim2 block, Dim2 domain);

// std::nullopt when legal, otherwise a message that states the rule that was broken, e.g.
// "block 64x32 has 2048 threads; a block holds at most 1024 threads (x*y <= 1024)".
std::optional<std::string> validate_block(Dim2 block, const DeviceLimits& limits);
std::optional<std::string> validate_grid(Dim2 grid, const DeviceLimits& limits);
// A legal but wasteful choice (threads per block not a multiple of the warp size): advice, not an error.
std::optional<std::string> block_advice(Dim2 block, const DeviceLimits& limits);

// Parses "32x8" (or "256" for a 1-D shape, giving y = 1). Returns an error message naming `what` on failure.
struct ParsedDim2 {
  std::optional<Dim2> value;
  std::string error;
};
ParsedDim2 parse_dim2(std::string_view text, std::string_view what);

// Parses a problem size: "1000x777", or "1000" meaning 1000x1000.
ParsedDim2 parse_size2(std::string_view text, std::string_view what);

std::string to_string(Dim2 d);

}  // namespace bs
