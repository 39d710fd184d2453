// anatomy_window.h: the kernel-anatomy glue a lab owns: the field overlay (colour every cell by blockIdx,
// threadIdx, warp, the SM that ran its block, or the block's run time; key O cycles) or, for a 1-D kernel,
// the array map; and the "Anatomy" window (key A) with the block scheduling timeline of an instrumented run
// and the occupancy panel with its measured block-size sweep. The lab says each frame which kernel and
// launch it runs (its AnatomyTarget, app/anatomy/anatomy_target.h); this class records, computes and draws.
// The instrumented run only explains scheduling: it is never used for timing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/anatomy/anatomy_target.h"
#include "app/lab.h"
#include "core/cpu_job.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/array_map.h"
#include "gpu/anatomy/overlay.h"
#include "ui/anatomy/anatomy_panel.h"

namespace bs {
class StateReader;  // app/session.h
}  // namespace bs

namespace bs {

class AnatomyWindow {
 public:
  explicit AnatomyWindow(LabEnv& env);
  ~AnatomyWindow();
  AnatomyWindow(const AnatomyWindow&) = delete;
  AnatomyWindow& operator=(const AnatomyWindow&) = delete;

  // --- From the lab's draw_ui() ---
  // The current kernel and launch (on an nx x ny field; 0 x 0 for an array target); cheap when unchanged (a
  // change drops the record and the overlay).
  void set_target(const AnatomyTarget& t, int64_t field_nx, int64_t field_ny);
  // O: next overlay mode; A: open/close the Anatomy window (ignored while typing into a field).
  void handle_keys();
  // The overlay on the field image (drawn over it, with its origin and size in screen pixels) and the hover
  // read-out for the cell under the mouse.
  void draw_on_field(ImVec2 image_min, ImVec2 image_size, std::optional<double> cell_x,
                     std::optional<double> cell_y);
  // "Anatomy" section for the lab's panel: overlay combo, legend, Anatomy... button (array targets: the
  // array map's mode, a small map and its legend).
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
  // Array targets: the array map's colour mode under `map_key` ("blockidx", "sm", "start", "time") and
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
  bool array_target() const { return m_target && m_target->is_array(); }
  void rebuild_overlay();
  // The strip image of an array target, `size` pixels, with the hover read-out of the chunk under the mouse.
  void draw_array_map(ImVec2 size);
  void array_mode_combo(const char* label);  // the array map's colour mode (array targets)
  void anatomy_button();                     // opens / closes the Anatomy window
  void refresh_occupancy();
  void draw_array_controls();  // draw_controls() for array targets
  void draw_legend(bool categorical, int period, bool needs_record);
  void start_sweep();
  void poll_sweep();

  LabEnv& m_env;
  std::shared_ptr<const AnatomyTarget> m_target;
  std::optional<anatomy::CellMapping> m_mapping;
  std::optional<anatomy::ArrayLaunch> m_array_shape;  // array targets
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
