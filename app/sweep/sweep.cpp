// sweep.cpp: see sweep.h. The per-lab timing lives in sweep_targets.cpp; this file holds the definition, the
// runner loop (progress, ETA, cancel, GPU errors), the exports and the choice of figure.
#include "app/sweep/sweep.h"
#include "core/text.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "app/sweep/sweep_targets.h"
#include "gpu/common/device_info.h"
#include "core/error.h"

namespace bs::sweep {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

// Shortest text that reads back to the same double.
std::string num(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string fmt(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

int suffix_shift(char c) {
  switch (c) {
    case 'k':
    case 'K':
      return 10;
    case 'm':
    case 'M':
      return 20;
    case 'g':
    case 'G':
      return 30;
    default:
      return 0;
  }
}

// 1048576 -> "1M" when `suffix`, else "1048576".
std::string format_int(double v, bool suffix) {
  const auto n = static_cast<long long>(v);
  if (suffix)
    for (auto [shift, s] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}})
      if (n >= (1LL << shift) && n % (1LL << shift) == 0) return std::to_string(n >> shift) + s;
  return std::to_string(n);
}

using nlohmann::json;

[[noreturn]] void invalid(const std::string& msg) {
  throw InvalidRequest(msg);
}

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v)
    s += (s.empty() ? "" : sep) + x;
  return s;
}

// --- CSV
// -----------------------------------------------------------------------------------------------------
std::string csv_row(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';  // (not `"," + field`: GCC 12 warns falsely about that temporary, -Wrestrict)
    line += csv_field(cells[i]);
  }
  return line + "\n";
}

// RFC 4180 records (quoted fields may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cell.empty()) {
        row.push_back(cell);
        rows.push_back(row);
      }
      row.clear();
      cell.clear();
      any = false;
    } else {
      cell += c;
      any = true;
    }
  }
  if (quoted) invalid("CSV: a quoted field is not closed");
  if (any || !cell.empty()) {
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

json summary_json(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"p10", s.p10},  {"p90", s.p90},
          {"min", s.min},     {"max", s.max},       {"mean", s.mean}};
}

