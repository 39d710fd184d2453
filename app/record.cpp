// record.cpp: see record.h.
#include "app/record.h"
#include "gpu/common/text.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/json_file.h"
#include "app/sweep_targets.h"
#include "gpu/common/device_info.h"
#include "gpu/common/gpu_error.h"
#include "ui/figure_export.h"
#include "ui/gl/context.h"

namespace bs::record {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* k_csv = "sweep.csv";
constexpr const char* k_summary = "summary.csv";
constexpr const char* k_json = "sweep.json";
constexpr const char* k_svg = "figure.svg";
constexpr const char* k_png = "figure.png";
constexpr const char* k_record = "record.json";

std::string time_text(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

json gpu_json() {
  const DeviceInfo d = query_device();
  json g = {{"available", d.available},
            {"driver_version", d.driver_version ? version_string(d.driver_version) : ""},
            {"runtime_version", d.runtime_version ? version_string(d.runtime_version) : ""}};
  if (!d.available) {
    g["reason"] = d.reason;
    return g;
  }
  g["name"] = d.name;
  g["compute_capability"] = d.compute_capability();
  g["sm_count"] = d.sm_count;
  g["sm_clock_mhz"] = d.clock_khz / 1000;
  g["memory_clock_mhz"] = d.mem_clock_khz / 1000;
  g["memory_bus_bits"] = d.mem_bus_bits;
  g["total_memory_mib"] = d.total_mem >> 20;
  g["pci_bus_id"] = d.pci_bus_id;
  return g;
}

// Every parameter of the lab at its value in this sweep: the swept ones as their lists.
json parameters_json(const sweep::Definition& d) {
  json p = json::object();
  const sweep::Target* t = sweep::find_target(d.lab);
  if (!t) return p;
  for (const auto& [k, v] : sweep::default_values(*t, d.fixed))
    p[k] = v;
  for (const sweep::Param& sp : d.params)
    p[sp.name] = sp.values;
  return p;
}

}  // namespace

std::string utc_timestamp() {
  return time_text("%Y-%m-%dT%H:%M:%SZ");
}

std::string compact_timestamp() {
  return time_text("%Y%m%d-%H%M%S");
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string m = line.substr(colon + 1);
        while (!m.empty() && m.front() == ' ')
          m.erase(m.begin());
        return m;
      }
    }
  return "unknown CPU";
}

json environment_record(const std::string& render_path) {
  json rec;
  rec["blockscope_record"] = 1;
  rec["blockscope_version"] = k_blockscope_version;
  rec["created_utc"] = utc_timestamp();
  rec["gpu"] = gpu_json();
  rec["render_path"] = render_path;
  rec["host"] = {{"cpu_model", cpu_model()}, {"threads", std::thread::hardware_concurrency()}};
  return rec;
}

json make_record(const sweep::Result& r, const ExportRequest& req, const std::vector<std::string>& files) {
  json rec = environment_record(req.render_path);
  rec["parameters"] = parameters_json(r.definition);
  rec["sweep"] = sweep::to_json(r.definition);
  rec["export"] = {
      {"width", req.width}, {"height", req.height},
      {"scale", req.scale}, {"metric", req.figure.metric == sweep::Metric::Time ? "time" : "throughput"},
      {"csv", req.csv},     {"json", req.json},
      {"svg", req.svg},     {"png", req.png}};
  rec["files"] = files;
  rec["result"] = {{"points", r.points.size()}, {"cancelled", r.cancelled}, {"stopped", r.stopped},
                   {"notes", r.notes},          {"gpu", r.gpu_name},        {"elapsed_s", r.elapsed_s}};
  return rec;
}

ExportOutcome write_exports(const sweep::Result& r, const std::string& dir, const ExportRequest& req,
                            bool gl_current) {
  ExportOutcome out;
  const fs::path d(dir);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec || !fs::is_directory(d))
    throw std::runtime_error("cannot create directory " + dir + ": " + ec.message());
  std::string err;
  auto text = [&](const char* name, const std::string& body) {
    if (write_text_file((d / name).string(), body, &err))
      out.files.emplace_back(name);
    else
      out.errors.push_back(err);
  };
  if (req.csv) {
    text(k_csv, sweep::to_csv(r));
    text(k_summary, sweep::summary_csv(r));
  }
  if (req.json) text(k_json, sweep::to_json(r).dump(1) + "\n");
  const fig::Figure figure = sweep::figure_for(r, req.figure);
  if (req.svg) text(k_svg, fig::to_svg(figure, req.width, req.height));
  if (req.png) {
    std::unique_ptr<gl::Context> own;
    std::string gl_error;
    if (!gl_current) own = gl::create_headless(64, 64, &gl_error);
    if (!gl_current && !own) {
      out.errors.push_back(std::string(k_png) + " skipped: no GL context for rendering (" + gl_error + ")");
    } else {
      ui::PngOptions po;
      po.width = req.width;
      po.height = req.height;
      po.scale = req.scale;
      if (ui::export_png(figure, po, (d / k_png).string(), &err))
        out.files.emplace_back(k_png);
      else
        out.errors.push_back(std::string(k_png) + ": " + err);
    }
  }
  std::vector<std::string> listed = out.files;
  listed.emplace_back(k_record);
  text(k_record, make_record(r, req, listed).dump(1) + "\n");
  return out;
}

Loaded load_record(const std::string& path) {
  JsonRead read = read_json_file(path);  // size and depth limits, a message naming the file
  if (!read.value) throw InvalidRequest(read.error);
  json j = std::move(*read.value);
  if (!j.is_object() || !j.contains("blockscope_record"))
    throw InvalidRequest(path + ": not a blockscope record (no \"blockscope_record\" key)");
  if (!j.contains("sweep")) throw InvalidRequest(path + ": the record holds no sweep definition (\"sweep\")");
  Loaded l;
  try {
    l.definition = sweep::definition_from_json(j["sweep"]);
    if (j.contains("export") && j["export"].is_object()) {
      const json& e = j["export"];
      l.request.width = e.value("width", l.request.width);
      l.request.height = e.value("height", l.request.height);
      l.request.scale = e.value("scale", l.request.scale);
      l.request.figure.metric = e.value("metric", std::string("time")) == "throughput"
                                    ? sweep::Metric::Throughput
                                    : sweep::Metric::Time;
      l.request.csv = e.value("csv", true);
      l.request.json = e.value("json", true);
      l.request.svg = e.value("svg", true);
      l.request.png = e.value("png", true);
    }
    if (j.contains("files") && j["files"].is_array())
      for (const auto& x : j["files"])
        if (x.is_string()) l.files.push_back(x.get<std::string>());
    l.request.render_path = j.value("render_path", "");
  } catch (const json::exception& e) {
    throw InvalidRequest(path + ": a field has the wrong type (" + e.what() + ")");
  } catch (const InvalidRequest& e) {
    throw InvalidRequest(path + ": " + e.what());
  }
  return l;
}

}  // namespace bs::record
