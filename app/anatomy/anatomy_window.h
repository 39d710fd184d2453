// anatomy_window.h: the kernel-anatomy glue a lab (heat, matmul) owns: the field overlay (colour every cell
// by blockIdx, threadIdx, warp, the SM that ran its block, or the block's run time; key O cycles), and the
// "Anatomy" window (key A) with the block scheduling timeline of an instrumented run and the occupancy panel
// with its measured block-size sweep. The lab says each frame which kernel and launch it runs; this class
// records, computes and draws. The instrumented run only explains scheduling: it is never used for timing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/lab.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/overlay.h"
#include "gpu/anatomy/reduce_anatomy.h"
#include "core/cpu_job.h"
#include "gpu/heat/heat.h"
#include "gpu/matmul/matmul.h"
#include "gpu/reduce/reduce.h"
#include "ui/anatomy/anatomy_panel.h"

namespace bs {
class StateReader;  // app/session.h
}  // namespace bs

namespace bs {

// The kernel a lab runs now.
struct HeatAnatomyTarget {
  heat::Params params;
  Dim2 block{32, 8};
  Dim2 grid{1, 1};
  int cells_per_thread = 1;
};
struct MatmulAnatomyTarget {
  matmul::Problem problem;
  matmul::Variant variant{};
};
// The reduction lab: a 1-D array, no field image; the map is the array as a strip (reduce_anatomy.h).
struct ReduceAnatomyTarget {
  reduce::Params params;
};
using AnatomyTarget = std::variant<HeatAnatomyTarget, MatmulAnatomyTarget, ReduceAnatomyTarget>;

// Kernel time against threads per block for the occupancy curve (GPU; run on a worker thread). Heat: block
// shapes 32 x (threads / 32), 32..1024 threads, ms per step; matmul: the shared-memory tile kernels at 8x8,
// 16x16 and 32x32 threads (the same algorithm), ms per launch. Throws JobCancelled when `ctl` cancels.
struct BlockSizeTimes {
  std::vector<double> threads, ms;
  std::string label;
};
BlockSizeTimes measure_block_sizes(const AnatomyTarget& t, JobControl& ctl);

// A recorded launch, whichever lab it came from.
struct AnatomyRecord {
  std::string title;  // "instrumented heat stencil 1024x1024, block 64x4, 8 cells/thread on NVIDIA H100"
  std::string kernel_note;  // which kernel the SM / time colours came from
  Dim2 grid;
  std::vector<anatomy::BlockRecord> blocks;
  int sm_count = 0;
  int blocks_per_sm = 1;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor of the instrumented kernel
  anatomy::Timeline timeline;
  std::optional<reduce::KernelShape> array_shape;  // reduce: the recorded launch's shape (the array map's)
};

// The mapping of a target (pure; tests use it). nullopt for cuBLAS and the reduce lab (a 1-D array: see
// anatomy_array_shape).
std::optional<anatomy::CellMapping> anatomy_mapping(const AnatomyTarget& t);
// Reduce targets: the launch shape the array map draws (the device's when `device` is available, else the
// model's H100); nullopt for other targets and CUB.
std::optional<reduce::KernelShape> anatomy_array_shape(const AnatomyTarget& t, const DeviceInfo& device);
// Records `t` on the GPU (throws bs::GpuError without one, bs::InvalidRequest when the kernel has no
// instrumented copy).
AnatomyRecord record_anatomy(const AnatomyTarget& t);

class AnatomyWindow {
 public:
  explicit AnatomyWindow(LabEnv& env);
  ~AnatomyWindow();
  AnatomyWindow(const AnatomyWindow&) = delete;
  AnatomyWindow& operator=(const AnatomyWindow&) = delete;

