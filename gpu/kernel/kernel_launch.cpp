// kernel_launch.cpp: the pure parts of kernel_runner.h: launch checks, fault messages, occupancy arithmetic
// (no CUDA: they run and are tested without a GPU).
#include <cstdio>

#include "gpu/kernel/kernel_runner.h"

namespace bs::kernel {

namespace {

const char* domain_word(Target t) {
  switch (t) {
    case Target::Heat:
      return "the field";
    case Target::Vector:
      return "the arrays";
    case Target::Matmul:
      return "C";
  }
  return "the data";
}

std::string dims(Dim2 d, Target t) {
  if (t == Target::Vector) return std::to_string(d.x);
  return std::to_string(d.x) + "x" + std::to_string(d.y);
}

}  // namespace

Dim2 default_grid(Target, Dim2 block, Dim2 domain) {
  return covering_grid(block, domain);
}

std::string fault_message(std::string_view kernel_name, std::string_view what) {
  std::string out = "user kernel ";
  out += kernel_name;
  out += " (";
  out += k_user_file;
  out += "): ";
  out += what;
  return out;
}

std::optional<std::string> validate_launch(Target t, Dim2 block, Dim2 grid, Dim2 domain,
                                           const DeviceLimits& limits) {
  const std::string name(contract(t).kernel_name);
  if (t == Target::Vector && (block.y != 1 || grid.y != 1))
    return name + ": the vector contract is 1-D: block " + to_string(block) + " and grid " + to_string(grid) +
           " must have y = 1";
  if (auto e = validate_block(block, limits)) return name + ": " + *e;
  if (auto e = validate_grid(grid, limits)) return name + ": " + *e;
  if (domain.x < 1 || domain.y < 1) return name + ": nothing to compute (" + dims(domain, t) + ")";
  const Coverage c = coverage_of(grid, block, domain);
  if (!c.full()) {
    const Dim2 threads{grid.x * block.x, grid.y * block.y};
    const char* unit = t == Target::Heat ? "cells" : "elements";
    return name + ": grid " + dims(grid, t) + " of " + dims(block, t) + " blocks covers " + dims(threads, t) +
           " threads but " + domain_word(t) + " is " + dims(domain, t) + ": " +
           std::to_string(c.uncovered_cells) + " " + unit + " would never be computed (grid " +
           dims(covering_grid(block, domain), t) + " covers it)";
  }
  return std::nullopt;
}

void fill_occupancy(KernelFigures& f, int block_threads, int blocks_per_sm, int max_threads_per_sm,
                    int warp_size) {
  f.block_threads = block_threads;
  f.blocks_per_sm = blocks_per_sm;
  const int warps_per_block = (block_threads + warp_size - 1) / warp_size;
  f.max_warps = max_threads_per_sm / warp_size;
  f.active_warps = blocks_per_sm * warps_per_block;
}

std::string KernelFigures::text() const {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%d regs, %d B smem, %d B local; %d blocks/SM of %d threads = %.0f%% occupancy", registers,
                static_smem_bytes, local_bytes, blocks_per_sm, block_threads, occupancy() * 100.0);
  return buf;
}

}  // namespace bs::kernel