std::vector<double> doubles(const json& j, const char* what) {
  if (!j.is_array()) invalid(std::string(what) + ": expected an array of numbers");
  std::vector<double> v;
  for (const auto& x : j) {
    if (x.is_null()) {  // NaN is written as null
      v.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    if (!x.is_number()) invalid(std::string(what) + ": expected an array of numbers");
    v.push_back(x.get<double>());
  }
  return v;
}

std::vector<std::string> strings(const json& j, const char* what) {
  if (!j.is_array()) invalid(std::string(what) + ": expected an array of strings");
  std::vector<std::string> v;
  for (const auto& x : j) {
    if (x.is_string())
      v.push_back(x.get<std::string>());
    else if (x.is_number_integer())
      v.push_back(std::to_string(x.get<long long>()));
    else
      invalid(std::string(what) + ": expected an array of strings");
  }
  return v;
}

std::string value_text(const json& x, const std::string& what) {
  if (x.is_string()) return x.get<std::string>();
  if (x.is_number_integer()) return std::to_string(x.get<long long>());
  if (x.is_number()) return num(x.get<double>());
  invalid(what + ": expected a string or a number");
}

// "block.x=64 size=2048"
std::string point_label(const Definition& d, const std::vector<std::string>& values) {
  std::string s;
  for (size_t i = 0; i < d.params.size() && i < values.size(); ++i)
    s += (s.empty() ? "" : " ") + d.params[i].name + "=" + values[i];
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string duration_text(double s) {
  if (s < 90) return fmt(std::max(s, 0.0), 2) + " s";
  if (s < 5400) return fmt(s / 60, 2) + " min";
  return fmt(s / 3600, 2) + " h";
}

// --- Definition
// ----------------------------------------------------------------------------------------------
const char* to_string(Device d) {
  return k_device_names.c_name(d);
}

std::optional<Device> parse_device(std::string_view s) {
  return k_device_names.parse(s);
}

nlohmann::json to_json(const Definition& d) {
  json params = json::array();
  for (const Param& p : d.params)
    params.push_back({{"name", p.name}, {"values", p.values}});
  json fixed = json::object();
  for (const auto& [k, v] : d.fixed)
    fixed[k] = v;
  return {{"lab", d.lab},
          {"params", params},
          {"fixed", fixed},
          {"warmup", d.warmup},
          {"repetitions", d.repetitions},
          {"device", to_string(d.device)}};
}

Definition definition_from_json(const nlohmann::json& j) {
  if (!j.is_object()) invalid("sweep definition: expected a JSON object");
  Definition d;
  if (!j.contains("lab") || !j["lab"].is_string()) invalid("sweep definition: \"lab\" (a string) is missing");
  d.lab = j["lab"].get<std::string>();
  if (!j.contains("params") || !j["params"].is_array())
    invalid("sweep definition: \"params\" (an array) is missing");
  for (const auto& p : j["params"]) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("values"))
      invalid("sweep definition: each entry of \"params\" needs \"name\" and \"values\"");
    d.params.push_back({p["name"].get<std::string>(), strings(p["values"], "sweep definition: values")});
  }
  if (j.contains("fixed")) {
    if (!j["fixed"].is_object()) invalid("sweep definition: \"fixed\" must be an object");
    for (const auto& [k, v] : j["fixed"].items())
      d.fixed[k] = value_text(v, "sweep definition: fixed." + k);
  }
  // Counts are read wide and range-checked before narrowing: 4294967297 repetitions must be refused, not
  // wrap to 1.
  auto integer = [&](const char* key, int fallback, int lo, int hi) {
    if (!j.contains(key)) return fallback;
    const json& x = j[key];
    if (!x.is_number_integer())
      invalid(std::string("sweep definition: \"") + key + "\" must be a whole number");
    // (JSON's non-negative integers read as unsigned: compare those unsigned first, so 2^64 - 1 is no -1.)
    const bool in_range = x.is_number_unsigned()
                              ? x.get<uint64_t>() <= static_cast<uint64_t>(hi) && x.get<int64_t>() >= lo
                              : x.get<int64_t>() >= lo && x.get<int64_t>() <= hi;
    if (!in_range)
      invalid(std::string("sweep definition: \"") + key + "\" = " + x.dump() + " is outside " +
              std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(x.get<int64_t>());
  };
  d.warmup = integer("warmup", d.warmup, 0, k_max_warmup);
  d.repetitions = integer("repetitions", d.repetitions, 1, k_max_repetitions);
  if (j.contains("device")) {
    const auto dev = j["device"].is_string() ? parse_device(j["device"].get<std::string>()) : std::nullopt;
    if (!dev) invalid("sweep definition: \"device\" must be \"auto\", \"gpu\", \"cpu\" or \"all\"");
    d.device = *dev;
  }
  return d;
}

std::optional<double> numeric_value(std::string_view text) {
  std::string s = trim(text);
  if (s.empty()) return std::nullopt;
  if (s.size() > 2 && s[0] == '2' && s[1] == '^') {
    const auto e = parse_double(std::string_view(s).substr(2));
    if (!e || *e < 0 || *e > 62 || *e != std::floor(*e)) return std::nullopt;
    return std::ldexp(1.0, static_cast<int>(*e));
  }
  const int shift = suffix_shift(s.back());
  if (shift) s.pop_back();
  const auto v = parse_double(s);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return std::ldexp(*v, shift);
}

Param parse_param(std::string_view text) {
  const std::string shown(text);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    invalid("--param '" + shown + "': expected NAME=V1,V2,... (e.g. block.x=32,64,128) or NAME=A..B");
  Param p{trim(text.substr(0, eq)), {}};
  if (p.name.empty()) invalid("--param '" + shown + "': the parameter name is missing before '='");
  const std::string rest = trim(text.substr(eq + 1));
  const size_t dots = rest.find("..");
  if (dots != std::string::npos && rest.find(',') == std::string::npos) {
    const std::string a = trim(std::string_view(rest).substr(0, dots)),
                      b = trim(std::string_view(rest).substr(dots + 2));
    const auto lo = numeric_value(a), hi = numeric_value(b);
    if (!lo || !hi || *lo <= 0 || *lo != std::floor(*lo) || *hi != std::floor(*hi))
      invalid("--param '" + shown +
              "': a range A..B needs two positive whole numbers (e.g. 2^10..2^20, 1K..1M)");
    if (*hi < *lo) invalid("--param '" + shown + "': the range ends below its start");
    const bool suffix = suffix_shift(a.back()) != 0 || suffix_shift(b.back()) != 0;
    for (double v = *lo; v <= *hi; v *= 2) {
      p.values.push_back(format_int(v, suffix));
      if (p.values.size() > k_max_points) invalid("--param '" + shown + "': the range has too many values");
    }
    return p;
  }
  for (const std::string& v : split(rest, ','))
    if (v.empty())
      invalid("--param '" + shown + "': an empty value (check for a stray comma)");
    else
      p.values.push_back(v);
  if (p.values.empty()) invalid("--param '" + shown + "': no values after '='");
  return p;
}

std::pair<std::string, std::string> parse_fixed(std::string_view text) {
  const std::string shown(text);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) invalid("--fixed '" + shown + "': expected NAME=VALUE (e.g. size=2048)");
  std::string name = trim(text.substr(0, eq)), value = trim(text.substr(eq + 1));
  if (name.empty()) invalid("--fixed '" + shown + "': the parameter name is missing before '='");
  if (value.empty()) invalid("--fixed '" + shown + "': the value is missing after '='");
  if (value.find(',') != std::string::npos)
    invalid("--fixed '" + shown + "': one value only (sweep several with --param)");
  return {name, value};
}

std::vector<std::vector<std::string>> points_of(const Definition& d) {
  std::vector<std::vector<std::string>> pts{{}};
  for (const Param& p : d.params) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : pts)
      for (const std::string& v : p.values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    pts = std::move(next);
  }
  if (d.params.empty()) return {};
  return pts;
}

void validate(const Definition& d) {
  const Target* t = find_target(d.lab);
  if (!t) invalid("unknown lab '" + d.lab + "' (known: " + join(lab_names()) + ")");
  validate_with(*t, d);
}

