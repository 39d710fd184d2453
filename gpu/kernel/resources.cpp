// resources.cpp: see resources.h.
#include "gpu/kernel/resources.h"

#include <algorithm>
#include <regex>
#include <string>

namespace bs::kernel {

namespace {

int to_int(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::vector<KernelResources> parse_ptxas_report(std::string_view log) {
  static const std::regex entry(R"(ptxas info\s*: Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(ptxas info\s*: Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<KernelResources> out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string line(log.substr(start, end - start));
    start = end + 1;
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      KernelResources k;
      k.name = m[1].str();
      out.push_back(k);
      continue;
    }
    if (out.empty()) continue;
    KernelResources& k = out.back();
    if (std::regex_search(line, m, frame)) {
      k.stack_frame_bytes = to_int(m[1].str());
      k.spill_store_bytes = to_int(m[2].str());
      k.spill_load_bytes = to_int(m[3].str());
    } else if (std::regex_search(line, m, used)) {
      k.registers = to_int(m[1].str());
      if (std::regex_search(line, m, barriers)) k.barriers = to_int(m[1].str());
      if (std::regex_search(line, m, smem)) k.shared_static_bytes = to_int(m[1].str());
      if (std::regex_search(line, m, cmem)) k.constant_bytes = to_int(m[1].str());
    }
  }
  for (KernelResources& k : out)
    k.max_threads_per_block = max_threads_for_registers(k.registers, 0);
  return out;
}

void apply_ptx_limits(std::string_view ptx, std::vector<KernelResources>* kernels) {
  // ".visible .entry NAME(" ... ")" then optional ".maxntid X, Y, Z" before the body's "{".
  for (KernelResources& k : *kernels) {
    const std::string head = ".entry " + k.name + "(";
    const size_t at = ptx.find(head);
    if (at == std::string_view::npos) continue;
    const size_t body = ptx.find('{', at);
    const std::string decl(
        ptx.substr(at, body == std::string_view::npos ? std::string_view::npos : body - at));
    static const std::regex maxntid(R"(\.maxntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?)");
    std::smatch m;
    if (std::regex_search(decl, m, maxntid)) {
      int t = to_int(m[1].str());
      if (m[2].matched) t *= to_int(m[2].str());
      if (m[3].matched) t *= to_int(m[3].str());
      k.launch_bounds_threads = t;
    }
    k.max_threads_per_block = max_threads_for_registers(k.registers, k.launch_bounds_threads);
  }
}

int max_threads_for_registers(int registers, int launch_bounds_threads) {
  constexpr int k_regs_per_block = 65536, k_unit = 256, k_max_threads = 1024;
  int threads = k_max_threads;
  if (registers > 0) {
    const int per_warp = (registers * 32 + k_unit - 1) / k_unit * k_unit;
    threads = std::min(threads, k_regs_per_block / per_warp * 32);
  }
  if (launch_bounds_threads > 0) threads = std::min(threads, launch_bounds_threads);
  return threads;
}

}  // namespace bs::kernel
