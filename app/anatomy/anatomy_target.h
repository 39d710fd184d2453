// anatomy_target.h: what a lab shows the anatomy tools: the kernel it runs now, as an AnatomyTarget the lab
// builds in its own folder (app/<lab>/<lab>_anatomy.*) and hands to its AnatomyWindow each frame. The target
// says how its threads own the lab's data (a field's cells: the overlay; an array's elements: the array
// map), records its instrumented run (the timeline's source, GPU), describes its kernel to the occupancy
// panel and times it across block sizes. The window and `blockscope anatomy` name no lab: they ask this.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_job.h"
#include "core/launch.h"
#include "gpu/anatomy/anatomy.h"
#include "gpu/anatomy/array_launch.h"
#include "gpu/anatomy/overlay.h"
#include "gpu/common/device_info.h"
#include "ui/anatomy/anatomy_panel.h"

namespace bs {

// Kernel time against threads per block for the occupancy curve (GPU; measured on a worker thread).
struct BlockSizeTimes {
  std::vector<double> threads, ms;
  std::string label;
};

// A recorded launch, whichever lab it came from.
struct AnatomyRecord {
  std::string title;        // "instrumented heat stencil 1024x1024, block 64x4, 8 cells/thread on NVIDIA H100"
  std::string kernel_note;  // which kernel the SM / time colours came from
  Dim2 grid;
  std::vector<anatomy::BlockRecord> blocks;
  int sm_count = 0;
  int blocks_per_sm = 1;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor of the instrumented kernel
  anatomy::Timeline timeline;
  std::optional<anatomy::ArrayLaunch> array_launch;  // array targets: the recorded launch (the array map's)
};

// Fills in the record's timeline after checking every block was recorded; throws bs::InvalidRequest when
// blocks are missing. Targets call it at the end of record().
void finish_record(AnatomyRecord& r);

// A lab's recorded launch (gpu/<lab>/<lab>_anatomy.h's record: grid, blocks, sm_count, runtime_blocks_per_sm)
// as the AnatomyRecord the window shows, its timeline built by finish_record.
template <class Record>
AnatomyRecord to_anatomy_record(const Record& r, std::string title, std::string kernel_note,
                                std::optional<anatomy::ArrayLaunch> array_launch = std::nullopt) {
  AnatomyRecord out{.title = std::move(title),
                    .kernel_note = std::move(kernel_note),
                    .grid = r.grid,
                    .blocks = r.blocks,
                    .sm_count = r.sm_count,
                    .blocks_per_sm = std::max(r.runtime_blocks_per_sm, 1),
                    .array_launch = std::move(array_launch)};
  finish_record(out);
  return out;
}

// A target's block-size sweep: `ms_of(i)` times the kernel at threads[i] for each i in order, with the
// progress after each and JobCancelled thrown before the next when `ctl` cancels.
BlockSizeTimes time_block_sizes(JobControl& ctl, std::string label, const std::vector<int>& threads,
                                const std::function<double(size_t i)>& ms_of);

// What the occupancy panel asks of a target (AnatomyTarget::describe_occupancy / measure_occupancy).
struct OccupancyQuery {
  bool gpu = false;                                  // a GPU runs the lab (else the model alone)
  DeviceInfo device;                                 // the device (when gpu)
  std::optional<anatomy::ArrayLaunch> array_launch;  // array targets: the launch the window drew
};

class AnatomyTarget {
 public:
  virtual ~AnatomyTarget() = default;
  // A copy the window keeps (and the block-size sweep reads on its worker thread).
  virtual std::shared_ptr<const AnatomyTarget> clone() const = 0;
  // The same launch as `other` (the window then keeps its record and overlay).
  virtual bool same_as(const AnatomyTarget& other) const = 0;

  // --- The image
  // Field kernels: which block and thread own each cell (the overlay). nullopt: no launch to draw.
  virtual std::optional<anatomy::CellMapping> mapping() const { return std::nullopt; }
  // Array kernels: true (the window draws the array map instead of a field overlay).
  virtual bool is_array() const { return false; }
  // Array kernels: the launch over the input on `device` (unavailable: the model's H100); nullopt: no launch
  // to map (a library picks its own).
  virtual std::optional<anatomy::ArrayLaunch> array_launch(const DeviceInfo&) const { return std::nullopt; }
  virtual int64_t array_elements() const { return 0; }
  // Why there is no launch to draw ("cuBLAS picks its own kernel: ...").
  virtual std::string no_launch_reason() const { return "this kernel has no launch shape to draw"; }

  // --- The timeline's source (GPU): records the instrumented copy of the kernel. Throws bs::GpuError
  // without a device, bs::InvalidRequest when the kernel has no instrumented copy or cannot be recorded.
  virtual AnatomyRecord record() const = 0;

  // --- The occupancy panel
  // The kernel's label, threads, shared memory and whether a block-size sweep can run (o.kernel, o.threads,
  // o.static_smem, o.dynamic_smem, o.can_sweep, o.sweep_unavailable).
  virtual void describe_occupancy(ui::OccupancyPanelModel& o, const OccupancyQuery& q) const = 0;
  // On this GPU (`arch` is the device's): registers, shared memory, the runtime's resident blocks and its
  // curve from the lab's own kernel (o.measured_regs, o.runtime_*, o.source). False: nothing measured (the
  // model stands). May throw bs::GpuError / bs::InvalidRequest (the panel says so).
  virtual bool measure_occupancy(ui::OccupancyPanelModel&, const anatomy::ArchSpec&, const OccupancyQuery&) const {
    return false;
  }
  // How the model's shared memory was found, for its source line ("estimated from the tiles").
  virtual const char* model_smem_source() const { return "estimated from the tiles"; }
  // After the model is computed: a curve of the target's own (kernels whose shared memory follows the block).
  virtual void adjust_model_curve(ui::OccupancyPanelModel&, const anatomy::ArchSpec&, const OccupancyQuery&) const {}

  // GPU, on a worker thread: kernel time against threads per block. Throws JobCancelled when `ctl` cancels.
  virtual BlockSizeTimes measure_block_sizes(JobControl& ctl) const = 0;
};

// The usual clone() and same_as() of a target type T with an operator== (CRTP).
template <class T>
class AnatomyTargetOf : public AnatomyTarget {
 public:
  std::shared_ptr<const AnatomyTarget> clone() const override {
    return std::make_shared<T>(static_cast<const T&>(*this));
  }
  bool same_as(const AnatomyTarget& other) const override {
    const auto* o = dynamic_cast<const T*>(&other);
    return o && *o == static_cast<const T&>(*this);
  }
};

}  // namespace bs