void validate_with(const Target& target, const Definition& d) {
  const Target* t = &target;
  if (d.params.empty()) invalid("sweep at least one parameter of " + d.lab + " (" + param_names(*t) + ")");
  if (d.params.size() > 2)
    invalid("a sweep takes one or two parameters, not " + std::to_string(d.params.size()));
  std::set<std::string> seen;
  size_t count = 1;
  for (const Param& p : d.params) {
    if (!find_param(*t, p.name))
      invalid("unknown parameter '" + p.name + "' for lab " + d.lab + " (valid: " + param_names(*t) + ")");
    if (!seen.insert(p.name).second) invalid("parameter '" + p.name + "' is swept twice");
    if (d.fixed.count(p.name)) invalid("parameter '" + p.name + "' is both swept and fixed");
    if (p.values.empty()) invalid("parameter '" + p.name + "' has no values");
    if (p.values.size() > k_max_points)  // checked before the product, which could otherwise wrap
      invalid("parameter '" + p.name + "' has " + std::to_string(p.values.size()) +
              " values: a sweep runs at most " + std::to_string(k_max_points) + " points");
    count *= p.values.size();
  }
  for (const auto& [k, v] : d.fixed)
    if (!find_param(*t, k))
      invalid("unknown fixed parameter '" + k + "' for lab " + d.lab + " (valid: " + param_names(*t) + ")");
  if (d.warmup < 0 || d.warmup > k_max_warmup)
    invalid("warmup = " + std::to_string(d.warmup) + ": choose 0.." + std::to_string(k_max_warmup) +
            " warm-up runs");
  if (d.repetitions < 1 || d.repetitions > k_max_repetitions)
    invalid("repetitions = " + std::to_string(d.repetitions) + ": choose 1.." +
            std::to_string(k_max_repetitions) + " timed runs per point");
  if (count > k_max_points)
    invalid(std::to_string(count) + " points: a sweep runs at most " + std::to_string(k_max_points));
  // Every point is checked. A value no point can run with is an error (the message names it); with two
  // parameters, single combinations that cannot run (block 256 x 8 = 2048 threads) are skipped at run time
  // with a note instead, so a grid of shapes can be swept as typed.
  const Values base = default_values(*t, d.fixed);
  const auto pts = points_of(d);
  std::vector<std::string> errors(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    Values vals = base;
    for (size_t k = 0; k < pts[i].size(); ++k)
      vals[d.params[k].name] = pts[i][k];
    try {
      t->validate(vals);
    } catch (const InvalidRequest& e) {
      errors[i] = e.what();
      if (errors[i].empty()) errors[i] = "invalid";
    }
  }
  for (size_t k = 0; k < d.params.size(); ++k)
    for (const std::string& v : d.params[k].values) {
      std::string first;
      bool any_ok = false;
      for (size_t i = 0; i < pts.size(); ++i)
        if (pts[i][k] == v) {
          if (errors[i].empty())
            any_ok = true;
          else if (first.empty())
            first = errors[i];
        }
      if (!any_ok) invalid(first);
    }
}

// --- Result
// --------------------------------------------------------------------------------------------------
void SeriesResult::summarize() {
  time = bs::summarize(time_ms);
  rate = bs::summarize(throughput);
}

std::vector<std::string> Result::series_names() const {
  std::vector<std::string> names;
  for (const Point& p : points)
    for (const SeriesResult& s : p.series)
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  return names;
}

double estimate_eta(double elapsed_s, double work_done, double work_total) {
  if (work_done <= 0 || elapsed_s <= 0) return -1;
  return elapsed_s * std::max(work_total - work_done, 0.0) / work_done;
}

Result run_sweep(const Definition& d, JobControl& ctl, const ProgressFn& on_progress) {
  const Target* t = find_target(d.lab);
  if (!t) invalid("unknown lab '" + d.lab + "' (known: " + join(lab_names()) + ")");
  return run_sweep_with(*t, d, ctl, on_progress);
}

Result run_plan(const Plan& plan, JobControl& ctl, const ProgressFn& on_progress) {
  const Target* t = find_target(plan.definition.lab);
  if (!t) invalid("unknown lab '" + plan.definition.lab + "' (known: " + join(lab_names()) + ")");
  return run_plan_with(*t, plan, ctl, on_progress);
}

Plan plan_sweep(const Definition& d, const DeviceInfo& dev) {
  const Target* t = find_target(d.lab);
  if (!t) invalid("unknown lab '" + d.lab + "' (known: " + join(lab_names()) + ")");
  return plan_with(*t, d, dev);
}

Result run_sweep_with(const Target& t, const Definition& d, JobControl& ctl, const ProgressFn& on_progress) {
  const DeviceInfo dev = d.device == Device::Cpu ? DeviceInfo{} : query_device();
  return run_plan_with(t, plan_with(t, d, dev), ctl, on_progress);
}

namespace {

const char* device_word(Device d) {
  return d == Device::Gpu ? "GPU" : "CPU";
}

// Settings every point of a plan runs with.
RunSettings settings_of(const Plan& p) {
  RunSettings s;
  s.warmup = p.definition.warmup;
  s.repetitions = p.definition.repetitions;
  s.run_gpu = p.run_gpu;
  s.run_cpu = p.run_cpu;
  s.cpu_explicit = p.cpu_explicit;
  s.named_explicit = p.named_explicit;
  return s;
}

Values values_at(const Values& base, const Definition& d, const std::vector<std::string>& point) {
  Values v = base;
  for (size_t k = 0; k < point.size() && k < d.params.size(); ++k)
    v[d.params[k].name] = point[k];
  return v;
}

}  // namespace

