// kernel_sim.cpp: see kernel_sim.h.
#include "app/kernel/kernel_sim.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/text.h"
#include "gpu/heat/heat.h"
#include "gpu/kernel/lab_runs.h"
#include "gpu/matmul/matmul.h"
#include "gpu/vector/vector.h"
#include "sim/trace.h"

namespace bs {

namespace {

// Caps that keep one simulated launch within seconds on a laptop core (docs/PERFORMANCE.md has the rate).
constexpr int64_t k_max_heat_side = 2048;
constexpr int64_t k_max_vector = int64_t{1} << 22;
constexpr int64_t k_max_matmul_side = 1024;
constexpr double k_max_matmul_fmas = 256.0 * 256.0 * 256.0;

// Forwards to the recorder, counts blocks for the progress bar and turns the job's cancel into the launch's.
class Progress final : public sim::Observer {
 public:
  Progress(sim::Recorder& rec, JobControl* ctl, uint64_t blocks, std::atomic<bool>& cancel)
      : m_rec(rec), m_ctl(ctl), m_blocks(std::max<uint64_t>(1, blocks)), m_cancel(cancel) {}
  bool wants_block(uint64_t block) override {
    poll();
    const uint64_t started = ++m_started;
    if (m_ctl) m_ctl->set_progress(static_cast<double>(started) / static_cast<double>(m_blocks));
    return m_rec.wants_block(block);
  }
  void on_access(int worker, const sim::WarpAccess& a) override {
    poll();
    m_rec.on_access(worker, a);
  }
  void on_barrier(int worker, uint64_t block, uint32_t pc, uint64_t epoch) override {
    m_rec.on_barrier(worker, block, pc, epoch);
  }
  void on_step(int, uint64_t, uint32_t, uint32_t, uint32_t) override {}
  void on_start(int workers) override { m_rec.on_start(workers); }

