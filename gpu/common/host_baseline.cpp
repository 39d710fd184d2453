// host_baseline.cpp: see host_baseline.h.
#include "gpu/common/host_baseline.h"

#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace bs {

int cpu_thread_count() {
  return omp_get_max_threads();
}

const char* cpu_mode_label(CpuMode m) {
  static const std::string all = "CPU, all " + std::to_string(omp_get_max_threads()) + " threads (OpenMP)";
  return m == CpuMode::OneThread ? "CPU, 1 thread" : all.c_str();
}

std::string format_count(int64_t n) {
  if (n != 0 && n % (int64_t{1} << 30) == 0) return std::to_string(n >> 30) + "G";
  if (n != 0 && n % (int64_t{1} << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n != 0 && n % (int64_t{1} << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

ParsedCount parse_count(std::string_view text, std::string_view what) {
  ParsedCount r;
  const std::string shown(text);
  auto fail = [&] {
    r.value.reset();
    r.error = std::string(what) + ": '" + shown +
              "' is not an element count (a whole number, optionally with K, M or G: 1000, 64K, 256M)";
    return r;
  };
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  if (text.empty()) return fail();
  int shift = 0;
  switch (text.back()) {
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    default:
      break;
  }
  if (shift) text.remove_suffix(1);
  if (text.empty()) return fail();
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    r.error = std::string(what) + ": '" + shown + "' is far too large";
    return r;
  }
  if (ec != std::errc() || ptr != text.data() + text.size()) return fail();
  // Saturate instead of overflowing: validate() then reports "more than 512M".
  const int64_t limit = INT64_MAX >> shift;
  if (v > limit)
    v = INT64_MAX;
  else if (v < -limit)
    v = INT64_MIN;
  else
    v *= int64_t{1} << shift;
  r.value = v;
  return r;
}

namespace {

// MemAvailable from /proc/meminfo (the kernel's estimate of what can be allocated without swapping), else
// sysconf(_SC_AVPHYS_PAGES) * page size; 0 when neither can be read.
uint64_t system_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream ss(line.substr(13));
      uint64_t kib = 0;
      if (ss >> kib) return kib * 1024;
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  return 0;
}

// A "Vm...:   123 kB" line of /proc/self/status in bytes; nullopt when absent.
std::optional<uint64_t> self_status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream ss(line.substr(key.size() + 1));
      uint64_t kib = 0;
      if (ss >> kib) return kib * 1024;
    }
  }
  return std::nullopt;
}

// What a resource limit still allows: limit minus what the process already uses (clamped at 0); nullopt
// when unlimited or unreadable. RLIMIT_AS bounds the virtual size (VmSize), RLIMIT_DATA the data segment and
// private mappings, where malloc puts large blocks (VmData).
std::optional<uint64_t> rlimit_headroom(int resource, const char* status_key) {
  rlimit lim{};
  if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const uint64_t used = self_status_bytes(status_key).value_or(0);
  const uint64_t cap = static_cast<uint64_t>(lim.rlim_cur);
  return cap > used ? cap - used : 0;
}

// One whole-number value of a cgroup file ("max" or unreadable: nullopt).
std::optional<uint64_t> read_cgroup_value(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// cgroup v2: the least memory.max - memory.current over this process's cgroup and its ancestors (a parent's
// limit binds its children too); nullopt without cgroup v2 or without a limit.
std::optional<uint64_t> cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty() || path[0] != '/') return std::nullopt;
  std::optional<uint64_t> best;
  for (;;) {
    const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
    if (const auto max = read_cgroup_value(dir + "/memory.max")) {
      const uint64_t current = read_cgroup_value(dir + "/memory.current").value_or(0);
      const uint64_t room = *max > current ? *max - current : 0;
      best = best ? std::min(*best, room) : room;
    }
    if (path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  return best;
}

}  // namespace

uint64_t available_host_bytes() {
  // The least of what the system has free and what this process may still take: a ulimit or a container's
  // memory limit can be far below MemAvailable, and allocating past it ends in std::bad_alloc or the OOM
  // killer instead of a message.
  uint64_t best = system_available_bytes();
  const auto take = [&best](std::optional<uint64_t> v) {
    if (v) best = best == 0 ? *v : std::min(best, *v);
  };
  take(rlimit_headroom(RLIMIT_AS, "VmSize"));
  take(rlimit_headroom(RLIMIT_DATA, "VmData"));
  take(cgroup_headroom());
  return best;
}

std::optional<std::string> check_host_memory(int64_t n, int arrays, uint64_t available) {
  if (n <= 0 || arrays <= 0) return std::nullopt;
  uint64_t per_array = 0, need = 0;  // saturated: a count past 2^62 needs more than any machine has
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), sizeof(float), &per_array)) per_array = UINT64_MAX;
  if (__builtin_mul_overflow(per_array, static_cast<uint64_t>(arrays), &need)) need = UINT64_MAX;
  if (available == 0 || need <= available) return std::nullopt;  // unknown: let the allocation decide
  return "n = " + std::to_string(n) + " needs " + std::to_string(need >> 20) + " MiB of host memory for " +
         std::to_string(arrays) + " arrays of " + std::to_string(per_array >> 20) + " MiB; " +
         std::to_string(available >> 20) +
         " MiB are available (the least of MemAvailable in /proc/meminfo, the headroom under ulimit -v / -d "
         "and under the cgroup's memory.max)";
}

}  // namespace bs