Plan plan_with(const Target& t, const Definition& d, const DeviceInfo& dev) {
  validate_with(t, d);
  Plan p;
  p.definition = d;
  // No GPU and the CPU was not demanded: CPU values may stand in for GPU-only ones (a preset's matmul ladder
  // becomes the CPU ladder) rather than measuring nothing.
  bool stand_ins = false;
  const std::string why = dev.reason.empty() ? std::string("no CUDA device") : dev.reason;
  switch (d.device) {
    case Device::Gpu:
      if (!dev.available) throw std::runtime_error("device gpu: no CUDA device: " + why);
      p.run_gpu = true;
      break;
    case Device::Cpu:
      p.run_cpu = p.cpu_explicit = true;
      break;
    case Device::All:
      p.run_cpu = true;
      p.run_gpu = dev.available;
      if (!dev.available) {
        p.notes.push_back("GPU rows skipped: no CUDA device (" + why + ")");
        stand_ins = true;
      }
      break;
    case Device::Auto:
      p.run_gpu = dev.available;
      p.run_cpu = !dev.available;
      p.definition.device = dev.available ? Device::Gpu : Device::Cpu;
      if (!dev.available) {
        p.notes.push_back("no GPU here (" + why + "): this sweep runs on the CPU");
        stand_ins = true;
      }
      break;
  }
  if (p.run_gpu) p.gpu_name = dev.name;
  auto runs_on = [&](Device where) { return where == Device::Gpu ? p.run_gpu : p.run_cpu; };
  const std::string runs_only = p.run_gpu && !p.run_cpu ? "GPU" : "CPU";
  const std::string device_how = d.device == Device::Cpu   ? "device cpu"
                                 : d.device == Device::Gpu ? "device gpu"
                                                           : "no GPU here";

  // Values bound to a device this sweep does not run on: refuse when nothing would be measured.
  for (const auto& [k, v] : d.fixed)
    if (const auto where = t.value_device(k, v); where && !runs_on(*where))
      invalid(k + " = " + v + " runs only on the " + device_word(*where) +
              ", and this sweep runs only on the " + runs_only + " (" + device_how +
              "): nothing would be measured");
  for (Param& sp : p.definition.params) {
    std::vector<std::string> keep, dropped;
    Device bound = Device::All;
    for (const std::string& v : sp.values) {
      const auto where = t.value_device(sp.name, v);
      if (where && !runs_on(*where)) {
        dropped.push_back(v);
        bound = *where;
      } else {
        keep.push_back(v);
      }
    }
    if (dropped.empty()) continue;
    if (!keep.empty()) {
      p.notes.push_back(sp.name + " " + join(dropped) + " skipped: they run only on the " +
                        device_word(bound) + " (" + device_how + ")");
    } else {
      const std::vector<std::string> cpu = stand_ins ? t.cpu_values(sp.name) : std::vector<std::string>{};
      if (cpu.empty()) {
        const std::vector<std::string> alt =
            bound == Device::Gpu ? t.cpu_values(sp.name) : std::vector<std::string>{};
        invalid(sp.name + " = " + join(dropped) + ": these run only on the " + device_word(bound) +
                ", and this sweep runs only on the " + runs_only + " (" + device_how +
                "): nothing would be measured" +
                (alt.empty() ? std::string() : ". On the CPU, sweep " + sp.name + "=" + join(alt, ",")));
      }
      keep = cpu;
      p.named_explicit = false;
      p.notes.push_back("no GPU here: the GPU " + sp.name + " values (" + join(dropped) +
                        ") cannot run; the CPU ones run instead (" + join(cpu) + ")");
    }
    sp.values = keep;
  }
  if (p.definition.params != d.params) validate_with(t, p.definition);

  // Parameters only GPU code reads, swept where no GPU series runs: say that their effect is noise.
  if (!p.run_gpu) {
    const std::vector<std::string> gpu_only = t.gpu_only_params();
    for (const Param& sp : p.definition.params)
      if (std::find(gpu_only.begin(), gpu_only.end(), sp.name) != gpu_only.end())
        p.ignored_params.push_back(sp.name);
    if (!p.ignored_params.empty())
      p.notes.push_back(join(p.ignored_params, " and ") + (p.ignored_params.size() > 1 ? " do" : " does") +
                        " not change CPU time: the CPU code ignores " +
                        (p.ignored_params.size() > 1 ? "them" : "it") +
                        ", so differences between the values are noise (no best value is marked)");
  }

  const RunSettings s = settings_of(p);
  const Values base = default_values(t, p.definition.fixed);
  for (const auto& pt : points_of(p.definition)) {
    try {
      p.estimate_s += t.estimate_s(values_at(base, p.definition, pt), s);
    } catch (const InvalidRequest&) {
      // A combination that cannot run is skipped at run time: it costs nothing.
    }
  }
  return p;
}