 private:
  void poll() {
    if (m_ctl && m_ctl->cancelled()) m_cancel.store(true, std::memory_order_relaxed);
  }
  sim::Recorder& m_rec;
  JobControl* m_ctl;
  uint64_t m_blocks;
  std::atomic<uint64_t> m_started{0};
  std::atomic<bool>& m_cancel;
};

std::string count_text(double v) { return compact_count(v, " "); }

Dim2 block_of(kernel::Target t, const SimSettings& s) {
  const kernel::Contract& c = kernel::contract(t);
  return {s.block_x > 0 ? s.block_x : c.default_block_x, s.block_y > 0 ? s.block_y : c.default_block_y};
}

// The cells (elements) the threads map onto, x first: heat nx x ny, vector n, matmul C's N x M.
Dim2 domain_of(kernel::Target t, const SimSettings& s) {
  if (t == kernel::Target::Heat) return {s.size_x, s.size_y};
  if (t == kernel::Target::Matmul) return {s.size_y, s.size_x};  // x along the columns of C (N), y its rows (M)
  return {s.size_x, 1};
}

// The grid set by hand, else the one covering the domain.
Dim2 grid_of(kernel::Target t, const SimSettings& s) {
  if (s.grid_x > 0) return {s.grid_x, std::max<int64_t>(s.grid_y, 1)};
  return covering_grid(block_of(t, s), domain_of(t, s));
}

constexpr double k_max_threads = double(int64_t{1} << 24);  // a hand-set grid's threads, all blocks together

}  // namespace

SimSettings SimSettings::defaults(kernel::Target t) {
  switch (t) {
    case kernel::Target::Heat:
      return {67, 45, 0, 0, 0};
    case kernel::Target::Vector:
      return {1000, 0, 0, 0, 0};
    case kernel::Target::Matmul:
      return {37, 41, 23, 0, 0};
  }
  return {};
}

std::optional<std::string> check_settings(kernel::Target t, const SimSettings& s) {
  const Dim2 b = block_of(t, s);
  if (b.x < 1 || b.y < 1 || b.x * b.y > 1024)
    return "block " + std::to_string(b.x) + " x " + std::to_string(b.y) +
           ": give 1..1024 threads per block (x * y)";
  if (t == kernel::Target::Vector && b.y != 1) return "block: the vector contract is 1-D (y = 1)";
  if (s.grid_x < 0 || s.grid_y < 0 || (s.grid_x == 0 && s.grid_y > 0) || s.grid_x > 2147483647 ||
      s.grid_y > 65535)
    return "grid " + std::to_string(s.grid_x) + " x " + std::to_string(s.grid_y) +
           ": give x in 1..2147483647 and y in 1..65535 blocks (or no grid for the covering one)";
  if (t == kernel::Target::Vector && s.grid_y > 1) return "grid: the vector contract is 1-D (y = 1)";
  if (s.grid_x > 0 && double(s.grid_x) * double(std::max<int64_t>(s.grid_y, 1)) * double(b.x) * double(b.y) >
                          k_max_threads)
    return "grid: " + std::to_string(s.grid_x) + " x " + std::to_string(std::max<int64_t>(s.grid_y, 1)) +
           " blocks of " + std::to_string(b.x * b.y) +
           " threads is above 16M threads, too long for the simulator; try a smaller grid";
  switch (t) {
    case kernel::Target::Heat:
      if (s.size_x < 1 || s.size_y < 1 || s.size_x > k_max_heat_side || s.size_y > k_max_heat_side)
        return "size: the simulator takes heat fields of 1..2048 cells a side";
      break;
    case kernel::Target::Vector:
      if (s.size_x < 1 || s.size_x > k_max_vector) return "size: the simulator takes 1..4194304 elements";
      break;
    case kernel::Target::Matmul:
      if (s.size_x < 1 || s.size_y < 1 || s.size_z < 1 || s.size_x > k_max_matmul_side ||
          s.size_y > k_max_matmul_side || s.size_z > k_max_matmul_side)
        return "size: the simulator takes M, N and K of 1..1024";
      if (double(s.size_x) * double(s.size_y) * double(s.size_z) > k_max_matmul_fmas)
        return "size: M x N x K above 256^3 multiply-adds takes the simulator too long; try smaller";
      break;
  }
  return std::nullopt;
}

std::string settings_text(kernel::Target t, const SimSettings& s) {
  const Dim2 b = block_of(t, s);
  std::string size = std::to_string(s.size_x);
  if (t == kernel::Target::Heat)
    size += " x " + std::to_string(s.size_y);
  else if (t == kernel::Target::Matmul)
    size = std::to_string(s.size_x) + " x " + std::to_string(s.size_y) + " x " + std::to_string(s.size_z);
  const Dim2 g = grid_of(t, s);
  const std::string by_hand = s.grid_x > 0 ? " (set by hand)" : "";
  if (t == kernel::Target::Vector)
    return "vector n = " + size + ", block " + std::to_string(b.x) + ", grid " + std::to_string(g.x) + by_hand;
  return std::string(kernel::k_target_names.name_of(t)) + " " + size + ", block " + std::to_string(b.x) + " x " +
         std::to_string(b.y) + ", grid " + std::to_string(g.x) + " x " + std::to_string(g.y) + by_hand;
}

namespace {

// The simulated launch's data: the lab's inputs (never zeros) and its output, poisoned with NaN so an
// unwritten cell cannot pass by luck; the buffers in the launch configuration point into these vectors.
struct SimData {
  std::vector<float> in, in2, out;
  heat::Params hp;
  matmul::Problem mp;
};

// Fills `d` and the buffers and arguments of `cfg` for target t; a message when the lab's parameters do not
// hold.
std::optional<std::string> prepare_launch(kernel::Target t, const SimSettings& s, const LabInputs& lab, SimData& d,
                                          sim::LaunchConfig& cfg) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (t) {
    case kernel::Target::Heat: {
      if (lab.heat) d.hp = *lab.heat;
      d.hp.nx = s.size_x;
      d.hp.ny = s.size_y;
      if (auto e = heat::validate(d.hp)) return e;
      d.in = lab.field.empty() ? heat::make_initial(d.hp, heat::InitialPattern::HotSpots) : lab.field;
      d.out.assign(d.in.size(), nan);
      const auto cols = static_cast<uint32_t>(d.hp.nx);
      cfg.buffers = {sim::buffer_over("in", d.in, false, cols), sim::buffer_over("out", d.out, true, cols)};
      cfg.args = {sim::Arg::pointer(0),
                  sim::Arg::pointer(1),
                  sim::Arg::value<int>(static_cast<int>(d.hp.nx)),
                  sim::Arg::value<int>(static_cast<int>(d.hp.ny)),
                  sim::Arg::value<float>(d.hp.r()),
                  sim::Arg::value<float>(d.hp.boundary_temp),
                  sim::Arg::value<int>(d.hp.boundary == heat::Boundary::Fixed ? 1 : 0)};
      break;
    }
    case kernel::Target::Vector: {
      const int64_t n = s.size_x;
      d.in.resize(static_cast<size_t>(n));
      d.in2.resize(static_cast<size_t>(n));
      vector::fill_inputs(d.in.data(), d.in2.data(), n);
      d.out.assign(static_cast<size_t>(n), nan);
      cfg.buffers = {sim::buffer_over("a", d.in), sim::buffer_over("b", d.in2),
                     sim::buffer_over("c", d.out, true)};
      cfg.args = {sim::Arg::pointer(0), sim::Arg::pointer(1), sim::Arg::pointer(2),
                  sim::Arg::value<long long>(n)};
      break;
    }
    case kernel::Target::Matmul: {
      d.mp = {s.size_x, s.size_y, s.size_z};
      d.in = matmul::make_matrix(d.mp.m, d.mp.k, 1);
      d.in2 = matmul::make_matrix(d.mp.k, d.mp.n, 2);
      d.out.assign(static_cast<size_t>(d.mp.m * d.mp.n), nan);
      cfg.buffers = {sim::buffer_over("A", d.in, false, static_cast<uint32_t>(d.mp.k)),
                     sim::buffer_over("B", d.in2, false, static_cast<uint32_t>(d.mp.n)),
                     sim::buffer_over("C", d.out, true, static_cast<uint32_t>(d.mp.n))};
      cfg.args = {sim::Arg::pointer(0),
                  sim::Arg::pointer(1),
                  sim::Arg::pointer(2),
                  sim::Arg::value<int>(static_cast<int>(d.mp.m)),
                  sim::Arg::value<int>(static_cast<int>(d.mp.n)),
                  sim::Arg::value<int>(static_cast<int>(d.mp.k))};
      break;
    }
  }
  return std::nullopt;
}

// Checks the simulated output against the lab's own CPU reference: out.passed and out.check.
void check_against_lab(kernel::Target t, const SimSettings& s, const LabInputs& lab, const SimData& d,
                       SimOutcome& out) {
  switch (t) {
    case kernel::Target::Heat: {
      std::vector<float> ref(d.in.size());
      heat::step_cpu(d.in.data(), ref.data(), d.hp, heat::CpuMode::OneThread);
      double err = 0, scale = 0;
      bool finite = true;
      for (size_t i = 0; i < ref.size(); ++i) {
        finite = finite && std::isfinite(d.out[i]);
        err = std::max(err, std::abs(double(d.out[i]) - double(ref[i])));
        scale = std::max(scale, std::abs(double(ref[i])));
      }
      const double rel = scale > 0 ? err / scale : err;
      const double tol = kernel::heat_tolerance(1);
      out.passed = finite && rel <= tol;
      char b[160];
      std::snprintf(b, sizeof b, "one step against the lab's CPU step: max rel err %.1e %s %.1e%s: %s", rel,
                    rel <= tol ? "<=" : ">", tol, finite ? "" : " (cells never written hold NaN)",
                    out.passed ? "pass" : "FAIL");
      out.check = b;
      break;
    }
    case kernel::Target::Vector: {
      const int64_t n = s.size_x;
      if (lab.vector_op) {
        const vector::Check c =
            vector::check_result(*lab.vector_op, d.in.data(), d.in2.data(), d.out.data(), n);
        out.passed = c.passed;
        out.check = std::string("against the lab's op ") + vector::to_string(*lab.vector_op) + ": " + c.text +
                    (c.passed ? ": pass" : ": FAIL");
        break;
      }
      const vector::Check f =
          vector::check_result(vector::Op::Formula, d.in.data(), d.in2.data(), d.out.data(), n);
      const vector::Check a =
          vector::check_result(vector::Op::Add, d.in.data(), d.in2.data(), d.out.data(), n);
      out.passed = f.passed || a.passed;
      out.check = a.passed ? "matches the lab's op add (c = a + b): " + a.text + ": pass"
                  : f.passed
                      ? "matches the lab's op formula: " + f.text + ": pass"
                      : "matches neither of the lab's ops: formula " + f.text + "; add " + a.text + ": FAIL";
      break;
    }
    case kernel::Target::Matmul: {
      const std::vector<double> ref = matmul::reference_cpu(d.in, d.in2, d.mp);
      const matmul::CheckResult c = matmul::check_result(d.out, ref, d.mp.k, "float64 CPU reference");
      out.passed = c.pass;
      out.check = "against the " + c.reference + ": " + c.summary();
      break;
    }
  }
}

}  // namespace

