// runner.h: a submission to an exercise compiled with NVRTC (in a child process, kernel/compiler.h) and run
// test by test in the PTX simulator (sim/) beside the exercise's reference kernel, on the same inputs made
// from the test's seed. A test passes when every output element matches the reference within the tolerance
// and the simulator saw no bug (out-of-bounds, race, unwritten output, ...). The first failing test names the
// first wrong element, the expected and actual values and the thread(s) that wrote it; the score compares the
// busiest thread's global reads and writes and the block's shared memory with the exercise's par.
// With RunOptions::engine Auto or Gpu and a CUDA GPU present (gpu_runner.h), the student's kernel runs on the
// GPU instead and its outputs are checked against the same reference outputs in the same way; the first visible
// test also runs in the simulator (for the score and its bug checks), a failing test again there (for the
// threads that wrote the wrong element), and each GPU test is timed (the largest one's time and % of the
// roofline come back in CheckResult::timing). Without a GPU everything runs in the simulator and
// CheckResult::engine says why.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/exercise/exercise.h"
#include "gpu/exercise/gpu_runner.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/kernel_cache.h"
#include "sim/ptx.h"
#include "sim/sim.h"

namespace bs::exercise {

struct Compiled {
  bool ok = false;
  kernel::CompileStatus status = kernel::CompileStatus::InternalError;
  std::string message;  // one line: "compiled for sm_90 (0 warnings)", or the failure with its first error
  std::vector<std::string> errors;  // "FILE:LINE:COL: error: ..." each
  // The compiler's errors and warnings on the submission's lines (a wrong signature on the kernel's line), for
  // markers in an editor.
  std::vector<kernel::Diagnostic> diagnostics;
  std::shared_ptr<const sim::Module> module;
  std::string entry;  // the kernel's PTX name
  std::shared_ptr<const kernel::CompileResult> binary;  // NVRTC's result (the cubin a GPU run loads)
};
// `shown_name` is how messages name the file ("starter.cu", the student's path). With a cache, a source
// compiled before (the reference, a resubmission) comes back from it.
// `arch`: the cubin's architecture (a GPU run's device's).
Compiled compile_source(const Exercise& e, const std::string& source, const std::string& shown_name,
                        kernel::KernelCache* cache = nullptr, int arch = kernel::k_default_arch);

struct WrongElement {
  std::string buffer;
  uint64_t index = 0;
  std::string where;             // "element 17" or "row 2, column 5 (element 45)"
  std::string expected, actual;  // as printed
  std::vector<std::string> writers;  // "thread (17, 0, 0) of block (0, 0, 0)"; empty: no thread wrote it
  int64_t writer_block = -1;         // the first writer: linear block (-1: none) and linear thread in it
  uint32_t writer_thread = 0;
  uint64_t wrong_count = 0;          // wrong elements in that buffer
};

struct ScoreItem {
  std::string what;  // "global reads per thread"
  int64_t actual = 0, par = 0;
  bool met() const { return actual <= par; }
};

struct TestResult {
  TestCase test;
  bool passed = false;
  std::string stopped;  // the simulator stopped the student's kernel (endless loop, bad launch, ...)
  std::string check;    // "2 outputs, 2000 elements match (max error 0)" or what differs
  std::optional<WrongElement> wrong;
  std::vector<std::string> diagnostics;  // "FILE:LINE: out-of-bounds: ..." (the simulator's)
  double seconds = 0;
  std::vector<ScoreItem> score;  // the first visible test's
  bool on_gpu = false;           // the student's kernel ran on the GPU for this test
  std::vector<double> gpu_ms;    // on the GPU: each timed run (after warm-up), when it passed
  uint64_t bytes = 0;            // each input buffer read once, each output written once
};

struct RunOptions {
  std::optional<std::array<uint32_t, 3>> block;  // the student's block (only where the exercise allows it)
  bool hidden = true;                            // run the hidden tests too
  bool stop_at_first_failure = true;
  int workers = 0;  // the simulator's host threads (0: all)
  int only_test = -1;  // >= 0: run only this test (an index into Exercise::tests; grading runs each alone)
  kernel::KernelCache* cache = nullptr;  // compiles (yours and the reference) through this cache
  // Where the student's kernel runs. Grading keeps Simulator (its child processes have a memory limit); the
  // window and `exercise check` ask for Auto.
  Engine engine = Engine::Simulator;
  const GpuStatus* gpu = nullptr;  // the device to use (null: gpu_status()); tests pass a made-up one
};

struct CheckResult {
  Compiled compiled;
  std::string error;  // bad input that is not the student's kernel: a bad --block, a broken reference
  std::vector<TestResult> tests;
  int first_failure = -1;  // index into tests
  std::string engine;      // "GPU: NVIDIA H100 80GB HBM3" or "simulator (no GPU: <reason>)": where it ran
  bool on_gpu = false;
  std::optional<GpuTiming> timing;  // on the GPU: the largest passing test's time and roofline
  bool passed() const { return compiled.ok && error.empty() && first_failure < 0 && !tests.empty(); }
};

// Runs the submission's source. Never throws for a bad submission.
CheckResult check_source(const Exercise& e, const std::string& source, const std::string& shown_name,
                         const RunOptions& o = {});

// One test's launch of a compiled submission again, on the inputs check_source made for it, for an observer
// (the access maps of a failing test). config's buffers point into data.
struct Replay {
  sim::LaunchConfig config;
  sim::LaunchResult result;
  std::vector<std::vector<uint32_t>> data;
  std::string error;  // the launch could not be prepared (a bad block, a broken contract)
};
Replay prepare_replay(const Exercise& e, const TestCase& t, const RunOptions& o);
void run_replay(const Compiled& c, Replay& r, sim::Observer* observer);

// "out, element 17: expected 3, got NaN (never written); no thread wrote it"
std::string wrong_text(const WrongElement& w);
// "3 of 3 par (global reads per thread 1/1, ...)"
std::string score_line(const std::vector<ScoreItem>& s);

}  // namespace bs::exercise
