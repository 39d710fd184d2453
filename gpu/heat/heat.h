// heat.h: the 2D heat-diffusion workload's host interface (pure C++; ui/ and app/ include it).
// Explicit 5-point stencil, float32, ping-pong buffers:
//   u'(x,y) = u + r * (u(x-1,y) + u(x+1,y) + u(x,y-1) + u(x,y+1) - 4u),  r = alpha * dt / dx^2 <= 1/4.
// Boundaries: Fixed holds a ring of ghost cells outside the grid at `boundary_temp` (Dirichlet); Insulated
// mirrors the edge cell (zero flux, Neumann), so total heat is conserved.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_job.h"
#include "core/enum_names.h"
#include "core/launch.h"
#include "gpu/common/host_baseline.h"
#include "gpu/heat/temporal.h"

namespace bs::heat {

enum class Boundary { Fixed, Insulated };
// The names files and sessions use.
inline constexpr auto k_boundary_names =
    enum_names<Boundary>({{Boundary::Fixed, "fixed"}, {Boundary::Insulated, "insulated"}});

constexpr int64_t k_min_size = 1;
constexpr int64_t k_ui_min_size = 64;
constexpr int64_t k_max_size = 8192;

struct Params {
  int64_t nx = 1024;
  int64_t ny = 1024;
  float alpha = 1.0f;  // diffusivity
  float dx = 1.0f;     // cell size
  float dt = 0.2f;     // time step
  Boundary boundary = Boundary::Fixed;
  float boundary_temp = 0.0f;

  float r() const { return alpha * dt / (dx * dx); }
  int64_t cells() const { return nx * ny; }
};

// The stability limit of the explicit scheme: dt <= dx^2 / (4 alpha).
float max_stable_dt(float alpha, float dx);
// nullopt when the parameters can run; otherwise a message (size range, stability limit, positive alpha/dx).
std::optional<std::string> validate(const Params& p);

// Initial fields. Never all zeros: tests and timings on zeros prove nothing.
enum class InitialPattern { HotSpots, Gaussian, Noise };
inline constexpr auto k_pattern_names = enum_names<InitialPattern>({{InitialPattern::HotSpots, "hot-spots"},
                                                                    {InitialPattern::Gaussian, "gaussian"},
                                                                    {InitialPattern::Noise, "noise"}});
std::vector<float> make_initial(const Params& p, InitialPattern pattern, uint32_t seed = 1);
// A centred Gaussian bump exp(-r^2 / (2 sigma^2)) * amplitude (cell units), used by the analytic test.
std::vector<float> make_gaussian(const Params& p, double sigma_cells, double amplitude);

// Sets the cells within a disc to `value`: used for painting with the mouse.
struct Brush {
  double cx = 0, cy = 0;  // cell coordinates
  double radius = 8;
  float value = 1.0f;  // target temperature
};
void apply_brush_cpu(std::vector<float>& field, int64_t nx, int64_t ny, const Brush& b);
// A drag between two frames' mouse positions: every cell whose centre lies within `radius` of the segment
// (x0, y0)-(x1, y1) (a capsule) is set to `value`, so a fast drag leaves a continuous stroke, not dots. A
// stroke with both ends equal is the disc of a Brush.
struct Stroke {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // cell coordinates
  double radius = 8;
  float value = 1.0f;
};
void apply_stroke_cpu(std::vector<float>& field, int64_t nx, int64_t ny, const Stroke& s);
// The cells a stroke can touch, clipped to the field: [x0, x1] x [y0, y1]; empty when x1 < x0 or y1 < y0.
struct CellBox {
  int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;
  bool empty() const { return x1 < x0 || y1 < y0; }
};
CellBox stroke_box(const Stroke& s, int64_t nx, int64_t ny);

// Coarsening: each thread computes `cells_per_thread` cells down its column (1, 2, 4 or 8). The region one
// block covers is then block.x by block.y * cells_per_thread cells.
constexpr int k_cells_per_thread_choices[] = {1, 2, 4, 8};
// The launch the app, the sweeps, the bench and GpuSolver start from (ui/heat/heat_schema.cpp publishes it):
// on an H100 at 8192^2, 64x4 blocks with 8 cells per thread reach 99.6% of the copy kernel's bandwidth, 1
// cell per thread 72% (docs/PERFORMANCE.md); 256x1 and 128x2 are within noise of 64x4.
constexpr Dim2 k_default_block{64, 4};
constexpr int k_default_cells_per_thread = 8;
std::optional<std::string> validate_cells_per_thread(int c);
inline Dim2 cells_of(Dim2 block, int cells_per_thread) {
  return {block.x, block.y * cells_per_thread};
}

// --- CPU baselines
// ----------------------------------------------------------------------------------------------
// CPU mode, its label and thread count: gpu/common/host_baseline.h.
using bs::CpuMode;
using bs::cpu_mode_label;
using bs::cpu_thread_count;

// One step from `in` to `out` (each nx*ny floats).
void step_cpu(const float* in, float* out, const Params& p, CpuMode mode);
// One step that computes only the cells a launch covers (x < covered.covered_x, y < covered.covered_y), as
// the GPU kernel does with a hand-set grid that is too small: the other cells keep their value from `in`, and
// covered cells next to them read those values as neighbours. `covered` comes from coverage_of(grid,
// cells_of(block, cells_per_thread), {nx, ny}), the rule GpuSolver::coverage() uses.
void step_cpu(const float* in, float* out, const Params& p, CpuMode mode, const Coverage& covered);
// `steps` steps in place on `field` (ping-pong internally). Reports progress and honours cancel via `ctl`.
void run_cpu(std::vector<float>& field, const Params& p, int steps, CpuMode mode, JobControl* ctl = nullptr);

double total_heat(const std::vector<float>& field);

// --- GPU solver
// -------------------------------------------------------------------------------------------------- Owns the
// device buffers and a stream. All methods throw bs::GpuError on CUDA failure and bs::InvalidRequest on a
// launch configuration the device cannot run.
class GpuSolver {
 public:
  explicit GpuSolver(const Params& p);
  ~GpuSolver();
  GpuSolver(const GpuSolver&) = delete;
  GpuSolver& operator=(const GpuSolver&) = delete;

