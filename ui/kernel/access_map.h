// access_map.h: the pictures of a simulated launch (sim/sim.h, sim/trace.h) as pure data, for the kernel
// editor's Simulator tab, the CLI's --trace files and the tests (no ImGui, no GL):
//   - GPU-Puzzles-style access maps: for a thread, a warp, a block or the whole launch, which elements of each
//     buffer it read and wrote, laid out on the buffer's shape (Buffer::cols; a 1-D buffer in rows of 32
//     elements, one 128-byte line of floats per row), with the launch's problem cells marked (elements a
//     diagnostic names, output elements no thread wrote or several threads wrote);
//   - the reverse: who read and who wrote one element;
//   - per thread: instructions executed, global reads and writes (the puzzles' "score");
//   - per instruction: active lanes (divergence), sectors per request and bank conflicts (InstrStats);
//   - one warp's memory instruction as the memory lab's WarpAccess, so its lanes -> sectors / banks picture
//     (ui/memory/memory_picture.h) draws the student's own kernel.
// Everything is computed from what the Recorder kept: a launch sampled by blocks says so (SimTrace::sampled).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/memory/memory_model.h"
#include "sim/ptx.h"
#include "sim/sim.h"
#include "sim/trace.h"

namespace bs::ui {

// One finished simulated launch, as the pictures read it. `buffers` keeps the names, sizes and shapes (their
// data pointers are not read).
struct SimTrace {
  std::shared_ptr<const sim::Module> module;
  std::string kernel;
  sim::Dim3 grid, block;
  std::vector<sim::Buffer> buffers;
  sim::LaunchResult result;
  std::vector<sim::RecordedAccess> accesses;  // ordered by block (Recorder::accesses)
  std::string sampled;                        // Recorder::sampled(): "all 12 blocks", ...
  bool all_blocks = true;                     // every block was recorded (launch-wide cells are exact)