SimOutcome simulate_contract(kernel::Target t, const std::string& ptx, const std::string& kernel_name,
                             const SimSettings& s, JobControl* ctl, const LabInputs* inputs) {
  SimOutcome out;
  if (auto e = check_settings(t, s)) {
    out.failure = *e;
    return out;
  }
  const LabInputs no_inputs;
  const LabInputs& lab = inputs ? *inputs : no_inputs;
  if (t == kernel::Target::Heat && !lab.field.empty() &&
      lab.field.size() != static_cast<size_t>(s.size_x * s.size_y)) {
    out.failure = "the heat field handed to the simulator is not size_x x size_y cells";
    return out;
  }
  std::shared_ptr<sim::Module> module;
  try {
    module = std::make_shared<sim::Module>(sim::parse_ptx(ptx));
  } catch (const std::exception& e) {
    out.failure = std::string("the simulator cannot read this PTX: ") + e.what();
    return out;
  }
  const Dim2 block = block_of(t, s);
  sim::LaunchConfig cfg;
  cfg.block = {static_cast<uint32_t>(block.x), static_cast<uint32_t>(block.y), 1};
  SimData d;
  if (auto e = prepare_launch(t, s, lab, d, cfg)) {
    out.failure = *e;
    return out;
  }
  const Dim2 grid = grid_of(t, s);
  cfg.grid = {static_cast<uint32_t>(grid.x), static_cast<uint32_t>(grid.y), 1};
  sim::Recorder::Options ro;
  if (lab.record_bytes > 0) ro.max_bytes = lab.record_bytes;
  sim::Recorder rec(cfg.grid.count(), ro);
  std::atomic<bool> cancel{false};
  Progress progress(rec, ctl, cfg.grid.count(), cancel);
  cfg.observer = &progress;
  cfg.cancel = &cancel;
  sim::LaunchResult r = sim::launch(*module, kernel_name, cfg);
  if (ctl && ctl->cancelled()) throw JobCancelled{};
  out.ran = r.ok;
  if (!r.ok) out.failure = r.failure.message;
  out.summary = "simulated (no GPU involved): " + std::to_string(cfg.grid.count()) + " blocks x " +
                std::to_string(cfg.block.count()) + " threads, " + count_text(double(r.thread_instructions)) +
                " thread-instructions in " +
                [&] {
                  char b[32];
                  std::snprintf(b, sizeof b, "%.2f s", r.seconds);
                  return std::string(b);
                }() +
                " of CPU time on " + std::to_string(r.workers) + " threads";
  if (r.ok) check_against_lab(t, s, lab, d, out);
  out.output = std::move(d.out);
  auto trace = std::make_shared<ui::SimTrace>(ui::make_trace(module, kernel_name, cfg, std::move(r), rec));
  out.trace = std::move(trace);
  return out;
}

}  // namespace bs