Result run_plan_with(const Target& t, const Plan& plan, JobControl& ctl, const ProgressFn& on_progress) {
  const Definition& d = plan.definition;
  validate_with(t, d);
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.definition = d;
  r.unit = t.unit();
  r.time_label = t.time_label();
  r.notes = plan.notes;
  r.gpu_name = plan.gpu_name;
  r.ignored_params = plan.ignored_params;
  const RunSettings s = settings_of(plan);

  const Values base = default_values(t, d.fixed);
  const auto pts = points_of(d);
  std::vector<double> work;
  double total = 0;
  for (const auto& pt : pts) {
    Values v = base;
    for (size_t i = 0; i < pt.size(); ++i)
      v[d.params[i].name] = pt[i];
    double w = 0;
    try {
      w = t.work(v);
    } catch (const InvalidRequest&) {
      // A combination that cannot run (skipped at run time) costs nothing.
    }
    work.push_back(std::max(w, 1e-9));
    total += work.back();
  }
  double done = 0;
  ctl.set_progress(0);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (ctl.cancelled()) {
      r.cancelled = true;
      break;
    }
    Values v = base;
    for (size_t k = 0; k < pts[i].size(); ++k)
      v[d.params[k].name] = pts[i][k];
    Point pt;
    pt.values = pts[i];
    bool stop = false;
    try {
      try {
        t.validate(v);
      } catch (const InvalidRequest& e) {
        throw InvalidRequest(std::string("skipped: ") + e.what());
      }
      PointRun run = t.run(v, s, ctl);
      for (SeriesRun& sr : run.series) {
        SeriesResult res;
        res.name = std::move(sr.name);
        res.gpu = sr.gpu;
        res.time_ms = std::move(sr.time_ms);
        res.throughput = std::move(sr.throughput);
        res.summarize();
        pt.series.push_back(std::move(res));
      }
      pt.notes = std::move(run.notes);
    } catch (const JobCancelled&) {
      r.cancelled = true;
      break;
    } catch (const GpuError& e) {
      pt.error = std::string("GPU error: ") + e.what();
      if (e.sticky()) {
        r.stopped = "the sweep stopped at " + point_label(d, pts[i]) + ": " + e.what() +
                    " (a sticky CUDA error: the device needs a reset)";
        stop = true;
      }
    } catch (const std::exception& e) {
      pt.error = e.what();
    }
    r.points.push_back(std::move(pt));
    done += work[i];
    ctl.set_progress(total > 0 ? done / total : 1.0);
    if (on_progress) {
      Progress p;
      p.point = i + 1;
      p.points = pts.size();
      p.fraction = total > 0 ? done / total : 1.0;
      p.elapsed_s = seconds_since(t0);
      p.eta_s = estimate_eta(p.elapsed_s, done, total);
      std::string line = "[" + std::to_string(i + 1) + "/" + std::to_string(pts.size()) + "] " +
                         point_label(d, pts[i]) + ":";
      const Point& last = r.points.back();
      for (const SeriesResult& sr : last.series)
        line += " " + sr.name + " " + fmt(sr.time.median) + " ms;";
      if (!last.error.empty()) line += " " + last.error + ";";
      line += " ETA " + (p.eta_s < 0 ? std::string("?") : duration_text(p.eta_s));
      p.line = line;
      on_progress(p);
    }
    if (stop) break;
  }
  r.elapsed_s = seconds_since(t0);
  return r;
}

// --- Export
// --------------------------------------------------------------------------------------------------
std::string to_csv(const Result& r) {
  std::vector<std::string> header{"lab"};
  for (const Param& p : r.definition.params)
    header.push_back(p.name);
  for (const char* h : {"series", "rep", "time_ms", "throughput", "unit", "device"})
    header.emplace_back(h);
  std::string out = csv_row(header);
  for (const Point& pt : r.points)
    for (const SeriesResult& s : pt.series)
      for (size_t i = 0; i < s.time_ms.size(); ++i) {
        std::vector<std::string> row{r.definition.lab};
        row.insert(row.end(), pt.values.begin(), pt.values.end());
        row.push_back(s.name);
        row.push_back(std::to_string(i));
        row.push_back(num(s.time_ms[i]));
        row.push_back(num(i < s.throughput.size() ? s.throughput[i] : std::nan("")));
        row.push_back(r.unit);
        row.push_back(s.gpu ? "gpu" : "cpu");
        out += csv_row(row);
      }
  return out;
}

std::string summary_csv(const Result& r) {
  std::vector<std::string> header{"lab"};
  for (const Param& p : r.definition.params)
    header.push_back(p.name);
  for (const char* h : {"series", "unit", "reps", "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms",
                        "mean_ms", "median_throughput", "p10_throughput", "p90_throughput"})
    header.emplace_back(h);
  std::string out = csv_row(header);
  for (const Point& pt : r.points)
    for (const SeriesResult& s : pt.series) {
      std::vector<std::string> row{r.definition.lab};
      row.insert(row.end(), pt.values.begin(), pt.values.end());
      for (const std::string& c : {s.name, r.unit, std::to_string(s.time.count), num(s.time.median),
                                   num(s.time.p10), num(s.time.p90), num(s.time.min), num(s.time.max),
                                   num(s.time.mean), num(s.rate.median), num(s.rate.p10), num(s.rate.p90)})
        row.push_back(c);
      out += csv_row(row);
    }
  return out;
}

