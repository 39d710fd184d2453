// host_baseline.h: what every lab's CPU baseline and host-side checks share: the CPU mode and its label,
// element counts as people type them ("256M"), and how much host memory a run may still take. Plain C++ (no
// CUDA headers), so ui/ and the CLI use it too. Each lab's namespace brings these in by name
// (`using bs::CpuMode;` ...), so `heat::CpuMode` and `vector::parse_count` are these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bs {

// --- CPU baselines
enum class CpuMode { OneThread, AllThreads };
int cpu_thread_count();                 // OpenMP's thread count for AllThreads
const char* cpu_mode_label(CpuMode m);  // "CPU, 1 thread" / "CPU, all N threads (OpenMP)"

// --- Element counts
// Parses an element count: a whole number, optionally with a binary suffix K, M or G (1K = 1024), e.g.
// "256M". Range is not checked here (each lab's validate does that, with the message students see); values
// past int64 saturate so that the range check reports them.
struct ParsedCount {
  std::optional<int64_t> value;
  std::string error;
};
ParsedCount parse_count(std::string_view text, std::string_view what);
std::string format_count(int64_t n);  // 268435456 -> "256M", 1000 -> "1000"

// --- Host memory
// Bytes of host memory available for new allocations: the least of MemAvailable in /proc/meminfo (else
// sysconf(_SC_AVPHYS_PAGES) * page size), the headroom under ulimit -v / -d and under the cgroup's memory.max.
// 0 when none can be read.
uint64_t available_host_bytes();
// nullopt when `arrays` float arrays of n elements fit into `available` bytes (or available is 0: unknown);
// else "n = ... needs X MiB of host memory for ...; Y MiB are available (...)".
std::optional<std::string> check_host_memory(int64_t n, int arrays, uint64_t available);

}  // namespace bs