  uint64_t threads_per_block() const { return block.count(); }
  uint32_t warps_per_block() const { return static_cast<uint32_t>((block.count() + 31) / 32); }
  sim::Dim3 block_coords(uint64_t linear) const;
  sim::Dim3 thread_coords(uint32_t linear) const;
  uint64_t block_index(sim::Dim3 b) const { return b.x + uint64_t{grid.x} * (b.y + uint64_t{grid.y} * b.z); }
  uint32_t thread_index(sim::Dim3 t) const { return t.x + block.x * (t.y + block.y * t.z); }
  // The source line of instruction pc (0: none).
  int line_of(uint32_t pc) const;
};
// A trace from a recorder after the launch (the accesses are copied out of it).
SimTrace make_trace(std::shared_ptr<const sim::Module> m, std::string kernel, const sim::LaunchConfig& cfg,
                    sim::LaunchResult result, const sim::Recorder& rec);

enum class Scope { Thread, Warp, Block, Launch };
struct Selection {
  Scope scope = Scope::Thread;
  uint64_t block = 0;   // linear block index
  uint32_t thread = 0;  // linear thread in the block (Warp: any thread of the warp)
  friend bool operator==(const Selection&, const Selection&) = default;
};
// "thread (3, 0, 0) of block (1, 0, 0)", "warp 2 of block (1, 0, 0) (threads 64..95)", "block (1, 0, 0)",
// "the whole launch".
std::string selection_text(const SimTrace& t, const Selection& s);
// A file-name-safe label: "thread_3_0_0-block_1_0_0", "warp2-block_1_0_0", "block_1_0_0", "launch".
std::string selection_slug(const SimTrace& t, const Selection& s);
// Clamps block and thread into the launch.
Selection clamp_selection(const SimTrace& t, Selection s);

// Cell bits of an access map.
enum CellBits : uint8_t {
  k_cell_read = 1,        // the selection read it (atomics count as read and write)
  k_cell_write = 2,       // the selection wrote it
  k_cell_flagged = 4,     // a diagnostic names this element (out of bounds is outside: see BufferMap)
  k_cell_unwritten = 8,   // an output element no thread of the launch wrote (exact only with every block)
  k_cell_multi = 16,      // an output element several threads wrote (not atomically)
};

struct BufferMap {
  int buffer = -1;
  std::string name;
  uint64_t elements = 0;
  uint32_t cols = 32;  // elements per row as drawn (the buffer's cols, or 32 for a 1-D buffer)
  uint32_t rows = 0;
  bool two_d = false;  // the buffer has a shape of its own
  bool output = false;
  std::vector<uint8_t> cells;  // per element: CellBits
  uint64_t read_elements = 0, write_elements = 0;  // elements the selection read / wrote
  uint64_t flagged = 0, unwritten = 0, multi = 0;   // elements with those marks
  // "out: 37 x 29 floats; read 0, wrote 1" (the selection's counts)
  std::string caption() const;
};

struct AccessMaps {
  std::string title;  // selection_text
  std::vector<BufferMap> maps;
  bool recorded = true;       // the selection's block was recorded (false: the maps are empty for it)
  uint64_t outside = 0;       // lanes of the selection whose global access fell outside every buffer
  std::string note;           // what the maps cannot show ("block (5, 0, 0) was not recorded: ...")
};
AccessMaps access_maps(const SimTrace& t, const Selection& s);

// Who touched element `element` of buffer `buffer`: every (thread, instruction) that read or wrote it, in the
// order the blocks ran, at most `max` listed (the counts cover all).
struct Touch {
  uint64_t block = 0;
  uint32_t thread = 0;
  sim::Access access = sim::Access::Read;
  uint32_t pc = 0;
};
struct ElementTouches {
  std::vector<Touch> list;
  uint64_t reads = 0, writes = 0;  // lanes, over every recorded block
  bool truncated = false;          // more than `max`
  std::string element_text;        // "out[3][7] (element 118)"
  std::vector<std::string> lines(const SimTrace& t) const;  // "thread (3, 0, 0) of block (1, 0, 0) wrote (line 12)"
};
ElementTouches who_touched(const SimTrace& t, int buffer, uint64_t element, size_t max = 64);

// "out[3][7]" (a buffer with a shape) or "c[1000]".
std::string element_name(const sim::Buffer& b, uint64_t element);

// The launch's problem elements of one buffer, for a lab's view (the heat field's marked cells, the vector
// and matmul labs' lists): elements a diagnostic names and (every block recorded) output elements no thread
// or several threads wrote, ascending, the first `max` of them listed.
struct ProblemElements {
  int buffer = -1;
  std::string name;
  uint32_t cols = 0;                // the buffer's row length (0: 1-D)
  std::vector<uint64_t> elements;   // the first `max`
  std::vector<uint8_t> bits;        // per listed element: k_cell_flagged | k_cell_unwritten | k_cell_multi
  uint64_t total = 0;               // all of them
  bool exact = true;                // every block was recorded (else unwritten / multi are not marked)
  // "c[1000]: no thread wrote it"
  std::string line(const SimTrace& t, size_t i) const;
};
// One entry per buffer that has any (none: the launch has no problem elements).
std::vector<ProblemElements> problem_elements(const SimTrace& t, size_t max);

// The element of a map under a cell position (row, col); nullopt outside the buffer.
std::optional<uint64_t> element_at(const BufferMap& m, int64_t row, int64_t col);

// --- Scores and divergence --------------------------------------------------------------------------------

struct ThreadScore {
  uint32_t thread = 0;  // linear in the block
  uint32_t instructions = 0, global_reads = 0, global_writes = 0;
};
// Every thread of `block` (empty when the launch kept no per-thread counts).
std::vector<ThreadScore> thread_scores(const SimTrace& t, uint64_t block);

struct InstrRow {
  uint32_t pc = 0;
  int line = 0;
  std::string text;  // the PTX instruction
  uint64_t warp_execs = 0, thread_execs = 0;
  double active_lanes = 0;  // thread_execs / warp_execs (32: no divergence)
  bool memory = false;
  sim::Space space = sim::Space::Global;
  uint64_t requests = 0, sectors = 0, wavefronts = 0, conflicts = 0;
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
  double conflicts_per_request() const { return requests ? double(conflicts) / double(requests) : 0; }
};
// Every instruction that ran (warp_execs > 0), in program order.
std::vector<InstrRow> instruction_rows(const SimTrace& t);

// Per source line: lanes executed / (warp executions * 32), the heat strip's value in [0, 1] (-1: no
// instruction of the line ran). Index = line (0 unused); sized to the highest line that ran + 1.
std::vector<double> line_activity(const SimTrace& t);

// --- One warp's memory instruction for the memory lab's picture ------------------------------------------

// The memory instructions (global or shared, recorded) that ran, by pc: "line 12: ld.global.f32 ...".
struct MemoryInstr {
  uint32_t pc = 0;
  int line = 0;
  sim::Space space = sim::Space::Global;
  bool store = false;
  std::string label;
};
std::vector<MemoryInstr> memory_instructions(const SimTrace& t);

// The `occurrence`-th execution (0-based: a loop runs it several times) of instruction pc by warp `warp` of
// block `block`, as the memory lab's WarpAccess: lane elements in 4-byte words from the buffer's start
// (global) or from the start of shared memory (shared), so sectors, lines and banks come out as on the GPU
// for 4-byte accesses (a wider access is shown by its first word; `note` says so). nullopt when the warp
// never ran it (or its block was not recorded). `executions` receives how many times the warp ran it.
struct WarpMemoryView {
  memory::WarpAccess access;
  int64_t row_width = 0;   // the buffer's cols for the tooltips' [row][col] (0: 1-D)
  std::string note;        // "each lane reads 16 bytes; the picture shows the first 4"
  std::string buffer;      // "in" (global), "shared"
};
std::optional<WarpMemoryView> warp_memory_view(const SimTrace& t, uint32_t pc, uint64_t block, uint32_t warp,
                                               int occurrence, int* executions = nullptr);

}  // namespace bs::ui
