// record.cpp: see record.h.
#include "app/sweep/record.h"
#include "core/text.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/json_file.h"
#include "app/sweep/roofline.h"
#include "app/sweep/targets.h"
#include "gpu/common/device_info.h"
#include "core/error.h"
#include "ui/figure_export.h"
#include "ui/gl/context.h"

namespace bs::record {

const char* const k_blockscope_version = BS_VERSION;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* k_csv = "sweep.csv";
constexpr const char* k_summary = "summary.csv";
constexpr const char* k_json = "sweep.json";
constexpr const char* k_svg = "figure.svg";
constexpr const char* k_png = "figure.png";
constexpr const char* k_record = "record.json";
// The roofline figure's table (metric roofline): the runs with their % of the nearer ceiling, and the
// ceilings.
constexpr const char* k_roofline_csv = "roofline.csv";
constexpr const char* k_roofline_json = "roofline.json";

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
  // A flag is set when this export asked for the file or the record lists it from an earlier export, so a
  // replay writes the whole set again.
  auto listed = [&](const char* name) { return std::find(files.begin(), files.end(), name) != files.end(); };
  rec["export"] = {{"width", req.width},
                   {"height", req.height},
                   {"scale", req.scale},
                   {"metric", sweep::k_metric_names.c_name(req.figure.metric)},
                   {"csv", req.csv || listed(k_csv)},
                   {"json", req.json || listed(k_json)},
                   {"svg", req.svg || listed(k_svg)},
                   {"png", req.png || listed(k_png)}};
  rec["files"] = files;
  if (!req.user_kernels.is_null()) rec["user_kernels"] = req.user_kernels;
  if (req.figure.metric == sweep::Metric::Roofline) {  // the ceilings the figure was drawn under
    rec["roofline_ceilings"] = json::object();
    if (req.figure.gpu_ceilings)
      rec["roofline_ceilings"]["gpu"] = roofline::to_json(*req.figure.gpu_ceilings);
    if (req.figure.cpu_ceilings)
      rec["roofline_ceilings"]["cpu"] = roofline::to_json(*req.figure.cpu_ceilings);
  }
  rec["result"] = {{"points", r.points.size()}, {"cancelled", r.cancelled}, {"stopped", r.stopped},
                   {"notes", r.notes},          {"gpu", r.gpu_name},        {"elapsed_s", r.elapsed_s}};
  return rec;
}

