// roofline_figure.cpp: see roofline_figure.h.
#include "app/roofline/roofline_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/sweep/record.h"
#include "core/text.h"
#include "ui/figure_export.h"
#include "ui/gl/context.h"

namespace bs::roofline {

namespace {

constexpr int k_roof_points = 64;  // a roof is drawn through this many points (hover finds values along it)

// A roof from x_lo to x_hi: bandwidth x I up to the ridge, then flat at the peak.
fig::Series roof_series(const std::string& label, const Roof& r, double x_lo, double x_hi, uint32_t rgba) {
  fig::Series s;
  s.label = label;
  s.rgba = rgba;
  const double l0 = std::log10(x_lo), l1 = std::log10(x_hi);
  for (int i = 0; i < k_roof_points; ++i) {
    double x = std::pow(10.0, l0 + (l1 - l0) * i / (k_roof_points - 1));
    s.x.push_back(x);
    s.y.push_back(attainable_gflops(r, x));
  }
  // The ridge itself, so the corner is sharp.
  const double rx = ridge(r);
  if (rx > x_lo && rx < x_hi) {
    const auto it = std::lower_bound(s.x.begin(), s.x.end(), rx);
    const auto k = it - s.x.begin();
    s.x.insert(it, rx);
    s.y.insert(s.y.begin() + k, r.peak_gflops);
  }
  return s;
}

std::string gbs_text(double v) {
  return fmt_fixed(v, v < 100 ? 1 : 0) + " GB/s";
}
std::string gflops_text(double v) {
  return fmt_fixed(v, v < 100 ? 1 : 0) + " GFLOP/s";
}

}  // namespace

Roof dram_roof(const Ceilings& c) {
  return Roof{c.fp32_gflops, c.dram_gbs};
}

Roof roof_for(const Chart& ch, const work::RunRecord& r) {
  const bool gpu = r.where == work::Where::Gpu;
  const std::optional<Ceilings>& c = gpu ? ch.gpu : ch.cpu;
  if (!c) return Roof{};
  Roof roof = dram_roof(*c);
  if (r.work.math != work::Math::Fp32) {
    if (!gpu) return Roof{};  // the CPU has no tensor-core ceiling
    roof.peak_gflops = c->peak_gflops(r.work.math);
  }
  roof.cache_bytes = gpu ? ch.gpu_cache_bytes : ch.cpu_cache_bytes;
  roof.cache_name = gpu ? "L2" : "the last-level cache";
  return roof;
}

std::string roof_missing(const Chart& ch, const work::RunRecord& r) {
  const bool gpu = r.where == work::Where::Gpu;
  const std::optional<Ceilings>& c = gpu ? ch.gpu : ch.cpu;
  if (!c) return std::string("no ") + (gpu ? "GPU" : "CPU") + " ceilings yet";
  if (r.work.math == work::Math::Fp32) return {};
  if (!gpu) return "no tensor-core ceiling on the CPU";
  if (c->peak_gflops(r.work.math) > 0) return {};
  return std::string("no ") + work::to_string(r.work.math) + " ceiling" +
         (c->tc_absent.empty() ? std::string() : ": " + c->tc_absent);
}

namespace {

// "BF16" from "BF16 tensor cores".
std::string precision_name(work::Math m) {
  const std::string s = work::to_string(m);
  return s.substr(0, s.find(' '));
}

}  // namespace

fig::Figure make_figure(const Chart& ch) {
  fig::Figure f;
  f.kind = fig::Kind::Lines;
  f.title = ch.title;
  f.x_label = "arithmetic intensity (FLOP per DRAM byte)";
  f.y_label = "GFLOP/s";
  f.log_x = f.log_y = true;
  f.y_from_zero = false;
  // x range: 1/64 .. 1024 FLOP/B, widened to every run's intensity (a run with no DRAM bytes stays off).
  double x_lo = 1.0 / 64, x_hi = 1024;
  for (const auto& r : ch.runs) {
    const Roof roof = roof_for(ch, r);
    for (bool measured : {false, true}) {
      const Placement p = place(roof, r, measured);
      if (p.no_flops || !std::isfinite(p.intensity) || p.intensity <= 0) continue;
      x_lo = std::min(x_lo, p.intensity / 2);
      x_hi = std::max(x_hi, p.intensity * 2);
    }
  }
  std::string sub;
  if (ch.gpu) {
    const Ceilings& g = *ch.gpu;
    f.series.push_back(roof_series(
        "GPU: DRAM " + gbs_text(g.dram_gbs) + ", FP32 " + gflops_text(g.fp32_gflops) + " (measured)",
        dram_roof(g), x_lo, x_hi, 0x5aa0ffffu));
    if (g.l2_gbs > 0)
      f.series.push_back(roof_series("GPU: L2 " + gbs_text(g.l2_gbs) + " (measured)",
                                     Roof{g.fp32_gflops, g.l2_gbs}, x_lo, x_hi, 0x9ccfffffu));
    // The tensor-core roofs: the same bandwidth, each precision's measured peak (absent ones say why below).
    const uint32_t tc_colours[] = {0x3cc878ffu, 0x9ad24affu, 0x2fb5b0ffu};
    for (size_t i = 0; i < std::size(k_tensor_maths); ++i) {
      const double peak = g.peak_gflops(k_tensor_maths[i]);
      if (peak > 0)
        f.series.push_back(roof_series("GPU: " + std::string(work::to_string(k_tensor_maths[i])) + " " +
                                           gflops_text(peak) + " (best of cuBLAS, measured)",
                                       Roof{peak, g.dram_gbs}, x_lo, x_hi, tc_colours[i]));
    }
    if (ch.datasheet)
      f.series.push_back(roof_series(ch.datasheet->name + ": " + gbs_text(ch.datasheet->dram_gbs) + ", " +
                                         gflops_text(ch.datasheet->fp32_gflops),
                                     Roof{ch.datasheet->fp32_gflops, ch.datasheet->dram_gbs}, x_lo, x_hi,
                                     0x8c8c8cffu));
    sub += g.device + " (ceilings measured " + g.measured_utc + ")";
    if (!g.tc_absent.empty()) sub += "; tensor-core roofs: " + g.tc_absent;
  }
  if (ch.cpu) {
    const Ceilings& c = *ch.cpu;
    f.series.push_back(roof_series(
        "CPU: memory " + gbs_text(c.dram_gbs) + ", FP32 " + gflops_text(c.fp32_gflops) + " (measured)",
        dram_roof(c), x_lo, x_hi, 0xf0a040ffu));
    sub += std::string(sub.empty() ? "" : "; ") + c.device + " (measured " + c.measured_utc + ")";
  }
  fig::Series gpu_model, gpu_tensor, gpu_measured, cpu_model;
  gpu_model.label = "GPU runs (model bytes)";
  gpu_model.rgba = 0x40d0a0ffu;
  gpu_tensor.label = "GPU tensor-core runs (model bytes; under their precision's roof)";
  gpu_tensor.rgba = 0xffd040ffu;
  gpu_measured.label = "GPU runs (measured DRAM bytes)";
  gpu_measured.rgba = 0xe060e0ffu;
  cpu_model.label = "CPU runs (model bytes)";
  cpu_model.rgba = 0xff7050ffu;
  std::vector<fig::Series> per_variant;  // series_per_variant: one per variant, first-seen order
  auto variant_series = [&](const work::RunRecord& r) -> fig::Series& {
    for (fig::Series& s : per_variant)
      if (s.label == r.variant) return s;
    fig::Series s;
    s.label = r.variant;
    s.rgba = fig::palette(per_variant.size());
    per_variant.push_back(std::move(s));
    return per_variant.back();
  };
  int no_flops = 0;
  for (const auto& r : ch.runs) {
    const Roof roof = roof_for(ch, r);
    const Placement p = place(roof, r, false);
    if (p.no_flops) {
      ++no_flops;
      continue;
    }
    const bool tensor = r.work.math != work::Math::Fp32;
    fig::Series& s = ch.series_per_variant          ? variant_series(r)
                     : r.where != work::Where::Gpu ? cpu_model
                     : tensor                      ? gpu_tensor
                                                   : gpu_model;
    const std::string pct = (tensor ? std::string(" [") + work::to_string(r.work.math) + "]" : std::string()) +
                            (roof.valid() ? ": " + p.text() : ": " + roof_missing(ch, r));
    s.x.push_back(p.intensity);
    s.y.push_back(p.gflops);
    s.point_labels.push_back(r.label + " (" + r.device + ")" + pct);
    const Placement m = place(roof, r, true);
    if (m.measured && r.where == work::Where::Gpu) {
      gpu_measured.x.push_back(m.intensity);
      gpu_measured.y.push_back(m.gflops);
      gpu_measured.point_labels.push_back(r.label + " (" + r.device + "): " + m.text());
    }
  }
  for (fig::Series* s : {&gpu_model, &gpu_tensor, &gpu_measured, &cpu_model}) {
    s->points_only = true;
    if (!s->x.empty()) f.series.push_back(std::move(*s));
  }
  for (fig::Series& s : per_variant) {
    s.points_only = true;
    f.series.push_back(std::move(s));
  }
  if (no_flops > 0)
    sub += std::string(sub.empty() ? "" : "; ") + std::to_string(no_flops) +
           " run(s) without FLOPs: in the table (% of bandwidth)";
  if (!ch.gpu && !ch.cpu) sub = "no ceilings measured yet";
  f.subtitle = sub;
  return f;
}

std::string to_csv(const Chart& ch) {
  std::string out =
      "kind,label,lab,variant,device,side,seconds,flops,model_bytes,measured_dram_bytes,model_intensity,"
      "measured_intensity,gflops,model_gbs,bound,pct_of_ceiling\n";
  auto n = [](double v) {
    if (!std::isfinite(v)) return std::string(v > 0 ? "inf" : "");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  for (const auto& r : ch.runs) {
    const Roof roof = roof_for(ch, r);
    const Placement p = place(roof, r, false);
    const Placement m = place(roof, r, true);
    out += "run," + csv_field(r.label) + "," + csv_field(r.lab) + "," + csv_field(r.variant) + "," +
           csv_field(r.device) + "," + work::to_string(r.where) + "," + n(r.seconds) + "," + n(r.work.flops) +
           "," + n(r.work.model_bytes()) + "," +
           (r.work.measured_dram_bytes ? n(*r.work.measured_dram_bytes) : std::string()) + "," +
           (p.no_flops ? std::string() : n(p.intensity)) + "," +
           (m.measured && !m.no_flops ? n(m.intensity) : std::string()) + "," + n(p.gflops) + "," + n(p.gbs) +
           "," + to_string(p.bound) + "," + (roof.valid() ? n(p.pct) : std::string()) + "\n";
  }
  auto ceiling = [&](const std::string& name, const std::string& device, double gbs, double gflops) {
    out += "ceiling," + csv_field(name) + ",,,," + csv_field(device) + ",,,,,,,," + n(gflops) + "," + n(gbs) +
           ",,\n";
  };
  if (ch.gpu) {
    ceiling("GPU DRAM copy + FP32 FMA (measured " + ch.gpu->measured_utc + ")", ch.gpu->device,
            ch.gpu->dram_gbs, ch.gpu->fp32_gflops);
    ceiling("GPU L2 (measured)", ch.gpu->device, ch.gpu->l2_gbs, 0);
    ceiling("GPU shared memory (measured)", ch.gpu->device, ch.gpu->smem_gbs, 0);
    for (const work::Math m : k_tensor_maths)
      if (ch.gpu->peak_gflops(m) > 0)
        ceiling("GPU " + precision_name(m) + " tensor cores (" + ch.gpu->tc_how + ")", ch.gpu->device,
                ch.gpu->dram_gbs, ch.gpu->peak_gflops(m));
  }
  if (ch.datasheet) ceiling(ch.datasheet->name, "", ch.datasheet->dram_gbs, ch.datasheet->fp32_gflops);
  if (ch.cpu)
    ceiling("CPU memory copy + FP32 (measured " + ch.cpu->measured_utc + ")", ch.cpu->device,
            ch.cpu->dram_gbs, ch.cpu->fp32_gflops);
  return out;
}

nlohmann::json to_json(const Chart& ch) {
  nlohmann::json j;
  j["ceilings"] = nlohmann::json::object();
  if (ch.gpu) j["ceilings"]["gpu"] = roofline::to_json(*ch.gpu);
  if (ch.cpu) j["ceilings"]["cpu"] = roofline::to_json(*ch.cpu);
  if (ch.datasheet)
    j["ceilings"]["datasheet"] = {{"name", ch.datasheet->name},
                                  {"dram_gbs", ch.datasheet->dram_gbs},
                                  {"fp32_gflops", ch.datasheet->fp32_gflops}};
  j["runs"] = nlohmann::json::array();
  for (const auto& r : ch.runs) {
    const Roof roof = roof_for(ch, r);
    const Placement p = place(roof, r, false);
    nlohmann::json row = {{"label", r.label},
                          {"lab", r.lab},
                          {"variant", r.variant},
                          {"device", r.device},
                          {"side", work::to_string(r.where)},
                          {"seconds", r.seconds},
                          {"flops", r.work.flops},
                          {"read_bytes", r.work.read_bytes},
                          {"write_bytes", r.work.write_bytes},
                          {"gflops", p.gflops},
                          {"model_gbs", p.gbs},
                          {"bound", to_string(p.bound)},
                          {"math", work::to_string(r.work.math)}};
    if (!p.no_flops && std::isfinite(p.intensity)) row["model_intensity"] = p.intensity;
    if (r.work.measured_dram_bytes) {
      row["measured_dram_bytes"] = *r.work.measured_dram_bytes;
      const Placement m = place(roof, r, true);
      if (!m.no_flops && std::isfinite(m.intensity)) row["measured_intensity"] = m.intensity;
    }
    if (roof.valid()) {
      row["pct_of_ceiling"] = p.pct;
      row["readout"] = p.text();
    } else {
      row["no_ceiling"] = roof_missing(ch, r);
    }
    j["runs"].push_back(row);
  }
  return j;
}

std::vector<std::string> write_files(const Chart& ch, const std::string& dir, int width, int height,
                                     std::vector<std::string>& errors) {
  std::vector<std::string> files;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string err;
  auto text = [&](const char* name, const std::string& body) {
    if (write_text_file(dir + "/" + name, body, &err))
      files.emplace_back(name);
    else
      errors.push_back(err);
  };
  const fig::Figure f = make_figure(ch);
  text("roofline.csv", to_csv(ch));
  text("roofline.json", to_json(ch).dump(1) + "\n");
  text("roofline.svg", fig::to_svg(f, width, height));
  std::string gl_error;
  std::unique_ptr<gl::Context> own = gl::create_headless(64, 64, &gl_error);
  if (!own) {
    errors.push_back("roofline.png skipped: no GL context for rendering (" + gl_error + ")");
  } else {
    ui::PngOptions po;
    po.width = width;
    po.height = height;
    if (ui::export_png(f, po, dir + "/roofline.png", &err))
      files.emplace_back("roofline.png");
    else
      errors.push_back("roofline.png: " + err);
  }
  nlohmann::json rec = record::environment_record("headless CLI");
  rec["roofline"] = to_json(ch);
  rec["export"] = {{"width", width}, {"height", height}};
  rec["files"] = files;
  rec["files"].push_back("record.json");
  text("record.json", rec.dump(1) + "\n");
  return files;
}

}  // namespace bs::roofline
