// ceilings_cache.cpp: the per-device cache of the measured ceilings, and the datasheet table.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/text.h"
#include "gpu/roofline/ceilings.h"

namespace bs::roofline {

std::optional<Datasheet> datasheet_for(std::string_view name) {
  struct Row {
    const char* match;
    Datasheet d;
  };
  // NVIDIA's published figures (FP32 non-tensor peak at boost clock; memory bandwidth).
  static const Row k_rows[] = {
      {"H200", {"H200 SXM (datasheet)", 4800, 67000}},
      {"H100 NVL", {"H100 NVL (datasheet)", 3900, 60000}},
      {"H100 PCIe", {"H100 PCIe (datasheet)", 2000, 51000}},
      {"H100", {"H100 SXM5 80GB (datasheet)", 3350, 67000}},
      {"A100-SXM4-80GB", {"A100 SXM 80GB (datasheet)", 2039, 19500}},
      {"A100 80GB PCIe", {"A100 PCIe 80GB (datasheet)", 1935, 19500}},
      {"A100", {"A100 40GB (datasheet)", 1555, 19500}},
      {"L40S", {"L40S (datasheet)", 864, 91600}},
      {"RTX 4090", {"GeForce RTX 4090 (datasheet)", 1008, 82600}},
      {"V100", {"V100 SXM2 (datasheet)", 900, 15700}},
  };
  for (const Row& r : k_rows)
    if (name.find(r.match) != std::string_view::npos) return r.d;
  return std::nullopt;
}

nlohmann::json to_json(const Ceilings& c) {
  return {{"blockscope_ceilings", 1},
          {"gpu", c.gpu},
          {"device", c.device},
          {"key", c.key},
          {"measured_utc", c.measured_utc},
          {"dram_gbs", c.dram_gbs},
          {"l2_gbs", c.l2_gbs},
          {"smem_gbs", c.smem_gbs},
          {"fp32_gflops", c.fp32_gflops},
          {"launch_us", c.launch_us},
          {"how", c.how}};
}

Ceilings from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("blockscope_ceilings", 0) != 1)
    throw InvalidRequest("not a blockscope ceilings file (no \"blockscope_ceilings\": 1)");
  Ceilings c;
  auto str = [&](const char* f) {
    if (!j.contains(f) || !j[f].is_string()) throw InvalidRequest(std::string(f) + ": missing or not text");
    return j[f].get<std::string>();
  };
  auto num = [&](const char* f, bool positive) {
    if (!j.contains(f) || !j[f].is_number())
      throw InvalidRequest(std::string(f) + ": missing or not a number");
    const double v = j[f].get<double>();
    if (!(v >= 0) || (positive && !(v > 0)))
      throw InvalidRequest(std::string(f) + ": " + j[f].dump() + " is not a positive number");
    return v;
  };
  if (!j.contains("gpu") || !j["gpu"].is_boolean()) throw InvalidRequest("gpu: missing or not true/false");
  c.gpu = j["gpu"].get<bool>();
  c.device = str("device");
  c.key = str("key");
  c.measured_utc = str("measured_utc");
  c.how = str("how");
  c.dram_gbs = num("dram_gbs", true);
  c.fp32_gflops = num("fp32_gflops", true);
  c.l2_gbs = num("l2_gbs", c.gpu);
  c.smem_gbs = num("smem_gbs", c.gpu);
  c.launch_us = num("launch_us", c.gpu);
  return c;
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/blockscope";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/blockscope";
  return "/tmp/blockscope-cache";
}

std::string cache_path(const std::string& dir, const std::string& key) {
  // A file name from the key: letters and digits kept, the rest '_', plus a hash so that keys differing
  // only in punctuation do not share a file.
  std::string name;
  for (char ch : key)
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (name.size() > 80) name.resize(80);
  const size_t h = std::hash<std::string>{}(key);
  std::ostringstream os;
  os << dir << "/ceilings-" << name << "-" << std::hex << (h & 0xffffffffu) << ".json";
  return os.str();
}

CacheRead read_cache(const std::string& path, const std::string& key) {
  CacheRead r;
  std::ifstream in(path);
  if (!in) return r;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    Ceilings c = from_json(nlohmann::json::parse(ss.str()));
    if (c.key != key) {
      r.message = "cache file " + path + " is for another device (" + c.key + ")";
      return r;
    }
    r.ceilings = std::move(c);
  } catch (const std::exception& e) {
    r.message = "cache file " + path + " is corrupt (" + e.what() + ")";
  }
  return r;
}

bool write_cache(const std::string& path, const Ceilings& c, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  return write_text_file(path, to_json(c).dump(1) + "\n", error);
}

Ceilings get_ceilings(bool gpu, const std::string& cache_dir, std::string* message, bool force) {
  const std::string key = gpu ? gpu_key() : cpu_key();
  const std::string path = cache_path(cache_dir, key);
  std::string why;
  if (!force) {
    CacheRead r = read_cache(path, key);
    if (r.ceilings) {
      if (message) *message = "from the cache (" + path + "), measured " + r.ceilings->measured_utc;
      return *r.ceilings;
    }
    why = r.message;
  }
  Ceilings c = gpu ? measure_gpu() : measure_cpu();
  std::string err;
  const bool saved = write_cache(path, c, &err);
  if (message)
    *message = (why.empty() ? std::string() : why + ": ") + "measured now" +
               (saved ? ", cached in " + path : "; not cached: " + err);
  return c;
}

}  // namespace bs::roofline