ExportOutcome write_exports(const sweep::Result& r, const std::string& dir, const ExportRequest& req,
                            bool gl_current, const std::vector<std::string>& earlier) {
  ExportOutcome out;
  const fs::path d(dir);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec || !fs::is_directory(d))
    throw std::runtime_error("cannot create directory " + dir + ": " + ec.message());
  // Two phases, so the folder never mixes two runs: every file is written to a hidden temporary beside it
  // (".NAME.new"), and only when all were written are they renamed into place, record.json last. A write that
  // fails (a full disk, a folder in the way) removes the temporaries: the earlier run's files stay, all of
  // them. (A rename within one folder needs no space.)
  std::vector<std::string> staged;
  bool write_failed = false;
  const auto temp_of = [&](const std::string& name) { return (d / ("." + name + ".new")).string(); };
  const auto stage = [&](const char* name, const std::function<bool(const std::string&, std::string*)>& write) {
    if (write_failed) return;
    std::string err;
    const std::string final_path = (d / name).string();
    if (!check_write_target(final_path, &err) || !write(temp_of(name), &err) ||
        !test_hooks::export_write_allowed(name, final_path, &err)) {
      std::error_code rm;
      fs::remove(temp_of(name), rm);
      write_failed = true;
      out.errors.push_back(err);
      return;
    }
    staged.emplace_back(name);
  };
  const auto text = [&](const char* name, const std::string& body) {
    stage(name, [&](const std::string& path, std::string* err) { return write_text_file(path, body, err); });
  };
  if (req.csv) {
    text(k_csv, sweep::to_csv(r));
    text(k_summary, sweep::summary_csv(r));
  }
  if (req.json) text(k_json, sweep::to_json(r).dump(1) + "\n");
  if (req.figure.metric == sweep::Metric::Roofline && (req.csv || req.json)) {
    const roofline::Chart ch = sweep::roofline_chart(r, sweep::target_of(r.definition.lab), req.figure);
    if (req.csv) text(k_roofline_csv, roofline::to_csv(ch));
    if (req.json) text(k_roofline_json, roofline::to_json(ch).dump(1) + "\n");
  }
  const fig::Figure figure = sweep::figure_for(r, req.figure);
  if (req.svg) text(k_svg, fig::to_svg(figure, req.width, req.height));
  bool png_skipped = false;
  if (req.png && !write_failed) {
    std::unique_ptr<gl::Context> own;
    std::string gl_error;
    if (!gl_current) own = gl::create_headless(64, 64, &gl_error);
    if (!gl_current && !own) {
      png_skipped = true;
      out.errors.push_back(std::string(k_png) + " skipped: no GL context for rendering (" + gl_error + ")");
    } else {
      ui::PngOptions po;
      po.width = req.width;
      po.height = req.height;
      po.scale = req.scale;
      stage(k_png, [&](const std::string& path, std::string* err) {
        if (ui::export_png(figure, po, path, err)) return true;
        *err = std::string(k_png) + ": " + *err;
        return false;
      });
    }
  }
  // Every file of this result in the directory, in the fixed order, record.json last.
  std::vector<std::string> listed;
  for (const char* name : {k_csv, k_summary, k_json, k_roofline_csv, k_roofline_json, k_svg, k_png}) {
    const auto has = [&](const std::vector<std::string>& v) {
      return std::find(v.begin(), v.end(), name) != v.end();
    };
    if (has(staged) || (has(earlier) && fs::exists(d / name))) listed.emplace_back(name);
  }
  listed.emplace_back(k_record);
  text(k_record, make_record(r, req, listed).dump(1) + "\n");
  if (write_failed) {
    for (const std::string& name : staged)
      fs::remove(temp_of(name), ec);
    out.errors.back() += "; nothing was replaced: the folder holds the earlier files, all of them";
    return out;
  }
  for (const std::string& name : staged) {
    if (::rename(temp_of(name).c_str(), (d / name).c_str()) == 0) {
      out.files.push_back(name);
    } else {
      out.errors.push_back("cannot write " + (d / name).string() + ": " + std::strerror(errno));
      fs::remove(temp_of(name), ec);
    }
  }
  // A PNG that could not be rendered: an earlier run's figure.png would sit beside this run's files.
  if (png_skipped && std::find(earlier.begin(), earlier.end(), k_png) == earlier.end()) fs::remove(d / k_png, ec);
  return out;
}

namespace test_hooks {
bool export_write_allowed(const std::string& name, const std::string& path, std::string* error) {
  const char* fail = std::getenv("BLOCKSCOPE_TEST_FAIL_EXPORT");
  if (!fail || name != fail) return true;
  *error = "cannot write " + path + ": No space left on device (disk full?) [injected by BLOCKSCOPE_TEST_FAIL_EXPORT]";
  return false;
}
}  // namespace test_hooks

std::optional<std::string> check_request(const ExportRequest& req) {
  const std::string range = std::to_string(k_min_png_px) + ".." + std::to_string(k_max_png_px) + " px";
  if (req.width < k_min_png_px || req.width > k_max_png_px)
    return "export width " + std::to_string(req.width) + " is outside " + range;
  if (req.height < k_min_png_px || req.height > k_max_png_px)
    return "export height " + std::to_string(req.height) + " is outside " + range;
  if (!(req.scale >= k_min_png_scale && req.scale <= k_max_png_scale))
    return "export scale " + std::to_string(req.scale) + " is outside 0.5..8";
  return std::nullopt;
}

