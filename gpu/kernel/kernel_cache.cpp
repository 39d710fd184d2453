// kernel_cache.cpp: see kernel_cache.h. Entry format (binary-safe):
//   "BSKC1\n" <key>\n <field count>\n then per field: <byte length>\n<bytes>\n, then "sha256:" <64 hex>\n
// over everything before it. Fields: status, arch, nvrtc version, nvrtc ms, kernel name, lowered name, log,
// cubin, ptx. Diagnostics and resources are derived again from the log (finish_result).
#include "gpu/kernel/kernel_cache.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/text.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/sha256.h"

namespace bs::kernel {

namespace {

constexpr std::string_view k_magic = "BSKC1\n";
constexpr size_t k_max_entry_bytes = size_t{64} << 20;

void put(std::string* out, std::string_view field) {
  *out += std::to_string(field.size());
  *out += '\n';
  out->append(field);
  *out += '\n';
}

bool take_line(std::string_view* in, std::string_view* line) {
  const size_t nl = in->find('\n');
  if (nl == std::string_view::npos) return false;
  *line = in->substr(0, nl);
  in->remove_prefix(nl + 1);
  return true;
}

bool take_size(std::string_view* in, size_t* n) {
  std::string_view line;
  if (!take_line(in, &line) || line.empty() || line.size() > 12) return false;
  size_t v = 0;
  for (char c : line) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *n = v;
  return true;
}

bool take_field(std::string_view* in, std::string* out) {
  size_t n = 0;
  if (!take_size(in, &n) || in->size() < n + 1 || (*in)[n] != '\n') return false;
  out->assign(in->substr(0, n));
  in->remove_prefix(n + 1);
  return true;
}

bool is_cacheable(CompileStatus s) {
  return s == CompileStatus::Ok || s == CompileStatus::CompileError || s == CompileStatus::SignatureError;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("BLOCKSCOPE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/blockscope/kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/blockscope/kernels";
  return {};
}

std::string cache_key(const CompileRequest& r, const std::string& nvrtc_version) {
  // 2: -D defines became lines before the source (compiler.cpp), the contract check #undefs its names.
  std::string text = "blockscope kernel cache 2";
  const auto add = [&text](std::string_view name, std::string_view value) {
    text += '\0';
    text += name;
    text += '=';
    text += std::to_string(value.size());
    text += ':';
    text += value;
  };
  add("source", r.source);
  add("target", r.target ? k_target_names.name_of(*r.target) : "none");
  add("prelude", std::to_string(k_prelude_version) + ":" + std::string(prelude_source()));
  for (const std::string& o : nvrtc_options(r))  // sorted, arch first
    add("option", o);
  std::vector<std::string> defines;  // sorted: their order changes nothing (a name is defined once)
  for (const auto& [name, value] : r.options.defines)
    defines.push_back(name + "=" + value);
  std::sort(defines.begin(), defines.end());
  for (const std::string& d : defines)
    add("define", d);
  add("arch", std::to_string(r.arch));
  add("nvrtc", nvrtc_version);
  return sha256_hex(text);
}

std::string serialize_entry(const std::string& key, const CompileResult& r) {
  std::string out(k_magic);
  out += key + "\n9\n";
  put(&out, std::to_string(static_cast<int>(r.status)));
  put(&out, std::to_string(r.arch));
  put(&out, r.nvrtc_version);
  put(&out, std::to_string(r.nvrtc_ms));
  put(&out, r.kernel_name);
  put(&out, r.lowered_name);
  put(&out, r.log);
  put(&out, r.cubin);
  put(&out, r.ptx);
  out += "sha256:" + sha256_hex(out) + "\n";
  return out;
}

std::optional<CompileResult> parse_entry(const std::string& key, std::string_view data) {
  // The checksum first: a truncated or altered entry fails here before anything is read from it.
  const size_t tail = std::string_view("sha256:").size() + 64 + 1;
  if (data.size() < k_magic.size() + tail) return std::nullopt;
  const std::string_view body = data.substr(0, data.size() - tail);
  const std::string_view sum = data.substr(data.size() - tail);
  if (sum != "sha256:" + sha256_hex(body) + "\n") return std::nullopt;
  std::string_view in = body;
  if (in.substr(0, k_magic.size()) != k_magic) return std::nullopt;
  in.remove_prefix(k_magic.size());
  std::string_view line;
  size_t count = 0;
  if (!take_line(&in, &line) || line != key || !take_size(&in, &count) || count != 9) return std::nullopt;
  std::vector<std::string> f(9);
  for (std::string& s : f)
    if (!take_field(&in, &s)) return std::nullopt;
  if (!in.empty()) return std::nullopt;
  CompileResult r;
  try {
    const int status = std::stoi(f[0]);
    if (status < 0 || status > static_cast<int>(CompileStatus::LimitExceeded)) return std::nullopt;
    r.status = static_cast<CompileStatus>(status);
    r.arch = std::stoi(f[1]);
    r.nvrtc_ms = std::stod(f[3]);
  } catch (...) {
    return std::nullopt;
  }
  r.nvrtc_version = f[2];
  r.kernel_name = f[4];
  r.lowered_name = f[5];
  r.log = std::move(f[6]);
  r.cubin = std::move(f[7]);
  r.ptx = std::move(f[8]);
  return r;
}

KernelCache::KernelCache(std::string dir, size_t memory_entries)
    : m_dir(std::move(dir)), m_capacity(memory_entries == 0 ? 1 : memory_entries) {}

KernelCache::~KernelCache() {
  flush();
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_write_cv.notify_all();
  if (m_writer.joinable()) m_writer.join();
}

void KernelCache::flush() {
  std::unique_lock lock(m_mutex);
  m_write_cv.wait(lock, [this] { return m_writes.empty() && !m_writing; });
}

void KernelCache::writer() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_write_cv.wait(lock, [this] { return m_stop || !m_writes.empty(); });
    if (m_writes.empty()) return;  // stopping, nothing left
    PendingWrite w = std::move(m_writes.front());
    m_writes.pop_front();
    m_writing = true;
    lock.unlock();
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    std::string err;
    if (ec)
      err = "cannot create the kernel cache folder " + m_dir + ": " + ec.message();
    else
      write_file_atomic(w.path, w.data, &err);  // err says why it failed (a full disk, no permission)
    lock.lock();
    if (!err.empty()) m_last_error = err;
    m_writing = false;
    m_write_cv.notify_all();
  }
}

std::string KernelCache::entry_path(const std::string& key) const {
  return m_dir.empty() ? std::string() : m_dir + "/" + key + ".bskc";
}

void KernelCache::remember(const std::string& key, const CompileResult& r) {
  if (auto it = m_index.find(key); it != m_index.end()) {
    m_lru.erase(it->second);
    m_index.erase(it);
  }
  m_lru.push_front({key, r});
  m_index[key] = m_lru.begin();
  while (m_lru.size() > m_capacity) {
    m_index.erase(m_lru.back().key);
    m_lru.pop_back();
  }
}

std::optional<CompileResult> KernelCache::find(const CompileRequest& r, const std::string& nvrtc_version) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string key = cache_key(r, nvrtc_version);
  std::optional<CompileResult> hit;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_index.find(key); it != m_index.end()) {
      m_lru.splice(m_lru.begin(), m_lru, it->second);  // most recent first
      hit = it->second->result;
    }
  }
  if (!hit && !m_dir.empty()) {
    std::string data, err;
    std::error_code ec;
    const std::string path = entry_path(key);
    if (std::filesystem::is_regular_file(path, ec) &&
        read_file_limited(path, k_max_entry_bytes, &data, &err)) {
      if (auto parsed = parse_entry(key, data)) {
        finish_result(r, &*parsed);
        // An entry whose derived status disagrees with the stored one is damaged in a way the checksum
        // cannot see (written by another version): a miss.
        if (is_cacheable(parsed->status)) hit = std::move(parsed);
      }
      if (hit) {
        std::lock_guard lock(m_mutex);
        remember(key, *hit);
      }
      // Otherwise a damaged entry: a miss; store() replaces it after the compile.
    }
  }
  if (!hit) return std::nullopt;
  hit->from_cache = true;
  hit->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return hit;
}

