// user_kernels.cpp: the published user kernels (see user_kernels.h).
#include "app/kernel/user_kernels.h"

#include <atomic>
#include <stdexcept>

#include "core/clock.h"
#include "core/error.h"

namespace bs {

std::string UserKernel::compiled_at_text() const {
  if (!result) return {};
  return clock_text(compiled_at);
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
  m_faults[i].clear();
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
  m_faults[i].clear();
}

void UserKernels::note_fault(kernel::Target t, uint64_t generation, std::string message) {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  if (generation != 0 && generation == m_kernels[i].generation) m_faults[i] = std::move(message);
}

std::string UserKernels::fault(kernel::Target t) const {
  const int i = index(t);
  std::lock_guard lock(m_mutex);
  return m_faults[i];
}

std::string UserKernels::fault_status(kernel::Target t, std::string_view what_runs) const {
  const std::string f = fault(t);
  if (f.empty()) return {};
  return "your " + std::string(kernel::contract(t).kernel_name) + " faulted (" + f +
         "): " + std::string(what_runs) + " until you compile a fixed one";
}

UserKernelSlot::Update UserKernelSlot::update(UserKernels* kernels, bool want, bool busy,
                                              std::string_view what_runs) {
  Update out;
  const std::string name(kernel::contract(m_target).kernel_name);
  UserKernel uk;
  if (want) {
    if (!kernels || !kernels->has(m_target))
      out.status = "no " + name + " yet: write one in the Kernel editor (F9, template '" +
                   std::string(kernel::k_target_names.name_of(m_target)) + "'); " + std::string(what_runs) +
                   " meanwhile";
    else if (std::string f = kernels->fault_status(m_target, what_runs); !f.empty())
      out.status = std::move(f);  // it poisoned the context once: not run again until a new compile
    else
      uk = kernels->current(m_target);
  }
  if (uk.generation != m_published.generation && !busy) {
    drop(kernels, false);
    if (uk) {
      try {
        m_kernel = std::make_shared<kernel::LoadedKernel>(*uk.result);
        m_published = uk;
        out.loaded = true;
      } catch (const InvalidRequest& e) {
        out.status = e.what();
      } catch (const GpuError& e) {
        if (e.sticky()) throw;
        out.status = e.what();
      }
    }
    if (kernels) kernels->set_in_use(m_target, m_kernel != nullptr);
  }
  if (m_kernel && kernels && !kernels->last_failure(m_target).empty())
    out.status = "the newest compile failed: the last good " + name + " runs";
  return out;
}

std::string UserKernelSlot::figures(Dim2 block) {
  if (!m_kernel) return {};
  if (m_figures_block == block && m_figures_generation == m_published.generation) return m_figures;
  try {
    m_figures = m_kernel->figures(block).text();
  } catch (const GpuError& e) {
    if (e.sticky()) throw;
    m_figures = e.what();
  }
  m_figures_block = block;
  m_figures_generation = m_published.generation;
  return m_figures;
}

void UserKernelSlot::note_fault(UserKernels* kernels, const GpuError& e) const {
  if (e.sticky() && kernels && m_kernel) kernels->note_fault(m_target, m_published.generation, e.what());
}

void UserKernelSlot::drop(UserKernels* kernels, bool abandon) noexcept {
  if (m_kernel && abandon) m_kernel->abandon();
  m_kernel.reset();
  m_published = UserKernel{};
  m_figures_generation = 0;
  if (kernels) kernels->set_in_use(m_target, false);
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

namespace {
// [["NAME", "VALUE"], ...]: -D defines in their order (a replay compiles with the same).
nlohmann::json defines_json(const std::vector<std::pair<std::string, std::string>>& defines) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, value] : defines)
    out.push_back({name, value});
  return out;
}
}  // namespace

nlohmann::json UserKernels::record_of(const UserKernel& k) {
  if (!k) return nullptr;
  return {{"kernel", k.result->kernel_name},
          {"source", k.source},
          {"options",
           {{"fast_math", k.options.fast_math},
            {"maxrregcount", k.options.maxrregcount},
            {"lineinfo", k.options.lineinfo},
            {"device_debug", k.options.device_debug},
            {"defines", defines_json(k.options.defines)}}},
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

namespace {
std::atomic<UserKernels*> g_active{nullptr};
}  // namespace

UserKernels* active_user_kernels() {
  return g_active.load();
}

void set_active_user_kernels(UserKernels* k) {
  g_active.store(k);
}

std::optional<std::string> check_user_kernel_choice(const std::string& value, kernel::Target t) {
  if (value == "built-in") return std::nullopt;
  if (value != "user") return "kernel = " + value + ": give built-in or user";
  const UserKernels* uk = active_user_kernels();
  if (uk && uk->has(t)) return std::nullopt;
  const std::string name(kernel::contract(t).kernel_name);
  return "kernel = user: no " + name +
         " has been compiled yet: write one in the Kernel editor (F9, template '" +
         std::string(kernel::k_target_names.name_of(t)) +
         "') and sweep from the app's Sweep window, or give blockscope sweep --kernel FILE.cu";
}

}  // namespace bs