void prepare_output_dir(const std::string& dir) {
  if (dir.empty()) throw InvalidRequest("the output directory is empty");
  const fs::path d(dir);
  std::error_code ec;
  if (fs::exists(d, ec) && !fs::is_directory(d, ec))
    throw InvalidRequest("output directory " + dir + " is a file, not a directory");
  fs::create_directories(d, ec);
  if (ec || !fs::is_directory(d))
    throw InvalidRequest("cannot create the output directory " + dir + ": " +
                         (ec ? ec.message() : std::string("not a directory")));
  // Writable: a probe file (access(2) says yes to root even on a read-only mount).
  const fs::path probe = d / (".blockscope-write-test-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd < 0)
    throw InvalidRequest("cannot write into the output directory " + dir + ": " + std::strerror(errno));
  ::close(fd);
  fs::remove(probe, ec);
}

std::string fresh_dir(const std::string& base) {
  std::error_code ec;
  if (!fs::exists(base, ec)) return base;
  for (int i = 2;; ++i) {
    const std::string candidate = base + "-" + std::to_string(i);
    if (!fs::exists(candidate, ec)) return candidate;
  }
}

DirLock::DirLock(const std::string& dir) : m_path((fs::path(dir) / k_name).string()) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(m_path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      const bool ok = ::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
      ::close(fd);
      if (!ok) {
        ::unlink(m_path.c_str());
        throw InvalidRequest("cannot write the lock file " + m_path + ": " + std::strerror(errno));
      }
      return;
    }
    if (errno != EEXIST)
      throw InvalidRequest("cannot create the lock file " + m_path + ": " + std::strerror(errno));
    std::ifstream f(m_path);
    long pid = 0;
    f >> pid;
    // kill(pid, 0) probes without signalling: ESRCH means no such process. A lock that holds no pid (a
    // half-written file) is also stale.
    const bool alive = pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
    if (alive)
      throw InvalidRequest(dir + " is in use by another sweep (process " + std::to_string(pid) + " holds " +
                           m_path + "): wait for it or choose another --out");
    m_stale_pid = pid > 0 ? pid : -1;
    // Take the stale lock over, then O_EXCL again. (Two sweeps taking over the same stale lock in the same
    // instant could both win; a crash-recovery corner accepted here.)
    ::unlink(m_path.c_str());
  }
  throw InvalidRequest(dir + " is in use by another sweep (its lock " + m_path + " was taken meanwhile)");
}

DirLock::~DirLock() {
  ::unlink(m_path.c_str());
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
      // Sizes are read wide and checked here, before a replay runs: a bad size found only at the export
      // would lose the sweep, and 4294967360 must not wrap to 64.
      auto pixels = [&](const char* key, int fallback) {
        if (!e.contains(key)) return fallback;
        const json& x = e[key];
        const bool ok =
            x.is_number_integer() &&
            (x.is_number_unsigned() ? x.get<uint64_t>() <= k_max_png_px
                                    : x.get<int64_t>() >= k_min_png_px && x.get<int64_t>() <= k_max_png_px);
        if (!ok || x.get<int64_t>() < k_min_png_px)
          throw InvalidRequest("export." + std::string(key) + " = " + x.dump() +
                               " is not a whole number in " + std::to_string(k_min_png_px) + ".." +
                               std::to_string(k_max_png_px) + " px");
        return static_cast<int>(x.get<int64_t>());
      };
      l.request.width = pixels("width", l.request.width);
      l.request.height = pixels("height", l.request.height);
      if (e.contains("scale")) {
        const json& x = e["scale"];
        const double v = x.is_number() ? x.get<double>() : std::nan("");
        if (!(v >= k_min_png_scale && v <= k_max_png_scale))
          throw InvalidRequest("export.scale = " + x.dump() + " is not a number in 0.5..8");
        l.request.scale = static_cast<float>(v);
      }
      const std::string metric = e.value("metric", std::string("time"));
      const auto m = sweep::k_metric_names.parse(metric);
      if (!m)
        throw InvalidRequest("export.metric = \"" + metric + "\" is not " +
                             sweep::k_metric_names.list(", ", " or "));
      l.request.figure.metric = *m;
      l.request.csv = e.value("csv", true);
      l.request.json = e.value("json", true);
      l.request.svg = e.value("svg", true);
      l.request.png = e.value("png", true);
    }
    if (j.contains("files") && j["files"].is_array())
      for (const auto& x : j["files"])
        if (x.is_string()) l.files.push_back(x.get<std::string>());
    l.request.render_path = j.value("render_path", "");
    // A sweep of the user's kernel (kernel=user) keeps its source: the replay compiles it again.
    if (j.contains("user_kernels") && !j["user_kernels"].is_null()) l.request.user_kernels = j["user_kernels"];
  } catch (const json::exception& e) {
    throw InvalidRequest(path + ": a field has the wrong type (" + e.what() + ")");
  } catch (const InvalidRequest& e) {
    throw InvalidRequest(path + ": " + e.what());
  }
  return l;
}

}  // namespace bs::record