void KernelCache::store(const CompileRequest& r, const CompileResult& result) {
  if (!is_cacheable(result.status)) return;
  const std::string key = cache_key(r, result.nvrtc_version);
  CompileResult kept = result;
  kept.from_cache = false;
  std::string data = m_dir.empty() ? std::string() : serialize_entry(key, kept);
  std::lock_guard lock(m_mutex);
  remember(key, kept);
  if (m_dir.empty()) return;
  m_writes.push_back({entry_path(key), std::move(data)});
  if (!m_writer.joinable()) m_writer = std::thread([this] { writer(); });
  m_write_cv.notify_all();
}

void KernelCache::clear() {
  flush();
  std::lock_guard lock(m_mutex);
  m_lru.clear();
  m_index.clear();
  if (m_dir.empty()) return;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(m_dir, ec))
    if (e.path().extension() == ".bskc") std::filesystem::remove(e.path(), ec);
}

std::string KernelCache::last_error() const {
  std::lock_guard lock(m_mutex);
  return m_last_error;
}

size_t KernelCache::memory_size() const {
  std::lock_guard lock(m_mutex);
  return m_lru.size();
}

CompileResult compile_cached(KernelCache& cache, const CompileRequest& r) {
  const NvrtcLoad& nv = nvrtc();
  if (!nv.ok()) return compile_kernel(r);  // says NVRTC is missing
  // The source's checks first, never cached: an #include's target (a pipe now, a file later) is not part of
  // the key.
  if (auto early = precheck_compile(r)) return *early;
  if (auto hit = cache.find(r, nv.version())) return *hit;
  CompileResult out = compile_kernel(r);
  cache.store(r, out);
  return out;
}

}  // namespace bs::kernel
