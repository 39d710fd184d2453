// export.cpp: see export.h.
#include "app/sweep/export.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>

#include "app/sweep/targets.h"
#include "app/sweep/util.h"
#include "core/error.h"
#include "core/text.h"

namespace bs::sweep {

using nlohmann::json;
using util::invalid;
using util::join;
using util::num;
using util::parse_double;
using util::strings;
using util::value_text;

namespace {

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

}  // namespace

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

size_t failed_points(const Result& r) {
  return static_cast<size_t>(std::count_if(r.points.begin(), r.points.end(), [](const Point& p) {
    return !p.error.empty() && p.error.rfind("skipped: ", 0) != 0;
  }));
}

}  // namespace bs::sweep