  const Params& params() const;
  // Changes physics parameters of the same size (dt, alpha, boundary) without touching the field.
  void set_physics(const Params& p);
  void upload(const std::vector<float>& field);
  std::vector<float> download();

  // block: any shape the device accepts. cells_per_thread (1, 2, 4, 8): each thread computes that many cells
  // down its column. grid: nullopt = covering grid (ceil-div); a smaller grid leaves cells that no thread
  // computes (they keep their old values, and the renderer marks them). Waits for the steps already queued
  // and drops their timings, so that poll_step_ms() reports only batches run with the new launch.
  void set_launch(Dim2 block, std::optional<Dim2> grid = std::nullopt,
                  int cells_per_thread = k_default_cells_per_thread);
  Dim2 block() const;
  Dim2 grid() const;
  int cells_per_thread() const;
  Coverage coverage() const;

  // A step kernel that replaces the built-in one (the kernel lab's user heat_step): called once per step
  // with the field to read, the field to write, the grid and block in force and the solver's stream
  // (cudaStream_t); it throws bs::GpuError for its faults. Everything else (buffers, timing, painting, the
  // field drawn through interop) stays the solver's. Set with cells_per_thread 1 (one thread per cell, as
  // the contract says). Waits for queued steps and drops their timings, as set_launch does. Empty: built-in.
  using StepOverride = std::function<void(const float* in, float* out, Dim2 grid, Dim2 block, void* stream)>;
  void set_step_override(StepOverride step);
  bool has_step_override() const;

  // Temporal blocking (temporal.h): `steps` steps per pass over memory, tiles of `shape`; 1 (the default):
  // the one-step kernel of set_launch. A batch whose step count is not a multiple ends with a shorter pass.
  // While more than one step is fused, the block, grid and cells per thread of set_launch wait (the tile
  // decides the launch; every cell is computed) and a step override runs in its place. Waits for queued steps
  // and drops their timings, as set_launch does. Throws InvalidRequest for a tile the device cannot run.
  void set_fused_steps(int steps, const TileShape& shape = k_default_tile);
  int fused_steps() const;
  TileShape tile_shape() const;
  // Whether step() runs fused passes now (more than one step fused and no step override).
  bool fused_active() const;

  // Issues `steps` steps on the solver's stream, timed with CUDA events (read later by poll_timings).
  void step(int steps);
  void paint(const Brush& b);
  void paint(const Stroke& s);
  // The value of cell (x, y) of the current field: a 4-byte copy after the work queued on the solver's
  // stream (it waits for that work). For the hover read-out, at most once per frame.
  float read_cell(int64_t x, int64_t y);
  // Per-step milliseconds of every completed batch since the last call (non-blocking).
  std::vector<double> poll_step_ms();
  void sync();

  // The current field on the device (nx*ny floats, row-major) and the stream that last wrote it; void* keeps
  // CUDA types out of this header.
  const float* device_field() const;
  void* stream_handle() const;

  // After a device reset everything the solver held is gone: forget the handles without freeing them.
  void abandon() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// --- Benchmark
// ---------------------------------------------------------------------------------------------------
struct BenchRow {
  std::string variant;  // "GPU stencil", "CPU, 1 thread", ...
  std::string device;   // GPU or CPU name
  double ms_per_step = 0;
  double p10 = 0, p90 = 0;
  double mcells_per_s = 0;
  double gb_per_s = 0;  // effective: 8 bytes per cell per step (one read, one write)
  int steps = 0;
  std::string note;
};
struct GpuBench {
  BenchRow stencil;
  double copy_gb_per_s = 0;  // device-to-device copy kernel over the same bytes, same run
  double copy_ms = 0;
};
// Times `steps` GPU steps per repetition (after warm-up), and a float4 copy kernel of the same footprint.
GpuBench bench_gpu(const Params& p, Dim2 block, int steps, int repetitions = 7,
                   int cells_per_thread = k_default_cells_per_thread);
// Temporal blocking: `steps` (rounded down to whole passes, at least one) fused steps per repetition, after
// warm-up; rates per useful cell update, GB/s the one-step equivalent (8 bytes per update).
struct TemporalBench {
  BenchRow row;
  TemporalTile tile;
  TemporalCost cost;
};
TemporalBench bench_temporal(const Params& p, const TemporalTile& t, int steps, int repetitions = 7);
BenchRow bench_cpu(const Params& p, CpuMode mode, int steps, JobControl* ctl = nullptr);

}  // namespace bs::heat
