// work_model.cpp: see work_model.h.
#include "core/work_model.h"

#include <limits>

namespace bs::work {

double Work::intensity() const {
  if (flops <= 0) return 0;
  if (model_bytes() <= 0) return std::numeric_limits<double>::infinity();
  return flops / model_bytes();
}

std::optional<double> Work::measured_intensity() const {
  if (!measured_dram_bytes || *measured_dram_bytes <= 0) return std::nullopt;
  return flops / *measured_dram_bytes;
}

Work Work::times(double n) const {
  Work w;
  w.flops = flops * n;
  w.read_bytes = read_bytes * n;
  w.write_bytes = write_bytes * n;
  if (measured_dram_bytes) w.measured_dram_bytes = *measured_dram_bytes * n;
  w.footprint_bytes = footprint_bytes;  // the same data, touched n times
  w.math = math;
  return w;
}

const char* to_string(Math m) {
  switch (m) {
    case Math::Fp32: return "FP32";
    case Math::Tf32: return "TF32 tensor cores";
    case Math::Fp16: return "FP16 tensor cores";
    case Math::Bf16: return "BF16 tensor cores";
  }
  return "FP32";
}

const char* to_string(Where w) {
  return w == Where::Gpu ? "GPU" : "CPU";
}

double RunRecord::flops_per_s() const {
  return seconds > 0 ? work.flops / seconds : 0;
}

double RunRecord::model_bytes_per_s() const {
  return seconds > 0 ? work.model_bytes() / seconds : 0;
}

bool RunRecord::same_config(const RunRecord& o) const {
  return lab == o.lab && variant == o.variant && where == o.where && label == o.label;
}

void RunLog::add(RunRecord r) {
  if (r.at == std::chrono::system_clock::time_point{}) r.at = std::chrono::system_clock::now();
  std::lock_guard lock(m_mutex);
  ++m_version;
  for (RunRecord& old : m_runs) {
    if (old.same_config(r)) {
      old = std::move(r);
      return;
    }
  }
  if (m_capacity == 0) return;
  if (m_runs.size() >= m_capacity) m_runs.erase(m_runs.begin());
  m_runs.push_back(std::move(r));
}

std::vector<RunRecord> RunLog::snapshot() const {
  std::lock_guard lock(m_mutex);
  return m_runs;
}

uint64_t RunLog::version() const {
  std::lock_guard lock(m_mutex);
  return m_version;
}

size_t RunLog::size() const {
  std::lock_guard lock(m_mutex);
  return m_runs.size();
}

void RunLog::clear() {
  std::lock_guard lock(m_mutex);
  m_runs.clear();
  ++m_version;
}

}  // namespace bs::work
