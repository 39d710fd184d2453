// multigpu_panel.h: the Multi-GPU lab's ImGui side: the device picker (which GPUs compute, which GPU draws),
// the heat field with its row slabs and halos drawn over it, per-GPU timings and the share of time spent
// exchanging, Monte Carlo across GPUs, and the strong / weak scaling plots (live and exported like every
// figure). It edits a model and reports actions; the lab (app/multigpu/multigpu_lab.cpp) acts on them. Pure
// C++ and ImGui, no CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/multigpu/decomposition.h"
#include "gpu/multigpu/scaling.h"
#include "ui/figure.h"

namespace bs::ui::mg {

enum class Workload { Heat, MonteCarlo };
enum class Transport { Auto, Virtual };

// --- Pure helpers (tested) ---------------------------------------------------------------------------------

// One slab as the view draws it over an image of `image_h` pixels for `ny` rows: its owned rows and the halo
// rows it keeps of each neighbour, in pixels from the image's top.
struct SlabBand {
  int slab = 0;
  float owned_y0 = 0, owned_y1 = 0;
  float halo_top_y0 = 0, halo_bottom_y1 = 0;  // halo_top_y0 .. owned_y0 and owned_y1 .. halo_bottom_y1
};
std::vector<SlabBand> slab_bands(const std::vector<multigpu::Slab>& slabs, int64_t ny, float image_h);

// The devices the computation runs on: the ticked ones (auto: the first `gpus` of them; virtual: `gpus` slabs
// on the first ticked one). Empty when none is ticked.
struct PickerDevice {
  int index = 0;
  std::string name;
  double memory_gib = 0;
  int sm_count = 0;
  std::vector<int> peers;
  bool ticked = false;
};
std::vector<int> compute_devices(const std::vector<PickerDevice>& devices, Transport t, int gpus);

// The share of a round spent exchanging halos: exchange time over exchange plus the round's compute time
// (halo steps). With overlap on, part of it is hidden behind the interior update.
double exchange_share(double exchange_ms, double step_ms, int halo);

// --- Model and actions -------------------------------------------------------------------------------------

struct SlabStat {
  multigpu::Slab slab;
  int device = 0;
  double step_ms = 0;      // compute stream per step
  double exchange_ms = 0;  // communication stream per exchange
};

struct McRun {
  int gpus = 1;
  bool gpu = true;  // false: the CPU ran it (no GPU)
  double price = 0, std_error = 0, ms = 0;
  std::vector<double> rank_ms;
  std::string same;  // "identical to 1 GPU", "DIFFERS from 1 GPU", "" for the first
};

struct PanelModel {
  PanelModel();  // every parameter from the schema's defaults (ui/multigpu/multigpu_schema.h)

  // Parameters.
  Workload workload = Workload::Heat;
  Transport transport = Transport::Auto;
  int gpus = 2;
  int64_t nx = 2048, ny = 2048;
  int halo = 0;  // 0: the bandwidth model's choice (with the overlap)
  bool overlap = true;
  int steps_per_frame = 10;
  int64_t paths = 0;
  int mc_steps = 256;
  int64_t scaling_nx = 16384, scaling_ny = 16384;
  bool paused = false;

  // Devices, what draws, how the field reaches GL.
  std::vector<PickerDevice> devices;
  std::string no_gpu;          // why there is no GPU ("" when there is one)
  std::string draws_on;        // "GL draws on GPU 0 (NVIDIA H100 80GB HBM3)"
  std::string transport_text;  // "NCCL 2.28.3, 2 GPUs", "virtual: 3 slabs on GPU 0 (not a scaling figure)"
  std::string field_path;      // "slabs -> host -> GL (host copy)"
  std::string notice;          // e.g. "this machine has 1 GPU: ..."
  std::string error;           // the last refused parameter or failed run
  // What the live field runs with: halo and overlap as set, or the model's choice (halo 0), said in plan_text.
  int halo_used = 1;
  bool overlap_used = true;
  std::string plan_text;  // "model: 8 steps per exchange, overlapped (model: 0.2 ms/step ...)"; "" when set

  // Live heat.
  std::vector<SlabStat> slabs;
  int64_t steps_done = 0;
  double ms_per_step = 0;  // host clock per frame's steps

  // Monte Carlo runs, newest last.
  std::vector<McRun> mc_runs;

  // Scaling.
  std::vector<multigpu::ScalingRow> strong, weak;
  std::string scaling_what, scaling_subtitle;
  bool job_running = false;
  double job_progress = 0;
  std::string job_label, job_status;

  // View.
  unsigned texture = 0;
  float range_min = 0, range_max = 1;
  int colormap = 0;
};

struct Actions {
  bool params_changed = false;  // anything that rebuilds the slabs (size, GPUs, transport, halo, overlap)
  bool reset = false;
  bool toggle_pause = false;
  bool price_mc = false;
  bool run_strong = false, run_weak = false;
  bool cancel_job = false;
  int view_w = 0, view_h = 0;  // image size the view wants
};

// The figures the panel shows and exports.
fig::Figure strong_figure(const PanelModel& m);
fig::Figure weak_figure(const PanelModel& m);

void draw_multigpu_panel(PanelModel& m, Actions& a);
void draw_multigpu_view(PanelModel& m, Actions& a);

}  // namespace bs::ui::mg
