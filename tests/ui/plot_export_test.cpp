// plot_export_test.cpp: a live plot (ui/plot.h series) saved from its menu: the figure keeps the series,
// bands and axes; CSV and JSON hold every point; the queued export writes PNG, SVG, CSV, JSON and the record.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ui/gl/context.h"
#include "ui/plot_export.h"
#include "test_util.h"

namespace {

using bs::test::read_text;

const std::vector<double> k_x = {1024, 2048, 4096};
const std::vector<double> k_y = {0.5, 1.5, 5.0};
const std::vector<double> k_lo = {0.4, 1.4, 4.5};
const std::vector<double> k_hi = {0.6, 1.7, 5.5};

std::vector<bs::ui::PlotSeries> sample_series() {
  bs::ui::PlotSeries gpu{"GPU, median", k_x, k_y, IM_COL32(255, 200, 80, 255), k_lo, k_hi};
  bs::ui::PlotSeries cpu{"CPU, \"1 thread\"", k_x, k_hi};
  return {gpu, cpu};
}

bs::ui::PlotAxes sample_axes() {
  bs::ui::PlotAxes a;
  a.x_label = "size";
  a.y_label = "ms per step";
  a.log_x = true;
  return a;
}

}  // namespace

TEST(PlotExport, FigureKeepsSeriesBandsAndAxes) {
  const auto series = sample_series();
  const bs::fig::Figure f = bs::ui::figure_from_plot(sample_axes(), series);
  EXPECT_EQ(f.kind, bs::fig::Kind::Lines);
  EXPECT_EQ(f.title, "ms per step vs size");
  EXPECT_TRUE(f.log_x);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].y, k_y);
  EXPECT_EQ(f.series[0].y_lo, k_lo);
  EXPECT_TRUE(f.series[1].y_lo.empty());  // no band given
}

TEST(PlotExport, CsvAndJsonHoldEveryPoint) {
  const auto series = sample_series();
  const bs::fig::Figure f = bs::ui::figure_from_plot(sample_axes(), series);
  const std::string csv = bs::ui::figure_csv(f);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 6);  // header + 3 points x 2 series
  EXPECT_NE(csv.find("GPU, median"), std::string::npos);       // quoted: it holds a comma
  EXPECT_NE(csv.find("\"CPU, \"\"1 thread\"\"\""), std::string::npos);
  const auto j = nlohmann::json::parse(bs::ui::figure_json(f));
  ASSERT_EQ(j["series"].size(), 2u);
  EXPECT_EQ(j["series"][0]["p90"].get<std::vector<double>>(), k_hi);
  EXPECT_EQ(j["x_label"], "size");
}

TEST(PlotExport, QueuedExportWritesEveryFile) {
  std::string err;
  auto ctx = bs::gl::create_headless(64, 64, &err);
  if (!ctx) GTEST_SKIP() << "no headless GL context: " << err;
  const std::string dir = std::string(BS_TEST_OUT) + "/plot-export";
  std::filesystem::remove_all(dir);
  bs::ui::PlotExportJob job;
  job.figure = bs::ui::figure_from_plot(sample_axes(), sample_series());
  job.name = "heat timing";
  ASSERT_FALSE(bs::ui::plot_exports_pending());
  bs::ui::queue_plot_export(job);
  EXPECT_TRUE(bs::ui::plot_exports_pending());
  const std::string msg = bs::ui::run_plot_exports(dir, "{\"blockscope_record\": 1}\n");
  EXPECT_EQ(msg.rfind("saved", 0), 0u) << msg;
  EXPECT_FALSE(bs::ui::plot_exports_pending());
  for (const char* ext : {".png", ".svg", ".csv", ".json", ".record.json"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/heat-timing" + std::string(ext))) << ext;
  EXPECT_GT(std::filesystem::file_size(dir + "/heat-timing.png"), 5000u);  // a drawn figure, not a blank
  EXPECT_NE(read_text(dir + "/heat-timing.svg").find("ms per step"), std::string::npos);
}

TEST(PlotExport, UnwritableDirectoryIsAMessage) {
  bs::ui::PlotExportJob job;
  job.png = job.svg = false;
  job.name = "x";
  bs::ui::queue_plot_export(job);
  const std::string msg = bs::ui::run_plot_exports("/proc/blockscope-cannot-write-here", "{}");
  EXPECT_NE(msg.find("cannot"), std::string::npos) << msg;
  EXPECT_FALSE(bs::ui::plot_exports_pending());
}