Result result_from_csv(const std::string& csv, const Definition& d) {
  const auto rows = parse_csv(csv);
  if (rows.empty()) invalid("CSV: empty");
  const auto& h = rows[0];
  const size_t np = d.params.size();
  if (h.size() != np + 7 || h[0] != "lab" || h[np + 1] != "series" || h[np + 3] != "time_ms")
    invalid("CSV: the header does not match the sweep (lab, " + join([&] {
              std::vector<std::string> n;
              for (const Param& p : d.params)
                n.push_back(p.name);
              return n;
            }()) +
            ", series, rep, time_ms, throughput, unit, device)");
  for (size_t i = 0; i < np; ++i)
    if (h[i + 1] != d.params[i].name)
      invalid("CSV: column " + std::to_string(i + 2) + " is '" + h[i + 1] + "', expected '" +
              d.params[i].name + "'");
  Result r;
  r.definition = d;
  if (const Target* t = find_target(d.lab)) {
    r.unit = t->unit();
    r.time_label = t->time_label();
  }
  for (size_t k = 1; k < rows.size(); ++k) {
    const auto& row = rows[k];
    if (row.size() != h.size())
      invalid("CSV: row " + std::to_string(k + 1) + " has " + std::to_string(row.size()) +
              " fields, expected " + std::to_string(h.size()));
    std::vector<std::string> values(row.begin() + 1, row.begin() + 1 + static_cast<std::ptrdiff_t>(np));
    auto pit =
        std::find_if(r.points.begin(), r.points.end(), [&](const Point& p) { return p.values == values; });
    if (pit == r.points.end()) {
      r.points.push_back({values, {}, {}, {}});
      pit = r.points.end() - 1;
    }
    const std::string& name = row[np + 1];
    auto sit = std::find_if(pit->series.begin(), pit->series.end(),
                            [&](const SeriesResult& s) { return s.name == name; });
    if (sit == pit->series.end()) {
      pit->series.push_back({});
      sit = pit->series.end() - 1;
      sit->name = name;
      sit->gpu = row[np + 6] == "gpu";
    }
    const auto ms = parse_double(row[np + 3]);
    const auto tp = row[np + 4] == "nan" ? std::optional<double>(std::nan("")) : parse_double(row[np + 4]);
    if (!ms || !tp) invalid("CSV: row " + std::to_string(k + 1) + ": time_ms or throughput is not a number");
    sit->time_ms.push_back(*ms);
    sit->throughput.push_back(*tp);
    r.unit = row[np + 5];
  }
  for (Point& p : r.points)
    for (SeriesResult& s : p.series)
      s.summarize();
  return r;
}

nlohmann::json to_json(const Result& r) {
  json points = json::array();
  for (const Point& pt : r.points) {
    json values = json::object();
    for (size_t i = 0; i < pt.values.size() && i < r.definition.params.size(); ++i)
      values[r.definition.params[i].name] = pt.values[i];
    json series = json::array();
    for (const SeriesResult& s : pt.series)
      series.push_back(
          {{"name", s.name},
           {"gpu", s.gpu},
           {"time_ms", s.time_ms},
           {"throughput", s.throughput},
           {"summary", {{"time_ms", summary_json(s.time)}, {"throughput", summary_json(s.rate)}}}});
    points.push_back({{"values", values}, {"series", series}, {"notes", pt.notes}, {"error", pt.error}});
  }
  return {{"blockscope_sweep", 1},
          {"definition", to_json(r.definition)},
          {"unit", r.unit},
          {"time_label", r.time_label},
          {"gpu", r.gpu_name},
          {"points", points},
          {"notes", r.notes},
          {"cancelled", r.cancelled},
          {"stopped", r.stopped},
          {"elapsed_s", r.elapsed_s},
          {"ignored_params", r.ignored_params}};
}

Result result_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("blockscope_sweep"))
    invalid("not a blockscope sweep result (no \"blockscope_sweep\" key)");
  if (!j.contains("definition")) invalid("sweep result: \"definition\" is missing");
  Result r;
  r.definition = definition_from_json(j["definition"]);
  r.unit = j.value("unit", "");
  r.time_label = j.value("time_label", "");
  r.gpu_name = j.value("gpu", "");
  r.cancelled = j.value("cancelled", false);
  r.stopped = j.value("stopped", "");
  r.elapsed_s = j.value("elapsed_s", 0.0);
  if (j.contains("notes")) r.notes = strings(j["notes"], "sweep result: notes");
  if (j.contains("ignored_params"))
    r.ignored_params = strings(j["ignored_params"], "sweep result: ignored_params");
  if (!j.contains("points") || !j["points"].is_array())
    invalid("sweep result: \"points\" (an array) is missing");
  for (const auto& pj : j["points"]) {
    if (!pj.is_object() || !pj.contains("values") || !pj["values"].is_object())
      invalid("sweep result: each point needs \"values\"");
    Point pt;
    for (const Param& p : r.definition.params) {
      if (!pj["values"].contains(p.name)) invalid("sweep result: a point has no value for '" + p.name + "'");
      pt.values.push_back(value_text(pj["values"][p.name], "sweep result: values." + p.name));
    }
    if (pj.contains("notes")) pt.notes = strings(pj["notes"], "sweep result: point notes");
    pt.error = pj.value("error", "");
    if (pj.contains("series")) {
      if (!pj["series"].is_array()) invalid("sweep result: \"series\" must be an array");
      for (const auto& sj : pj["series"]) {
        if (!sj.is_object() || !sj.contains("name") || !sj["name"].is_string())
          invalid("sweep result: each series needs a \"name\"");
        SeriesResult s;
        s.name = sj["name"].get<std::string>();
        s.gpu = sj.value("gpu", false);
        s.time_ms = doubles(sj.value("time_ms", json::array()), "sweep result: time_ms");
        s.throughput = doubles(sj.value("throughput", json::array()), "sweep result: throughput");
        s.summarize();
        pt.series.push_back(std::move(s));
      }
    }
    r.points.push_back(std::move(pt));
  }
  return r;
}

