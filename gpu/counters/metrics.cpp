// metrics.cpp: the curated metric list, how the curated values derive from the raw ones, and what each CUPTI
// failure means for a user (all pure C++: tested without a GPU).
#include <algorithm>
#include <cmath>

#include "gpu/counters/counters.h"

namespace bs::counters {

namespace {

constexpr const char* k_dram_read = "dram__bytes_read.sum";
constexpr const char* k_dram_write = "dram__bytes_write.sum";
constexpr const char* k_ld_sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* k_ld_requests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* k_st_sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr const char* k_st_requests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr const char* k_shared_ld_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr const char* k_shared_st_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
// Shared-memory wavefronts and the warp instructions that made them: conflicts = wavefronts - instructions
// (one wavefront per 4-byte-per-lane instruction is the ideal). The instructions are SASS's own count of
// executed shared loads/stores (smsp__sass_inst_executed_...): a warp instruction whose every thread is
// predicated off is not in it, where smsp__inst_executed_op_shared_* counts it (the tiled transpose on the H100:
// 135 stores against 192). l1tex__data_pipe_...: counted by L1TEX, which on Hopper also serves global traffic in
// flight (docs/PERFORMANCE.md measured an excess there); smsp__sass_l1tex_...: counted per executed instruction
// at the SM, the access pattern's own count, where the chip offers it.
constexpr const char* k_shared_ld_inst = "smsp__sass_inst_executed_op_shared_ld.sum";
constexpr const char* k_shared_st_inst = "smsp__sass_inst_executed_op_shared_st.sum";
constexpr const char* k_shared_ld_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* k_shared_st_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
constexpr const char* k_shared_ld_wavefronts_sm = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* k_shared_st_wavefronts_sm = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
constexpr const char* k_occupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* k_cycles = "sm__cycles_active.sum";
constexpr const char* k_thread_inst = "smsp__thread_inst_executed.sum";
constexpr const char* k_inst = "smsp__inst_executed.sum";
// Warp-state stall reasons as Nsight Compute's WarpStateStats section names them: cycles a warp spent stalled
// on the reason per issued instruction.
constexpr const char* k_stall_prefix = "smsp__average_warps_issue_stalled_";
constexpr const char* k_stall_suffix = "_per_issue_active.ratio";
constexpr const char* k_stall_reasons[] = {
    "long_scoreboard",  "short_scoreboard",   "barrier", "membar",       "mio_throttle",
    "lg_throttle",      "math_pipe_throttle", "wait",    "not_selected", "no_instruction",
    "branch_resolving", "dispatch_stall",     "drain",   "imc_miss",     "misc",
    "sleeping",         "tex_throttle"};

std::optional<double> find(const Raw& raw, const std::string& name) {
  for (const auto& [n, v] : raw)
    if (n == name && std::isfinite(v)) return v;
  return std::nullopt;
}

void add(std::optional<double>& into, std::optional<double> v) {
  if (v) into = into.value_or(0) + *v;
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::NoLibrary:
      return "no CUPTI";
    case Status::NoDevice:
      return "no GPU";
    case Status::NotAllowed:
      return "not allowed";
    case Status::Unsupported:
      return "unsupported GPU";
    case Status::Failed:
      return "failed";
  }
  return "failed";
}

std::vector<std::string> metric_names() {
  std::vector<std::string> out = {k_dram_read,  k_dram_write,  k_ld_sectors,          k_ld_requests,
                                  k_st_sectors, k_st_requests, k_shared_ld_conflicts, k_shared_st_conflicts,
                                  k_occupancy,  k_cycles,      k_thread_inst,         k_inst,
                                  k_shared_ld_inst,          k_shared_st_inst,          k_shared_ld_wavefronts,
                                  k_shared_st_wavefronts,    k_shared_ld_wavefronts_sm, k_shared_st_wavefronts_sm};
  for (const char* r : k_stall_reasons)
    out.push_back(std::string(k_stall_prefix) + r + k_stall_suffix);
  return out;
}

std::string ncu_metric_list() {
  std::string out;
  for (const auto& m : metric_names())
    out += (out.empty() ? "" : ",") + m;
  return out;
}

std::optional<double> Values::ld_sectors_per_request() const {
  if (!ld_sectors || !ld_requests || *ld_requests <= 0) return std::nullopt;
  return *ld_sectors / *ld_requests;
}
std::optional<double> Values::st_sectors_per_request() const {
  if (!st_sectors || !st_requests || *st_requests <= 0) return std::nullopt;
  return *st_sectors / *st_requests;
}
std::optional<double> Values::shared_wavefront_conflicts() const {
  const bool sm = shared_ld_wavefronts_sm && shared_st_wavefronts_sm;
  const auto& ld = sm ? shared_ld_wavefronts_sm : shared_ld_wavefronts;
  const auto& st = sm ? shared_st_wavefronts_sm : shared_st_wavefronts;
  if (!ld || !st || !shared_ld_instructions || !shared_st_instructions) return std::nullopt;
  return *ld + *st - *shared_ld_instructions - *shared_st_instructions;
}
std::optional<double> Values::dram_bytes() const {
  if (!dram_read_bytes || !dram_write_bytes) return std::nullopt;
  return *dram_read_bytes + *dram_write_bytes;
}

Values derive(const std::vector<Raw>& kernels) {
  Values v;
  v.kernels = static_cast<int>(kernels.size());
  double occ_weighted = 0, occ_cycles = 0, thread_inst = 0, inst = 0;
  bool have_occ = false, have_eff = false;
  std::vector<double> stall_weighted(std::size(k_stall_reasons), 0);
  std::vector<bool> have_stall(std::size(k_stall_reasons), false);
  for (const Raw& raw : kernels) {
    add(v.dram_read_bytes, find(raw, k_dram_read));
    add(v.dram_write_bytes, find(raw, k_dram_write));
    add(v.ld_sectors, find(raw, k_ld_sectors));
    add(v.ld_requests, find(raw, k_ld_requests));
    add(v.st_sectors, find(raw, k_st_sectors));
    add(v.st_requests, find(raw, k_st_requests));
    add(v.shared_ld_conflicts, find(raw, k_shared_ld_conflicts));
    add(v.shared_st_conflicts, find(raw, k_shared_st_conflicts));
    add(v.shared_ld_instructions, find(raw, k_shared_ld_inst));
    add(v.shared_st_instructions, find(raw, k_shared_st_inst));
    add(v.shared_ld_wavefronts, find(raw, k_shared_ld_wavefronts));
    add(v.shared_st_wavefronts, find(raw, k_shared_st_wavefronts));
    add(v.shared_ld_wavefronts_sm, find(raw, k_shared_ld_wavefronts_sm));
    add(v.shared_st_wavefronts_sm, find(raw, k_shared_st_wavefronts_sm));
    const auto occ = find(raw, k_occupancy);
    const auto cyc = find(raw, k_cycles);
    if (occ) {
      // One kernel alone needs no weight; several are weighted by their active cycles.
      const double w = cyc ? *cyc : 1.0;
      occ_weighted += *occ * w;
      occ_cycles += w;
      have_occ = true;
    }
    const auto ti = find(raw, k_thread_inst), in = find(raw, k_inst);
    if (ti && in) {
      thread_inst += *ti;
      inst += *in;
      have_eff = true;
    }
    for (size_t i = 0; i < std::size(k_stall_reasons); ++i) {
      const auto s = find(raw, std::string(k_stall_prefix) + k_stall_reasons[i] + k_stall_suffix);
      if (!s) continue;
      have_stall[i] = true;
      stall_weighted[i] += *s * (in ? *in : 1.0);
    }
  }
  if (have_occ && occ_cycles > 0) v.achieved_occupancy_pct = occ_weighted / occ_cycles;
  if (have_eff && inst > 0) v.warp_efficiency_pct = 100.0 * thread_inst / (32.0 * inst);
  const double inst_total = inst > 0 ? inst : static_cast<double>(std::max<size_t>(kernels.size(), 1));
  std::vector<Stall> stalls;
  for (size_t i = 0; i < std::size(k_stall_reasons); ++i)
    if (have_stall[i]) stalls.push_back({k_stall_reasons[i], stall_weighted[i] / inst_total});
  std::stable_sort(stalls.begin(), stalls.end(),
                   [](const Stall& a, const Stall& b) { return a.cycles_per_issue > b.cycles_per_issue; });
  if (stalls.size() > 3) stalls.resize(3);
  v.top_stalls = std::move(stalls);
  return v;
}

const char* replay_note() {
  return "counters replay the kernel (one run per CUPTI pass, each from a cold L2): collected apart from the "
         "timed runs, never part of a timing";
}

std::string no_device_message(const std::string& reason, bool model_values) {
  return "no CUDA device, so no hardware counters (" + reason + ")" +
         (model_values ? "; the model values stay, labelled \"model\"" : "");
}

std::pair<Status, std::string> explain_cupti_error(int code, const std::string& step,
                                                   const std::string& text) {
  const std::string what =
      step + " returned " + std::to_string(code) + (text.empty() ? "" : " (" + text + ")");
  switch (code) {
    case 35:  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
    case 40:  // CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES
      return {
          Status::NotAllowed,
          "GPU performance counters are restricted to administrators on this machine (" + what +
              "). To allow them: run blockscope as root (sudo), or let every user profile: put "
              "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in "
              "/etc/modprobe.d/nvidia-profiling.conf, run 'sudo update-initramfs -u' and reboot "
              "(https://developer.nvidia.com/ERR_NVGPUCTRPERM). The model values stay, labelled \"model\"."};
    case 14:  // CUPTI_ERROR_NOT_COMPATIBLE
    case 27:  // CUPTI_ERROR_NOT_SUPPORTED
      return {Status::Unsupported, "this GPU does not support CUPTI's range profiler (" + what +
                                       "; it needs compute capability 7.5 or newer). The model values stay."};
    case 33:  // CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED
      return {Status::Unsupported,
              "counters are not available on this virtual GPU (" + what +
                  "): ask the host's administrator to enable profiling for the vGPU. The "
                  "model values stay."};
    case 41:  // CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED
      return {Status::Unsupported,
              "counters are disabled in confidential-computing mode (" + what + "). The model values stay."};
    case 42:  // CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED
      return {Status::Unsupported,
              "CMP (mining) GPUs cannot be profiled (" + what + "). The model values stay."};
    case 43:  // CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED
      return {Status::Unsupported, "this GPU is a MIG instance, which CUPTI cannot profile (" + what +
                                       "): run on a whole GPU (MIG off). The model values stay."};
    case 44:  // CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED
      return {Status::Unsupported, "GPUs in SLI cannot be profiled (" + what + "). The model values stay."};
    case 45:  // CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED
      return {Status::Unsupported,
              "this GPU under WSL cannot be profiled (" + what +
                  "): WSL needs a recent Windows driver with profiling support. The model "
                  "values stay."};
    case 38:  // CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED
      return {Status::Unsupported, "this GPU only supports CUPTI's legacy profiler (" + what +
                                       "), which blockscope does not use. The model values stay."};
    case 39:  // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
      return {Status::Failed,
              "another profiler holds CUPTI in this process (" + what +
                  "): counters cannot be collected under Nsight Compute or Nsight Systems. The "
                  "model values stay."};
    default:
      return {Status::Failed, "counter collection failed: " + what + ". The model values stay."};
  }
}

}  // namespace bs::counters