  // --- From the lab's draw_ui() ---
  // The current kernel and launch; cheap when unchanged (a change drops the record and the overlay).
  void set_target(const AnatomyTarget& t, int64_t field_nx, int64_t field_ny);
  // O: next overlay mode; A: open/close the Anatomy window (ignored while typing into a field).
  void handle_keys();
  // The overlay on the field image (drawn over it, with its origin and size in screen pixels) and the hover
  // read-out for the cell under the mouse.
  void draw_on_field(ImVec2 image_min, ImVec2 image_size, std::optional<double> cell_x,
                     std::optional<double> cell_y);
  // "Anatomy" section for the lab's panel: overlay combo, legend, Anatomy... button (reduce: the array map's
  // mode, a small map and its legend).
  void draw_controls();
  // The Anatomy window itself (when open).
  void draw_window();

  // --- From the lab's update() (GPU work and GL uploads happen here) ---
  void update();
  void abandon_gpu() noexcept;

  anatomy::OverlayMode mode() const { return m_mode; }
  anatomy::ArrayMapMode array_mode() const { return m_array_mode; }
  void set_array_mode(anatomy::ArrayMapMode m);
  bool has_record() const { return m_record.has_value(); }
  const std::string& record_error() const { return m_record_error; }
  // Sessions: the overlay mode under `key` ("off", "blockidx", ..., "time"). check_state validates it
  // (without a lab); load_state applies it after the lab's own state loaded.
  static void check_state(StateReader& r, const char* key);
  void save_state(nlohmann::json& j, const char* key) const;
  void load_state(const nlohmann::json& j, const char* key);
  void set_mode(anatomy::OverlayMode m);
  // Reduce targets: the array map's colour mode under `map_key` ("blockidx", "sm", "start", "time") and
  // whether the Anatomy window is open under `window_key` (true / false).
  static void check_array_state(StateReader& r, const char* map_key, const char* window_key);
  void save_array_state(nlohmann::json& j, const char* map_key, const char* window_key) const;
  void load_array_state(const nlohmann::json& j, const char* map_key, const char* window_key);
  bool window_open() const { return m_open; }
  void set_window_open(bool open) { m_open = open; }
  // True while the block-size sweep runs on the GPU: the lab pauses its own GPU work so that it does not
  // disturb the measurement.
  bool sweeping() const;
  const anatomy::OverlayImage& overlay() const { return m_image; }

 private:
  bool gpu() const;
  bool reduce_target() const { return m_target && std::holds_alternative<ReduceAnatomyTarget>(*m_target); }
  void rebuild_overlay();
  // The strip image of a reduce target, `size` pixels, with the hover read-out of the chunk under the mouse.
  void draw_array_map(ImVec2 size);
  void array_mode_combo(const char* label);  // the array map's colour mode (reduce targets)
  void anatomy_button();                     // opens / closes the Anatomy window
  void refresh_occupancy();
  void start_sweep();
  void poll_sweep();

  LabEnv& m_env;
  std::optional<AnatomyTarget> m_target;
  std::optional<anatomy::CellMapping> m_mapping;
  std::optional<reduce::KernelShape> m_array_shape;  // reduce targets
  anatomy::ArrayMapMode m_array_mode = anatomy::ArrayMapMode::Block;
  int64_t m_nx = 0, m_ny = 0;
  anatomy::OverlayMode m_mode = anatomy::OverlayMode::Off;
  float m_alpha = 0.7f;
  bool m_open = false;

  bool m_overlay_dirty = true;
  anatomy::OverlayImage m_image;
  unsigned m_texture = 0;
  bool m_texture_stale = true;

  std::optional<AnatomyRecord> m_record;
  bool m_record_requested = false;
  int m_frames_unchanged = 0;  // frames since the launch last changed
  std::string m_record_error;
  ui::TimelineViewState m_timeline_view;
  std::string m_png_status;

  bool m_occupancy_dirty = true;
  ui::OccupancyPanelModel m_occ;
  ui::OccupancyPanelActions m_occ_actions;

  CpuJob m_sweep;
  std::shared_ptr<BlockSizeTimes> m_sweep_result;
  bool m_sweep_collected = true;
};

}  // namespace bs