// --- Figure
// --------------------------------------------------------------------------------------------------
std::optional<double> find_crossover(const std::vector<double>& x, const std::vector<double>& gpu_ms,
                                     const std::vector<double>& best_cpu_ms, bool log_x) {
  const size_t n = std::min({x.size(), gpu_ms.size(), best_cpu_ms.size()});
  auto valid = [&](size_t i) {
    return std::isfinite(gpu_ms[i]) && std::isfinite(best_cpu_ms[i]) && gpu_ms[i] > 0 && best_cpu_ms[i] > 0 &&
           (!log_x || x[i] > 0);
  };
  std::optional<size_t> losing;
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    if (gpu_ms[i] >= best_cpu_ms[i]) {
      losing = i;
      continue;
    }
    if (!losing) return std::nullopt;  // the GPU wins from the first point: no crossover in range
    const size_t a = *losing;
    const double ra = std::log(gpu_ms[a] / best_cpu_ms[a]), rb = std::log(gpu_ms[i] / best_cpu_ms[i]);
    const double xa = log_x ? std::log(x[a]) : x[a], xb = log_x ? std::log(x[i]) : x[i];
    const double f = ra == rb ? 0.0 : ra / (ra - rb);  // ra >= 0 > rb
    const double xc = xa + f * (xb - xa);
    return log_x ? std::exp(xc) : xc;
  }
  return std::nullopt;
}

namespace {

bool all_numeric(const Param& p) {
  for (const std::string& v : p.values)
    if (!numeric_value(v)) return false;
  return true;
}

bool spans(const std::vector<double>& v, double factor) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double x : v) {
    if (!(x > 0) || !std::isfinite(x)) return false;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return !v.empty() && hi >= factor * lo;
}

const Summary& metric_of(const SeriesResult& s, Metric m) {
  return m == Metric::Time ? s.time : s.rate;
}

std::string default_subtitle(const Result& r) {
  std::string s = r.gpu_name.empty() ? std::string("CPU only") : r.gpu_name;
  s += ", median of " + std::to_string(r.definition.repetitions) + " runs after " +
       std::to_string(r.definition.warmup) + " warm-up, band p10-p90";
  if (r.cancelled) s += " (cancelled: partial)";
  if (!r.ignored_params.empty())
    s += "; " + join(r.ignored_params, " and ") + (r.ignored_params.size() > 1 ? " do" : " does") +
         " not change CPU time (differences are noise)";
  return s;
}

const Point* find_point(const Result& r, const std::vector<std::string>& values) {
  for (const Point& p : r.points)
    if (p.values == values) return &p;
  return nullptr;
}

