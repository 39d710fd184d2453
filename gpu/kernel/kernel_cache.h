// kernel_cache.h: compiled kernels kept in memory (a small LRU) and on disk, so a kernel compiled once comes
// back in milliseconds (also in the next run of the app). The key is SHA-256 of everything that changes the
// output: the source, the contract (target), the prelude's version, NVRTC's options (normalised order), the
// target architecture and NVRTC's version. Entries are written atomically (core/text.h); a corrupt or
// truncated entry (checked by its own SHA-256) is a miss and is replaced, never a crash.
//
// Folder: $BLOCKSCOPE_CACHE_DIR if set (tests), else $XDG_CACHE_HOME/blockscope/kernels, else
// ~/.cache/blockscope/kernels. One file per entry, <key>.bskc.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "gpu/kernel/compiler.h"

namespace bs::kernel {

// The folder as described above; empty when none can be named (no HOME).
std::string default_cache_dir();
// The cache key of `r` for NVRTC `nvrtc_version` (64 hex digits).
std::string cache_key(const CompileRequest& r, const std::string& nvrtc_version);

// Results kept: Ok, CompileError and SignatureError (they depend only on the key); never a missing NVRTC,
// bad options or an internal error.
class KernelCache {
 public:
  // `dir` empty: memory only. The folder is created when the first entry is written.
  explicit KernelCache(std::string dir, size_t memory_entries = 16);
  // Waits for the entries still being written (flush()).
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The cached result for `r`, marked from_cache with total_ms = the lookup time; nullopt on a miss.
  std::optional<CompileResult> find(const CompileRequest& r, const std::string& nvrtc_version);
  // Keeps `result` (compiled from `r`) in memory at once and, with a folder, on disk from a writer thread:
  // the write (with its fsync, ~1 ms on a quiet machine, 14 ms measured on the loaded 2-core one) does not
  // delay the result. A disk that refuses the write is not an error for the caller (the entry stays in
  // memory); last_error() says why, once written.
  void store(const CompileRequest& r, const CompileResult& result);
  // Returns once every entry stored so far has been written (or has failed to be).
  void flush();
  // Empties memory and deletes this cache's entries (*.bskc) from the folder.
  void clear();

  const std::string& dir() const { return m_dir; }
  std::string entry_path(const std::string& key) const;
  std::string last_error() const;
  size_t memory_size() const;

 private:
  struct Entry {
    std::string key;
    CompileResult result;
  };
  void remember(const std::string& key, const CompileResult& r);  // m_mutex held
  void writer();
  struct PendingWrite {
    std::string path, data;
  };

  std::string m_dir;
  size_t m_capacity;
  mutable std::mutex m_mutex;
  std::list<Entry> m_lru;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> m_index;
  std::string m_last_error;
  std::deque<PendingWrite> m_writes;  // waiting for the writer thread
  bool m_writing = false;             // the writer holds one entry now
  bool m_stop = false;
  std::condition_variable m_write_cv;
  std::thread m_writer;  // started on the first store to disk
};

// compile_kernel through a cache: a hit never calls NVRTC. With NVRTC missing, says so (nothing is looked up:
// its version is part of the key). The source's checks (precheck_compile) run first, hit or not, and their
// refusals are never stored.
CompileResult compile_cached(KernelCache& cache, const CompileRequest& r);

// The entry format (exposed for tests): serialise / parse; parse returns nullopt for anything damaged.
std::string serialize_entry(const std::string& key, const CompileResult& r);
std::optional<CompileResult> parse_entry(const std::string& key, std::string_view data);

}  // namespace bs::kernel
