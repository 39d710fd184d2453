// user_kernels.cpp: the published user kernels (see user_kernels.h).
#include "app/kernel/user_kernels.h"

#include <ctime>
#include <stdexcept>

namespace bs {

std::string UserKernel::compiled_at_text() const {
  if (!result) return {};
  const std::time_t t = std::chrono::system_clock::to_time_t(compiled_at);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

int UserKernels::index(kernel::Target t) {
  const int i = static_cast<int>(t);
  if (i < 0 || i >= k_targets) throw std::invalid_argument("user kernels: unknown target");
  return i;
}

uint64_t UserKernels::publish(const kernel::CompileRequest& request,
                              std::shared_ptr<const kernel::CompileResult> result, std::string name) {
  if (!result) throw std::invalid_argument("user kernels: nothing to publish (no compile result)");
  if (!result->ok())
    throw std::invalid_argument(
        "user kernels: only a good compile is published (this one: " + result->message + ")");
  if (!request.target) throw std::invalid_argument("user kernels: the compile names no target");
  const int i = index(*request.target);
  UserKernel k;
  k.result = std::move(result);
  k.source = request.source;
  k.options = request.options;
  k.arch = request.arch;
  k.compiled_at = std::chrono::system_clock::now();
  k.name = std::move(name);
  std::lock_guard lock(m_mutex);
  k.generation = m_next_generation++;
  m_kernels[i] = std::move(k);
  m_failures[i].clear();
  return m_kernels[i].generation;
}

UserKernel UserKernels::current(kernel::Target t) const {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  return m_kernels[i];
}

uint64_t UserKernels::generation(kernel::Target t) const {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  return m_kernels[i].generation;
}

void UserKernels::clear(kernel::Target t) {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  m_kernels[i] = UserKernel{};
  m_failures[i].clear();
}

void UserKernels::note_failure(kernel::Target t, std::string message) {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  m_failures[i] = std::move(message);
}

std::string UserKernels::last_failure(kernel::Target t) const {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  return m_failures[i];
}

void UserKernels::set_in_use(kernel::Target t, bool in_use) {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  m_in_use[i] = in_use;
}

bool UserKernels::in_use(kernel::Target t) const {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  return m_in_use[i];
}

nlohmann::json UserKernels::record_of(const UserKernel& k) {
  if (!k) return nullptr;
  return {{"kernel", k.result->kernel_name},
          {"source", k.source},
          {"options",
           {{"fast_math", k.options.fast_math},
            {"maxrregcount", k.options.maxrregcount},
            {"lineinfo", k.options.lineinfo},
            {"device_debug", k.options.device_debug}}},
          {"arch", "sm_" + std::to_string(k.arch)},
          {"compiled_at", k.compiled_at_text()},
          {"nvrtc_version", k.result->nvrtc_version},
          {"name", k.name},
          {"generation", k.generation}};
}

nlohmann::json UserKernels::record_json() const {
  nlohmann::json out = nullptr;
  for (kernel::Target t : {kernel::Target::Heat, kernel::Target::Vector, kernel::Target::Matmul}) {
    if (!in_use(t)) continue;
    const UserKernel k = current(t);
    if (!k) continue;
    out[std::string(kernel::k_target_names.name_of(t))] = record_of(k);
  }
  return out;
}

}  // namespace bs