const SeriesResult* find_series(const Point& p, const std::string& name) {
  for (const SeriesResult& s : p.series)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

fig::Figure figure_for(const Result& r, const FigureOptions& opt) {
  fig::Figure f;
  const Definition& d = r.definition;
  const bool time = opt.metric == Metric::Time;
  f.subtitle = opt.subtitle.empty() ? default_subtitle(r) : opt.subtitle;
  f.y_label = time ? (r.time_label.empty() ? "time (ms)" : r.time_label) : "throughput (" + r.unit + ")";
  const std::vector<std::string> names = r.series_names();
  if (d.params.empty()) return f;

  const bool num0 = all_numeric(d.params[0]);
  const bool num1 = d.params.size() > 1 && all_numeric(d.params[1]);
  // Lines: a numeric axis, and (with two parameters) a categorical one splitting the series.
  int line_axis = -1;
  if (d.params.size() == 1 && num0) line_axis = 0;
  if (d.params.size() == 2 && num0 != num1) line_axis = num0 ? 0 : 1;

  if (line_axis >= 0) {
    f.kind = fig::Kind::Lines;
    const Param& xp = d.params[static_cast<size_t>(line_axis)];
    const int cat_axis = d.params.size() == 2 ? 1 - line_axis : -1;
    f.x_label = xp.name;
    f.title = d.lab + ": " + (time ? "time" : "throughput") + " vs " + xp.name;
    std::vector<double> xs;
    for (const std::string& v : xp.values)
      xs.push_back(*numeric_value(v));
    std::vector<size_t> order(xs.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
    f.log_x = opt.log_x.value_or(spans(xs, 16.0));
    const std::vector<std::string> cats =
        cat_axis >= 0 ? d.params[static_cast<size_t>(cat_axis)].values : std::vector<std::string>{""};
    std::vector<double> all_y;
    for (const std::string& cat : cats)
      for (const std::string& name : names) {
        fig::Series s;
        s.label = cat.empty()   ? name
                  : name == cat ? cat
                                : d.params[static_cast<size_t>(cat_axis)].name + "=" + cat + ", " + name;
        for (size_t i : order) {
          std::vector<std::string> values(d.params.size());
          values[static_cast<size_t>(line_axis)] = xp.values[i];
          if (cat_axis >= 0) values[static_cast<size_t>(cat_axis)] = cat;
          const Point* p = find_point(r, values);
          const SeriesResult* sr = p ? find_series(*p, name) : nullptr;
          if (!sr || sr->time_ms.empty()) continue;
          const Summary& m = metric_of(*sr, opt.metric);
          s.x.push_back(xs[i]);
          s.y.push_back(m.median);
          s.y_lo.push_back(m.p10);
          s.y_hi.push_back(m.p90);
          all_y.push_back(m.median);
        }
        if (s.x.empty()) continue;
        s.rgba = fig::palette(f.series.size());
        f.series.push_back(std::move(s));
      }
    f.log_y = opt.log_y.value_or(spans(all_y, 16.0));
    // Crossover markers (one parameter): where each GPU series first beats the fastest CPU series.
    if (cat_axis < 0) {
      std::vector<double> sx, best_cpu;
      std::vector<const Point*> pts;
      for (size_t i : order) {
        const Point* p = find_point(r, {xp.values[i]});
        double best = std::numeric_limits<double>::quiet_NaN();
        if (p)
          for (const SeriesResult& s : p->series)
            if (!s.gpu && !s.time_ms.empty() && (std::isnan(best) || s.time.median < best))
              best = s.time.median;
        sx.push_back(xs[i]);
        best_cpu.push_back(best);
        pts.push_back(p);
      }
      for (const std::string& name : names) {
        std::vector<double> g;
        bool is_gpu = false;
        for (const Point* p : pts) {
          const SeriesResult* s = p ? find_series(*p, name) : nullptr;
          is_gpu = is_gpu || (s && s->gpu);
          g.push_back(s && !s->time_ms.empty() ? s->time.median : std::numeric_limits<double>::quiet_NaN());
        }
        if (!is_gpu) continue;
        if (auto x = find_crossover(sx, g, best_cpu, f.log_x))
          f.markers.push_back({*x, name + " beats the CPU from ~" + fmt(*x, 3)});
      }
    }
    return f;
  }

  if (d.params.size() == 1) {
    f.kind = fig::Kind::Bars;
    f.title = d.lab + ": " + (time ? "time" : "throughput") + " by " + d.params[0].name;
    f.x_label = d.params[0].name;
    for (const Point& p : r.points)
      for (const SeriesResult& s : p.series) {
        if (s.time_ms.empty()) continue;
        const Summary& m = metric_of(s, opt.metric);
        fig::Bar b;
        b.label = names.size() > 1 && s.name != p.values[0] ? p.values[0] + ", " + s.name : p.values[0];
        b.value = m.median;
        b.lo = m.p10;
        b.hi = m.p90;
        const auto idx = static_cast<size_t>(std::find(names.begin(), names.end(), s.name) - names.begin());
        b.rgba = fig::palette(idx);
        f.bars.push_back(std::move(b));
      }
    return f;
  }

  // Two parameters of the same kind: a heat map of one series, the GPU one where a GPU ran.
  f.kind = fig::Kind::Heatmap;
  if (opt.subtitle.empty()) {
    const size_t band = f.subtitle.find(", band p10-p90");
    if (band != std::string::npos) f.subtitle.erase(band, std::string(", band p10-p90").size());
  }
  std::string chosen = names.empty() ? std::string() : names.front();
  for (const std::string& name : names) {
    bool gpu = false;
    for (const Point& p : r.points)
      if (const SeriesResult* s = find_series(p, name); s && s->gpu) gpu = true;
    if (gpu) {
      chosen = name;
      break;
    }
  }
  f.title = d.lab + ": " + (time ? "median time" : "median throughput") + ", " + d.params[0].name + " by " +
            d.params[1].name + (chosen.empty() ? "" : " (" + chosen + ")");
  f.x_label = d.params[0].name;
  f.y_label = d.params[1].name;
  f.heatmap.x_values = d.params[0].values;
  f.heatmap.y_values = d.params[1].values;
  f.heatmap.value_label = time ? (r.time_label.empty() ? "time (ms)" : r.time_label) : r.unit;
  f.heatmap.higher_is_better = !time;
  const size_t cells = f.heatmap.x_values.size() * f.heatmap.y_values.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  f.heatmap.values.assign(cells, nan);
  f.heatmap.lo.assign(cells, nan);
  f.heatmap.hi.assign(cells, nan);
  bool chosen_gpu = false;
  size_t finite = 0;
  for (size_t row = 0; row < f.heatmap.y_values.size(); ++row)
    for (size_t col = 0; col < f.heatmap.x_values.size(); ++col) {
      const Point* p = find_point(r, {f.heatmap.x_values[col], f.heatmap.y_values[row]});
      const SeriesResult* s = p ? find_series(*p, chosen) : nullptr;
      if (s && !s->time_ms.empty()) {
        const Summary& m = metric_of(*s, opt.metric);
        const size_t k = row * f.heatmap.x_values.size() + col;
        f.heatmap.values[k] = m.median;
        f.heatmap.lo[k] = m.p10;
        f.heatmap.hi[k] = m.p90;
        chosen_gpu = chosen_gpu || s->gpu;
        finite += std::isfinite(m.median) ? 1 : 0;
      }
    }
  // An axis the shown (CPU) series ignores: its differences are noise, so no cell is crowned at all.
  for (const Param& p : d.params)
    if (!chosen_gpu &&
        std::find(r.ignored_params.begin(), r.ignored_params.end(), p.name) != r.ignored_params.end())
      f.heatmap.no_best = true;
  if (!f.heatmap.no_best && finite > 1 && fig::best_cell(f.heatmap) < 0 && opt.subtitle.empty())
    f.subtitle += "; no best marked: no cell beats the others beyond their p10-p90 spread";
  return f;
}

}  // namespace bs::sweep
