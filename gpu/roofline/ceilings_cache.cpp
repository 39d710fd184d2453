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

double Ceilings::peak_gflops(work::Math m) const {
  switch (m) {
    case work::Math::Fp32: return fp32_gflops;
    case work::Math::Tf32: return tf32_gflops;
    case work::Math::Fp16: return fp16_gflops;
    case work::Math::Bf16: return bf16_gflops;
  }
  return 0;
}

std::string tensor_core_summary(const Ceilings& c) {
  std::string out;
  for (const work::Math m : k_tensor_maths)
    if (c.peak_gflops(m) > 0)
      out += std::string(out.empty() ? "" : ", ") + work::to_string(m) + " " +
             fmt_fixed(c.peak_gflops(m) / 1e3, 0) + " TFLOP/s";
  if (out.empty()) out = "none";
  if (!c.tc_absent.empty()) out += "; absent: " + c.tc_absent;
  return out;
}

nlohmann::json to_json(const Ceilings& c) {
  nlohmann::json j = {{"blockscope_ceilings", 1},
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
  if (c.gpu && !c.tc_pending)
    j["tensor_cores"] = {{"bf16_gflops", c.bf16_gflops},
                         {"fp16_gflops", c.fp16_gflops},
                         {"tf32_gflops", c.tf32_gflops},
                         {"how", c.tc_how},
                         {"absent", c.tc_absent}};
  return j;
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
  if (!c.gpu) return c;
  // Files written before the tensor-core ceilings have no "tensor_cores": measured when next asked for.
  if (!j.contains("tensor_cores")) {
    c.tc_pending = true;
    c.tc_absent = "not measured yet (the cached ceilings predate tensor-core ceilings: Measure again)";
    return c;
  }
  const nlohmann::json& t = j["tensor_cores"];
  if (!t.is_object()) throw InvalidRequest("tensor_cores: not an object");
  auto tc_num = [&](const char* f) {
    if (!t.contains(f) || !t[f].is_number() || !(t[f].get<double>() >= 0))
      throw InvalidRequest(std::string("tensor_cores.") + f + ": missing or not a number >= 0 (0: absent)");
    return t[f].get<double>();
  };
  auto tc_str = [&](const char* f) {
    if (!t.contains(f) || !t[f].is_string())
      throw InvalidRequest(std::string("tensor_cores.") + f + ": missing or not text");
    return t[f].get<std::string>();
  };
  c.bf16_gflops = tc_num("bf16_gflops");
  c.fp16_gflops = tc_num("fp16_gflops");
  c.tf32_gflops = tc_num("tf32_gflops");
  c.tc_how = tc_str("how");
  c.tc_absent = tc_str("absent");
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
    if (r.ceilings && r.ceilings->tc_pending) {
      // Cached before blockscope measured tensor cores: those alone are measured now, the rest kept.
      Ceilings c = *r.ceilings;
      measure_tensor_cores(c);
      c.tc_pending = false;
      std::string err;
      const bool saved = write_cache(path, c, &err);
      if (message)
        *message = "from the cache (" + path + "), measured " + c.measured_utc + "; tensor cores measured now" +
                   (saved ? "" : " (not cached: " + err + ")");
      return c;
    }
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
