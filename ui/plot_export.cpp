// plot_export.cpp: see plot_export.h.
#include "ui/plot_export.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "core/text.h"
#include "ui/figure_export.h"

namespace bs::ui {

namespace {

std::vector<PlotExportJob>& queue() {
  static std::vector<PlotExportJob> q;
  return q;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string figure_csv(const fig::Figure& f) {
  std::string out = "series," + csv_field(f.x_label.empty() ? "x" : f.x_label) + "," +
                    csv_field(f.y_label.empty() ? "y" : f.y_label) + ",p10,p90\n";
  for (const fig::Series& s : f.series)
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      out += csv_field(s.label) + "," + number(s.x[i]) + "," + number(s.y[i]) + ",";
      if (i < s.y_lo.size() && i < s.y_hi.size())
        out += number(s.y_lo[i]) + "," + number(s.y_hi[i]);
      else
        out += ",";
      out += "\n";
    }
  return out;
}

std::string figure_json(const fig::Figure& f) {
  nlohmann::json j = {{"title", f.title}, {"x_label", f.x_label}, {"y_label", f.y_label},
                      {"log_x", f.log_x}, {"log_y", f.log_y},     {"series", nlohmann::json::array()}};
  for (const fig::Series& s : f.series)
    j["series"].push_back({{"label", s.label}, {"x", s.x}, {"y", s.y}, {"p10", s.y_lo}, {"p90", s.y_hi}});
  return j.dump(2) + "\n";
}

void plot_export_menu(const char* name, const PlotAxes& axes, std::span<const PlotSeries> series) {
  figure_export_menu(name, [&] { return figure_from_plot(axes, series); });
}

void figure_export_menu(const char* name, const std::function<fig::Figure()>& make) {
  if (!ImGui::BeginPopupContextItem("##plot_export")) return;
  ImGui::TextDisabled("save this plot (~/blockscope-exports/)");
  // The PNG's pixel size and scale, kept for the next export (independent of the screen's DPI).
  static int size[2] = {1200, 675};
  static float scale = 1.0f;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::InputInt2("PNG pixels", size);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderFloat("text scale", &scale, 0.5f, 4.0f, "%.2fx");
  size[0] = std::clamp(size[0], 16, 16384);
  size[1] = std::clamp(size[1], 16, 16384);
  PlotExportJob job;
  job.width = size[0];
  job.height = size[1];
  job.png_scale = scale;
  bool chosen = false;
  if (ImGui::MenuItem("PNG + SVG + CSV/JSON")) chosen = true;
  if (ImGui::MenuItem("data only (CSV and JSON)")) {
    chosen = true;
    job.png = job.svg = false;
  }
  if (chosen) {
    job.figure = make();
    job.name = name;
    queue_plot_export(std::move(job));
  }
  ImGui::EndPopup();
}

void queue_plot_export(PlotExportJob job) {
  queue().push_back(std::move(job));
}

bool plot_exports_pending() {
  return !queue().empty();
}

std::string run_plot_exports(const std::string& dir, const std::string& record_json) {
  std::vector<PlotExportJob> jobs;
  jobs.swap(queue());
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  std::vector<std::string> written;
  // Every file is written atomically (write_file_atomic): a failure leaves no half file. The message names
  // the failure, and what was saved before it, never "saved" alone.
  const auto failed = [&](const std::string& err) {
    std::string msg = err;
    if (!written.empty()) {
      msg += " (saved before this:";
      for (const std::string& w : written)
        msg += " " + w;
      msg += ")";
    }
    return msg;
  };
  for (const PlotExportJob& job : jobs) {
    std::string stem;
    for (char c : job.name)
      stem += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    const fs::path base = fs::path(dir) / stem;
    std::string err;
    const auto done = [&](const fs::path& p) { written.push_back(p.filename().string()); };
    if (job.png) {
      PngOptions o;
      o.scale = job.png_scale;
      o.width = job.width;
      o.height = job.height;
      if (!export_png(job.figure, o, base.string() + ".png", &err)) return failed(err);
      done(base.string() + ".png");
    }
    if (job.svg) {
      if (!export_svg(job.figure, job.width, job.height, base.string() + ".svg", &err)) return failed(err);
      done(base.string() + ".svg");
    }
    if (job.data) {
      if (!write_text_file(base.string() + ".csv", figure_csv(job.figure), &err)) return failed(err);
      done(base.string() + ".csv");
      if (!write_text_file(base.string() + ".json", figure_json(job.figure), &err)) return failed(err);
      done(base.string() + ".json");
    }
    if (!write_text_file(base.string() + ".record.json", record_json, &err)) return failed(err);
    done(base.string() + ".record.json");
  }
  std::string msg = "saved";
  for (const std::string& w : written)
    msg += " " + w;
  return msg + " into " + dir;
}

}  // namespace bs::ui
