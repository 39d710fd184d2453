// gpu_check.cpp: see gpu_check.h.
#include "app/kernel/gpu_check.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/text.h"
#include "gpu/common/device_info.h"

namespace bs {

namespace {

// The report is kept to this many bytes (compute-sanitizer's summary is at the end).
constexpr size_t k_max_report = 64 * 1024;

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::string size_arg(kernel::Target t, const SimSettings& s) {
  switch (t) {
    case kernel::Target::Heat:
      return std::to_string(s.size_x) + "x" + std::to_string(s.size_y);
    case kernel::Target::Vector:
      return std::to_string(s.size_x);
    case kernel::Target::Matmul:
      return std::to_string(s.size_x) + "x" + std::to_string(s.size_y) + "x" + std::to_string(s.size_z);
  }
  return {};
}

}  // namespace

std::string find_on_path(const std::string& program, const char* path_env) {
  if (!path_env) return {};
  const std::string path(path_env);
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = path.find(':', start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      const std::string full = (std::filesystem::path(dir) / program).string();
      if (::access(full.c_str(), X_OK) == 0) return full;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

std::string gpu_check_unavailable(bool gpu, const std::string& gpu_reason, const char* path_env) {
  if (!gpu) return "needs a CUDA GPU (" + (gpu_reason.empty() ? std::string("none found") : gpu_reason) + ")";
  if (find_on_path("compute-sanitizer", path_env).empty())
    return "needs compute-sanitizer on the PATH (it comes with the CUDA toolkit: add /usr/local/cuda/bin)";
  return {};
}

std::string gpu_check_command(const std::string& sanitizer, const std::string& self, const std::string& file,
                              const GpuCheckRequest& r) {
  const SimSettings& s = r.settings;
  const kernel::Contract& c = kernel::contract(r.target);
  const int bx = s.block_x > 0 ? s.block_x : c.default_block_x, by = s.block_y > 0 ? s.block_y : c.default_block_y;
  const bool vec = r.target == kernel::Target::Vector;
  std::string cmd = shell_quote(sanitizer) + " --tool memcheck --print-limit 20 " + shell_quote(self) +
                    " bench kernel --target " + std::string(kernel::k_target_names.name_of(r.target)) +
                    " --source " + shell_quote(file) + " --size " + size_arg(r.target, s) + " --block " +
                    (vec ? std::to_string(bx) : std::to_string(bx) + "x" + std::to_string(by));
  if (s.grid_x > 0)
    cmd += " --grid " + (vec ? std::to_string(s.grid_x) : std::to_string(s.grid_x) + "x" + std::to_string(std::max<int64_t>(s.grid_y, 1)));
  if (vec && r.op) cmd += " --reference " + shell_quote(*r.op);
  return cmd + " 2>&1";
}

SanitizerReport parse_sanitizer_report(const std::string& output, int exit_status) {
  SanitizerReport r;
  r.exit_status = exit_status;
  // The last "ERROR SUMMARY: N error(s)" line (the bench's own output may come before it).
  const std::string key = "ERROR SUMMARY:";
  for (size_t at = output.find(key); at != std::string::npos; at = output.find(key, at + key.size())) {
    std::istringstream in(output.substr(at + key.size(), 32));
    int n = -1;
    if (in >> n && n >= 0) r.errors = n;
  }
  const std::string exit = exit_status < 0 ? "it did not finish" : "exit status " + std::to_string(exit_status);
  if (r.errors < 0)
    r.summary = "compute-sanitizer printed no ERROR SUMMARY (" + exit + "): read its output below";
  else if (r.errors == 0)
    r.summary = std::string("compute-sanitizer: no errors; ") +
                (exit_status == 0 ? "the GPU run's check passed (exit status 0)" : "but the run failed (" + exit + ")");
  else
    r.summary = "compute-sanitizer: " + std::to_string(r.errors) + (r.errors == 1 ? " error" : " errors") + " (" +
                exit + ")";
  return r;
}

GpuCheck::~GpuCheck() {
  m_job.wait();
}

void GpuCheck::set_gpu(bool available, std::string reason) {
  m_gpu = available;
  m_gpu_reason = std::move(reason);
}

std::string GpuCheck::unavailable() {
  if (!m_gpu) {
    const DeviceInfo d = query_device();
    m_gpu = d.available;
    m_gpu_reason = d.reason;
  }
  return gpu_check_unavailable(*m_gpu, m_gpu_reason, std::getenv("PATH"));
}

void GpuCheck::clear() {
  if (running()) return;
  m_report.clear();
  m_summary.clear();
  m_clean = false;
}

bool GpuCheck::start(const GpuCheckRequest& r) {
  if (running()) return false;
  m_clean = false;
  m_summary.clear();
  if (const std::string why = unavailable(); !why.empty()) {
    m_report = "cannot check on the GPU: " + why;
    return false;
  }
  const std::string sanitizer = find_on_path("compute-sanitizer", std::getenv("PATH"));
  std::error_code ec;
  const std::string self =
      !m_program.empty() ? m_program : std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (self.empty()) {
    m_report = "cannot check on the GPU: cannot find blockscope's own binary (/proc/self/exe)";
    return false;
  }
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("blockscope-check-" + std::to_string(::getpid()) + "-" +
                             std::to_string(reinterpret_cast<uintptr_t>(this)) + ".cu"))
                               .string();
  std::string err;
  if (!write_text_file(file, r.source, &err)) {
    m_report = "cannot check on the GPU: " + err;
    return false;
  }
  const std::string cmd = gpu_check_command(sanitizer, self, file, r);
  auto p = std::make_shared<Pending>();
  m_pending = p;
  m_report = "running: " + cmd;
  m_job.start("compute-sanitizer", [cmd, file, p](JobControl&) {
    std::string out = "$ " + cmd + "\n";
    if (FILE* f = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n = 0;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        out.append(buf, n);
        if (out.size() > k_max_report) out.erase(0, out.size() - k_max_report);  // keep the summary at the end
      }
      const int rc = ::pclose(f);
      p->exit_status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
      out += "\n(exit status " + std::to_string(p->exit_status) + ")";
    } else {
      out += "cannot start compute-sanitizer";
    }
    std::error_code ec2;
    std::filesystem::remove(file, ec2);
    p->output = std::move(out);
  });
  return true;
}

bool GpuCheck::poll() {
  if (!m_pending || running()) return false;
  const std::shared_ptr<Pending> p = std::move(m_pending);
  m_pending.reset();
  std::string status;
  finish_job(m_job, status, [&] {
    const SanitizerReport s = parse_sanitizer_report(p->output, p->exit_status);
    m_report = p->output;
    m_summary = s.summary;
    m_clean = s.clean();
  });
  if (!status.empty()) m_report = "the GPU check stopped: " + status;
  return true;
}

}  // namespace bs
