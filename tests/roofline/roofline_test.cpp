// roofline_test.cpp: roofline geometry, the ceilings (CPU measured here, GPU on the GPU machine), their
// cache, the figure and its files.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "app/roofline/roofline_figure.h"
#include "app/shell/ceiling_readout.h"
#include "core/roofline.h"
#include "gpu/heat/heat_work.h"
#include "gpu/matmul/matmul_work.h"
#include "gpu/vector/vector_work.h"
#include "gpu/roofline/ceilings.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using roofline::Bound;
using roofline::Roof;

std::string temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("bs_roofline_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

work::RunRecord run_of(double flops, double bytes, double seconds, work::Where where = work::Where::Gpu) {
  work::RunRecord r;
  r.label = "test run";
  r.lab = "test";
  r.where = where;
  r.seconds = seconds;
  r.work.flops = flops;
  r.work.read_bytes = bytes;
  return r;
}

TEST(RooflineGeometry, RidgeAndAttainable) {
  const Roof r{60000, 3000};  // 60 TFLOP/s, 3 TB/s: ridge at 20 FLOP/B
  EXPECT_DOUBLE_EQ(roofline::ridge(r), 20);
  EXPECT_DOUBLE_EQ(roofline::attainable_gflops(r, 1), 3000);
  EXPECT_DOUBLE_EQ(roofline::attainable_gflops(r, 20), 60000);
  EXPECT_DOUBLE_EQ(roofline::attainable_gflops(r, 1000), 60000);
  EXPECT_DOUBLE_EQ(roofline::attainable_gflops(r, INFINITY), 60000);
  EXPECT_EQ(roofline::bound_at(r, 19.9), Bound::Memory);
  EXPECT_EQ(roofline::bound_at(r, 20), Bound::Compute);
  EXPECT_EQ(roofline::bound_at(r, 500), Bound::Compute);
  EXPECT_FALSE(Roof{}.valid());
}

TEST(RooflineGeometry, WhichCeilingBoundsARun) {
  const Roof r{60000, 3000};
  // Heat step: 7 FLOPs per 8 bytes: memory bound; 1.5 TB/s achieved = 50% of the bandwidth ceiling.
  heat::Params hp;
  hp.nx = hp.ny = 8192;
  work::RunRecord heat_run;
  heat_run.work = heat::step_work(hp);
  heat_run.seconds = heat_run.work.model_bytes() / 1.5e12;
  const roofline::Placement ph = roofline::place(r, heat_run);
  EXPECT_EQ(ph.bound, Bound::Memory);
  EXPECT_NEAR(ph.intensity, 0.875, 1e-12);
  EXPECT_NEAR(ph.gbs, 1500, 1e-6);
  EXPECT_NEAR(ph.pct, 50, 1e-9);
  EXPECT_NE(ph.text().find("50% of the DRAM bandwidth ceiling (memory bound"), std::string::npos)
      << ph.text();
  // Matmul 4096^3 at 30 TFLOP/s: intensity 683 FLOP/B, compute bound, 50% of FP32.
  work::RunRecord mm_run;
  mm_run.work = matmul::run_work({4096, 4096, 4096});
  mm_run.seconds = mm_run.work.flops / 30e12;
  const roofline::Placement pm = roofline::place(r, mm_run);
  EXPECT_EQ(pm.bound, Bound::Compute);
  EXPECT_NEAR(pm.pct, 50, 1e-9);
  EXPECT_NE(pm.text().find("FP32 ceiling (compute bound"), std::string::npos);
  // A copy: no FLOPs, its % is of the bandwidth.
  const roofline::Placement pc = roofline::place(r, run_of(0, 3e9, 1e-3));
  EXPECT_TRUE(pc.no_flops);
  EXPECT_NEAR(pc.pct, 100, 1e-9);
  // Shared memory only: no DRAM bytes, infinite intensity, % of FP32.
  const roofline::Placement ps = roofline::place(r, run_of(6e9, 0, 1e-3));
  EXPECT_TRUE(std::isinf(ps.intensity));
  EXPECT_EQ(ps.bound, Bound::Compute);
  EXPECT_NEAR(ps.pct, 10, 1e-9);
}

TEST(RooflineGeometry, MeasuredBytesMoveThePoint) {
  const Roof r{60000, 3000};
  work::RunRecord run = run_of(1e9, 1e9, 1e-3);  // 1 FLOP/B model, 1 TB/s
  run.work.measured_dram_bytes = 16e9;           // the uncoalesced kernel moves 16x the bytes
  const roofline::Placement model = roofline::place(r, run, false);
  const roofline::Placement measured = roofline::place(r, run, true);
  EXPECT_FALSE(model.measured);
  EXPECT_TRUE(measured.measured);
  EXPECT_DOUBLE_EQ(model.intensity, 1);
  EXPECT_DOUBLE_EQ(measured.intensity, 1.0 / 16);
  EXPECT_DOUBLE_EQ(measured.gflops, model.gflops);  // same FLOPs, same time: the point moves left
  EXPECT_NEAR(measured.gbs, 16000, 1e-6);
  EXPECT_NE(measured.text().find("measured bytes"), std::string::npos);
}

roofline::Ceilings fake_gpu() {
  roofline::Ceilings c;
  c.gpu = true;
  c.device = "Test GPU";
  c.key = "Test GPU|uuid|driver 13.0";
  c.measured_utc = "2026-11-23T14:00:00Z";
  c.dram_gbs = 3000;
  c.l2_gbs = 9000;
  c.smem_gbs = 30000;
  c.fp32_gflops = 60000;
  c.launch_us = 2.5;
  c.how = "test";
  return c;
}

TEST(Ceilings, CpuMeasurementIsSaneAndQuick) {
  const auto t0 = std::chrono::steady_clock::now();
  const roofline::Ceilings c = roofline::measure_cpu(size_t{16} << 20, 0.05);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
  EXPECT_FALSE(c.gpu);
  EXPECT_GT(c.dram_gbs, 0.1);
  EXPECT_LT(c.dram_gbs, 10000);
  EXPECT_GT(c.fp32_gflops, 0.1);
  EXPECT_LT(c.fp32_gflops, 100000);
  EXPECT_EQ(c.key, roofline::cpu_key());
  EXPECT_EQ(c.measured_utc.size(), 20u) << c.measured_utc;
  EXPECT_NO_THROW(roofline::from_json(roofline::to_json(c)));
}

TEST(Ceilings, GpuMeasurementIsSane) {
  BS_REQUIRE_GPU();
  const roofline::Ceilings c = roofline::measure_gpu();
  EXPECT_TRUE(c.gpu);
  EXPECT_GT(c.dram_gbs, 100);
  EXPECT_GT(c.l2_gbs, c.dram_gbs);
  EXPECT_GT(c.smem_gbs, c.dram_gbs);
  EXPECT_GT(c.fp32_gflops, 1000);
  EXPECT_GT(c.launch_us, 0);
  EXPECT_LT(c.launch_us, 100);
  // Within reach of the theoretical figures the device reports (a measured ceiling above them is a bug).
  const DeviceInfo d = query_device(0);
  EXPECT_LT(c.fp32_gflops, peak_fp32_gflops(d) * 1.05);
  std::printf(
      "GPU ceilings: DRAM %.0f GB/s, L2 %.0f GB/s, shared %.0f GB/s, FP32 %.0f GFLOP/s, launch %.2f us\n",
      c.dram_gbs, c.l2_gbs, c.smem_gbs, c.fp32_gflops, c.launch_us);
  // Tensor cores: on 8.0 and later all three measured, BF16/FP16 at least twice TF32 and everything far above
  // the CUDA cores' FP32; before 7.0 none, with the reason.
  std::printf("tensor cores: %s (%s)\n", roofline::tensor_core_summary(c).c_str(), c.tc_how.c_str());
  if (d.cc_major >= 8) {
    EXPECT_TRUE(c.tc_absent.empty()) << c.tc_absent;
    EXPECT_GT(c.tf32_gflops, 2 * c.fp32_gflops);
    EXPECT_GT(c.bf16_gflops, 1.5 * c.tf32_gflops);
    EXPECT_GT(c.fp16_gflops, 1.5 * c.tf32_gflops);
    EXPECT_NE(c.tc_how.find("cuBLAS"), std::string::npos);
  } else if (d.cc_major < 7) {
    EXPECT_EQ(c.bf16_gflops + c.fp16_gflops + c.tf32_gflops, 0);
    EXPECT_NE(c.tc_absent.find("no tensor cores"), std::string::npos) << c.tc_absent;
  }
  EXPECT_FALSE(c.tc_pending);
}

// A cache written before tensor-core ceilings existed: the rest is kept, the tensor cores are measured and the
// file rewritten with them.
TEST(Ceilings, OldGpuCacheGetsTensorCoresMeasured) {
  BS_REQUIRE_GPU();
  const std::string dir = temp_dir("old_gpu_cache");
  roofline::Ceilings old = fake_gpu();
  old.key = roofline::gpu_key();
  nlohmann::json j = roofline::to_json(old);
  j.erase("tensor_cores");
  const std::string path = roofline::cache_path(dir, old.key);
  { std::ofstream(path) << j.dump(); }
  std::string msg;
  const roofline::Ceilings c = roofline::get_ceilings(true, dir, &msg);
  EXPECT_NE(msg.find("tensor cores measured now"), std::string::npos) << msg;
  EXPECT_DOUBLE_EQ(c.dram_gbs, 3000);  // the cached figures are kept
  EXPECT_FALSE(c.tc_pending);
  const roofline::CacheRead again = roofline::read_cache(path, old.key);
  ASSERT_TRUE(again.ceilings) << again.message;
  EXPECT_FALSE(again.ceilings->tc_pending);
  EXPECT_DOUBLE_EQ(again.ceilings->bf16_gflops, c.bf16_gflops);
}

TEST(Ceilings, TensorCoreFieldsInTheCacheFile) {
  roofline::Ceilings c = fake_gpu();
  c.bf16_gflops = 600000;
  c.fp16_gflops = 610000;
  c.tf32_gflops = 0;
  c.tc_absent = "TF32: test reason";
  c.tc_how = "best of cuBLAS (test)";
  const roofline::Ceilings back = roofline::from_json(roofline::to_json(c));
  EXPECT_DOUBLE_EQ(back.bf16_gflops, 600000);
  EXPECT_DOUBLE_EQ(back.fp16_gflops, 610000);
  EXPECT_DOUBLE_EQ(back.tf32_gflops, 0);
  EXPECT_EQ(back.tc_absent, "TF32: test reason");
  EXPECT_EQ(back.tc_how, "best of cuBLAS (test)");
  EXPECT_FALSE(back.tc_pending);
  EXPECT_DOUBLE_EQ(back.peak_gflops(work::Math::Bf16), 600000);
  EXPECT_DOUBLE_EQ(back.peak_gflops(work::Math::Fp32), 60000);
  EXPECT_EQ(roofline::tensor_core_summary(back),
            "BF16 tensor cores 600 TFLOP/s, FP16 tensor cores 610 TFLOP/s; absent: TF32: test reason");
  // A file from before tensor-core ceilings: none, pending, and the reason says so.
  nlohmann::json j = roofline::to_json(c);
  j.erase("tensor_cores");
  const roofline::Ceilings old = roofline::from_json(j);
  EXPECT_TRUE(old.tc_pending);
  EXPECT_EQ(old.peak_gflops(work::Math::Bf16), 0);
  EXPECT_NE(old.tc_absent.find("not measured yet"), std::string::npos) << old.tc_absent;
  // A bad figure is named by its field.
  j = roofline::to_json(c);
  j["tensor_cores"]["bf16_gflops"] = -1;
  try {
    roofline::from_json(j);
    FAIL() << "a negative tensor-core ceiling was accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string(e.what()).find("tensor_cores.bf16_gflops"), std::string::npos) << e.what();
  }
  // The CPU has no tensor-core fields at all.
  roofline::Ceilings cpu;
  cpu.device = "Test CPU";
  cpu.key = "cpu";
  cpu.measured_utc = "x";
  cpu.how = "x";
  cpu.dram_gbs = cpu.fp32_gflops = 1;
  EXPECT_FALSE(roofline::to_json(cpu).contains("tensor_cores"));
  EXPECT_FALSE(roofline::from_json(roofline::to_json(cpu)).tc_pending);
}

TEST(Ceilings, CacheWriteReadAndWrongDevice) {
  const std::string dir = temp_dir("cache");
  const roofline::Ceilings c = fake_gpu();
  const std::string path = roofline::cache_path(dir, c.key);
  std::string err;
  ASSERT_TRUE(roofline::write_cache(path, c, &err)) << err;
  const roofline::CacheRead r = roofline::read_cache(path, c.key);
  ASSERT_TRUE(r.ceilings) << r.message;
  EXPECT_EQ(r.ceilings->device, "Test GPU");
  EXPECT_DOUBLE_EQ(r.ceilings->l2_gbs, 9000);
  EXPECT_EQ(r.ceilings->measured_utc, c.measured_utc);
  const roofline::CacheRead other = roofline::read_cache(path, "another|key");
  EXPECT_FALSE(other.ceilings);
  EXPECT_NE(other.message.find("another device"), std::string::npos);
  EXPECT_FALSE(roofline::read_cache(dir + "/absent.json", c.key).ceilings);
  EXPECT_NE(roofline::cache_path(dir, "a|b"), roofline::cache_path(dir, "a_b"));  // punctuation matters
}

TEST(Ceilings, CorruptCacheIsRemeasuredWithAMessage) {
  const std::string dir = temp_dir("corrupt");
  const std::string path = roofline::cache_path(dir, roofline::cpu_key());
  for (const char* bad :
       {"{ not json", "{\"blockscope_ceilings\": 1, \"gpu\": false}", "{\"blockscope_ceilings\": 2}"}) {
    { std::ofstream(path) << bad; }
    const roofline::CacheRead r = roofline::read_cache(path, roofline::cpu_key());
    EXPECT_FALSE(r.ceilings) << bad;
    EXPECT_NE(r.message.find("corrupt"), std::string::npos) << r.message;
  }
  std::string msg;
  const roofline::Ceilings c = roofline::get_ceilings(false, dir, &msg);
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;
  EXPECT_NE(msg.find("measured now"), std::string::npos) << msg;
  EXPECT_GT(c.dram_gbs, 0);
  // Now cached: the second call reads it.
  std::string msg2;
  const roofline::Ceilings again = roofline::get_ceilings(false, dir, &msg2);
  EXPECT_NE(msg2.find("from the cache"), std::string::npos) << msg2;
  EXPECT_DOUBLE_EQ(again.dram_gbs, c.dram_gbs);
}

TEST(Ceilings, DatasheetTable) {
  ASSERT_TRUE(roofline::datasheet_for("NVIDIA H100 80GB HBM3"));
  EXPECT_EQ(roofline::datasheet_for("NVIDIA H100 80GB HBM3")->dram_gbs, 3350);
  EXPECT_EQ(roofline::datasheet_for("NVIDIA H100 PCIe")->dram_gbs, 2000);
  EXPECT_EQ(roofline::datasheet_for("NVIDIA H200")->dram_gbs, 4800);
  EXPECT_NE(roofline::datasheet_for("NVIDIA A100-SXM4-80GB")->name.find("datasheet"), std::string::npos);
  EXPECT_FALSE(roofline::datasheet_for("Some Laptop GPU"));
}

roofline::Chart sample_chart() {
  roofline::Chart ch;
  ch.gpu = fake_gpu();
  ch.datasheet = roofline::datasheet_for("NVIDIA H100 80GB HBM3");
  roofline::Ceilings cpu;
  cpu.device = "Test CPU";
  cpu.dram_gbs = 50;
  cpu.fp32_gflops = 500;
  cpu.measured_utc = "2026-11-23T14:00:00Z";
  ch.cpu = cpu;
  work::RunRecord a = run_of(2e9, 1e9, 1e-3);
  a.label = "heat: GPU stencil";
  a.work.measured_dram_bytes = 1.2e9;
  work::RunRecord b = run_of(1e9, 1e8, 1e-2, work::Where::Cpu);
  b.label = "matmul: cpu_openblas";
  work::RunRecord c = run_of(0, 2e9, 1e-3);
  c.label = "memory: copy, with \"quotes\", and commas";
  ch.runs = {a, b, c};
  return ch;
}

TEST(RooflineFigure, CeilingsAndRunsAsSeries) {
  const fig::Figure f = roofline::make_figure(sample_chart());
  EXPECT_TRUE(f.log_x);
  EXPECT_TRUE(f.log_y);
  int roofs = 0;
  const fig::Series* gpu_runs = nullptr;
  const fig::Series* measured = nullptr;
  const fig::Series* cpu_runs = nullptr;
  for (const auto& s : f.series) {
    if (!s.points_only) {
      ++roofs;
      // A roof: rising then flat at the peak.
      EXPECT_LT(s.y.front(), s.y.back());
    } else if (s.label.find("GPU runs (model") == 0) {
      gpu_runs = &s;
    } else if (s.label.find("measured") != std::string::npos) {
      measured = &s;
    } else {
      cpu_runs = &s;
    }
  }
  EXPECT_EQ(roofs, 4);  // GPU DRAM, GPU L2, datasheet, CPU
  ASSERT_TRUE(gpu_runs && measured && cpu_runs);
  ASSERT_EQ(gpu_runs->x.size(), 1u);  // the copy has no FLOPs: no point
  EXPECT_DOUBLE_EQ(gpu_runs->x[0], 2);
  EXPECT_DOUBLE_EQ(gpu_runs->y[0], 2000);
  EXPECT_NE(gpu_runs->point_labels[0].find("heat: GPU stencil"), std::string::npos);
  EXPECT_NE(gpu_runs->point_labels[0].find("% of the"), std::string::npos);
  EXPECT_NEAR(measured->x[0], 2 / 1.2, 1e-12);
  EXPECT_DOUBLE_EQ(cpu_runs->x[0], 10);
  EXPECT_NE(f.subtitle.find("1 run(s) without FLOPs"), std::string::npos) << f.subtitle;
  EXPECT_NE(f.subtitle.find("2026-11-23T14:00:00Z"), std::string::npos);
  // A datasheet roof is labelled as such.
  bool datasheet = false;
  for (const auto& s : f.series)
    datasheet |= s.label.find("(datasheet)") != std::string::npos;
  EXPECT_TRUE(datasheet);
  // Hover on the painted figure names the run.
  EXPECT_NE(fig::to_svg(f, 800, 500).find("Roofline"), std::string::npos);
}

// Tensor-core ceilings are roofs of their own, labelled with their precision; a run on tensor cores sits under
// its precision's roof, and one whose roof is absent says why instead of borrowing another.
TEST(RooflineFigure, TensorCoreRoofsAndRuns) {
  roofline::Chart ch = sample_chart();
  ch.gpu->bf16_gflops = 600000;
  ch.gpu->tf32_gflops = 300000;
  ch.gpu->tc_absent = "FP16: test reason";
  work::RunRecord bf = run_of(2e12, 1e9, 1e-2);  // 200 TFLOP/s at 2000 FLOP/B: compute bound
  bf.label = "matmul: mma_bf16_pipe";
  bf.work.math = work::Math::Bf16;
  work::RunRecord fp16 = bf;
  fp16.label = "matmul: mma_fp16_pipe";
  fp16.work.math = work::Math::Fp16;
  ch.runs = {bf, fp16};
  const roofline::Roof r = roofline::roof_for(ch, bf);
  ASSERT_TRUE(r.valid());
  EXPECT_DOUBLE_EQ(r.peak_gflops, 600000);
  EXPECT_DOUBLE_EQ(r.gbs, 3000);
  EXPECT_NEAR(roofline::place(r, bf).pct, 100.0 / 3, 1e-9);
  EXPECT_FALSE(roofline::roof_for(ch, fp16).valid());
  EXPECT_EQ(roofline::roof_missing(ch, fp16), "no FP16 tensor cores ceiling: FP16: test reason");
  EXPECT_EQ(roofline::roof_missing(ch, bf), "");
  const fig::Figure f = roofline::make_figure(ch);
  const fig::Series* bf_roof = nullptr;
  const fig::Series* tensor_runs = nullptr;
  for (const auto& s : f.series) {
    if (s.label.find("BF16 tensor cores") != std::string::npos) bf_roof = &s;
    if (s.label.find("GPU tensor-core runs") == 0) tensor_runs = &s;
    EXPECT_EQ(s.label.find("FP16 tensor cores"), std::string::npos) << "an absent roof was drawn: " << s.label;
  }
  ASSERT_TRUE(bf_roof && tensor_runs);
  EXPECT_NE(bf_roof->label.find("measured"), std::string::npos) << bf_roof->label;
  EXPECT_DOUBLE_EQ(bf_roof->y.back(), 600000);  // flat at its peak
  ASSERT_EQ(tensor_runs->x.size(), 2u);
  EXPECT_NE(tensor_runs->point_labels[0].find("[BF16 tensor cores]: 33%"), std::string::npos)
      << tensor_runs->point_labels[0];
  EXPECT_NE(tensor_runs->point_labels[1].find("no FP16 tensor cores ceiling"), std::string::npos)
      << tensor_runs->point_labels[1];
  EXPECT_NE(f.subtitle.find("tensor-core roofs: FP16: test reason"), std::string::npos) << f.subtitle;
  const nlohmann::json j = roofline::to_json(ch);
  EXPECT_EQ(j["runs"][0]["math"], "BF16 tensor cores");
  EXPECT_NE(j["runs"][1]["no_ceiling"].get<std::string>().find("test reason"), std::string::npos);
  EXPECT_NE(roofline::to_csv(ch).find("GPU BF16 tensor cores"), std::string::npos);
  // A CPU run never gets a tensor-core roof.
  work::RunRecord cpu = bf;
  cpu.where = work::Where::Cpu;
  EXPECT_FALSE(roofline::roof_for(ch, cpu).valid());
}

TEST(RooflineFigure, FilesWritten) {
  const std::string dir = temp_dir("files");
  std::vector<std::string> errors;
  const auto files = roofline::write_files(sample_chart(), dir, 1000, 600, errors);
  for (const char* name : {"roofline.csv", "roofline.json", "roofline.svg", "record.json"})
    EXPECT_TRUE(fs::exists(dir + "/" + name)) << name;
  const std::string csv = slurp(dir + "/roofline.csv");
  EXPECT_EQ(csv.rfind("kind,label,lab,variant,device,side,seconds,flops,model_bytes,measured_dram_bytes", 0),
            0u);
  EXPECT_NE(csv.find("\"memory: copy, with \"\"quotes\"\", and commas\""), std::string::npos) << csv;
  EXPECT_NE(csv.find("ceiling,"), std::string::npos);
  const auto j = nlohmann::json::parse(slurp(dir + "/roofline.json"));
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["runs"][0]["model_intensity"].get<double>(), 2);
  EXPECT_NEAR(j["runs"][0]["measured_intensity"].get<double>(), 2 / 1.2, 1e-12);
  EXPECT_EQ(j["runs"][0]["bound"], "memory");
  EXPECT_EQ(j["ceilings"]["gpu"]["dram_gbs"], 3000);
  const auto rec = nlohmann::json::parse(slurp(dir + "/record.json"));
  EXPECT_EQ(rec["files"].back(), "record.json");
  if (errors.empty()) {
    EXPECT_TRUE(fs::exists(dir + "/roofline.png"));
    EXPECT_GT(fs::file_size(dir + "/roofline.png"), 1000u);
  } else {
    EXPECT_NE(errors[0].find("no GL context"), std::string::npos) << errors[0];
  }
}

// Above 100% of the DRAM ceiling is explained where it shows: a footprint that fits in the cache says so
// with both sizes; without a footprint or a cache size the placement still says a cache is the likely reason.
TEST(RooflinePlacement, AboveTheCeilingSaysWhy) {
  roofline::Roof r;
  r.peak_gflops = 100;
  r.gbs = 10;
  work::RunRecord run;
  run.seconds = 0.01;  // 210 GB/s of model traffic against a 10 GB/s roof
  run.work = heat::step_work(heat::Params{.nx = 256, .ny = 256}, 4000);  // 256x256: 0.52 MB of fields
  ASSERT_NEAR(run.work.footprint_bytes, 8.0 * 256 * 256, 1e-9);
  roofline::Placement p = roofline::place(r, run);
  ASSERT_GT(p.pct, 100);
  EXPECT_EQ(p.note, "above the DRAM ceiling: the data is likely served from a cache, not DRAM");
  r.cache_bytes = 50e6;
  r.cache_name = "L2";
  p = roofline::place(r, run);
  EXPECT_EQ(p.note, "data fits in L2 (0.52 MB < 50.0 MB): served from the cache, not DRAM");
  EXPECT_NE(p.text().find("; data fits in L2 (0.52 MB < 50.0 MB)"), std::string::npos) << p.text();
  // At or below 100%: no note.
  run.seconds = 1000;
  EXPECT_TRUE(roofline::place(r, run).note.empty());
  // A vector add's footprint is its three arrays.
  EXPECT_DOUBLE_EQ(vector::kernel_work(vector::Op::Add, 1000).footprint_bytes, 12000.0);
}

// The shell's read-out (the menu bar, presenter mode): the active lab's newest run, only with its ceilings.
TEST(CeilingReadout, NewestRunOfTheLabAgainstItsCeiling) {
  roofline::Chart ch;
  work::RunRecord old;
  old.lab = "heat";
  old.label = "heat: CPU, all threads, 512x512";
  old.variant = "CPU, all threads";
  old.where = work::Where::Cpu;
  old.device = "CPU";
  old.seconds = 2;
  old.work = {7e9, 4e9, 4e9, std::nullopt};
  work::RunRecord run = old;
  run.label = "heat: CPU, all threads, 4096x4096";
  run.seconds = 1;  // 7 GFLOP/s at 7/8 FLOP/B
  work::RunRecord other = old;
  other.lab = "matmul";
  ch.runs = {old, run, other};
  EXPECT_FALSE(ceiling_readout(ch, "heat")) << "no ceilings known: no read-out";
  roofline::Ceilings c;
  c.device = "Test CPU";
  c.measured_utc = "2026-11-23T14:02:03Z";
  c.dram_gbs = 10;      // under the ridge (100 / 10 = 10 FLOP/B): 8.75 GFLOP/s attainable at 0.875 FLOP/B
  c.fp32_gflops = 100;  // so 7 GFLOP/s is 80% of the bandwidth ceiling
  ch.cpu = c;
  const auto r = ceiling_readout(ch, "heat");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pct, "80");
  EXPECT_EQ(r->text, "roofline 80% (CPU, all threads, 4096x4096)") << "the read-out names its run";
  EXPECT_EQ(r->short_text, "roofline 80%");
  EXPECT_EQ(r->tooltip,
            "heat: CPU, all threads, 4096x4096 (CPU): 80% of the DRAM bandwidth ceiling (memory bound, 0.88 "
            "FLOP/B, model)\nceiling: CPU memory copy 10 GB/s, measured 2026-11-23T14:02:03Z on Test CPU");
  EXPECT_FALSE(ceiling_readout(ch, "vector")) << "a lab without runs";
  // A GPU run with only the CPU's ceilings known: no read-out, never a made-up roof.
  run.where = work::Where::Gpu;
  ch.runs.push_back(run);
  EXPECT_FALSE(ceiling_readout(ch, "heat"));
  // Compute bound: the FP32 ceiling is named.
  run.where = work::Where::Cpu;
  run.work = {50e9, 1e9, 0, std::nullopt};  // 50 FLOP/B, 50 GFLOP/s of 100
  ch.runs.push_back(run);
  const auto comp = ceiling_readout(ch, "heat");
  ASSERT_TRUE(comp);
  EXPECT_EQ(comp->short_text, "roofline 50%");
  EXPECT_NE(comp->tooltip.find("FP32 100 GFLOP/s"), std::string::npos) << comp->tooltip;
}

// The newest run is the newest by time, not by its place in the log: a configuration run again keeps its
// place (RunLog replaces it there), and the read-out then shows it, with when it ran.
TEST(CeilingReadout, TheRunShownIsTheLatestByTimeAndSaysWhen) {
  work::RunLog log;
  work::RunRecord a;
  a.lab = "heat";
  a.label = "heat: CPU, all threads, 512x512";
  a.variant = "CPU, all threads";
  a.where = work::Where::Cpu;
  a.device = "CPU";
  a.seconds = 1;
  a.work = {1e9, 4e9, 4e9, std::nullopt};
  work::RunRecord b = a;
  b.label = "heat: CPU, all threads, 4096x4096";
  log.add(a);
  log.add(b);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  a.seconds = 0.5;
  log.add(a);  // 512x512 again: replaces the first record, in the first place
  roofline::Chart ch;
  ch.runs = log.snapshot();
  ASSERT_EQ(ch.runs.size(), 2u);
  EXPECT_EQ(ch.runs.back().label, b.label);
  roofline::Ceilings c;
  c.device = "Test CPU";
  c.dram_gbs = 10;
  c.fp32_gflops = 100;
  ch.cpu = c;
  const auto r = ceiling_readout(ch, "heat");
  ASSERT_TRUE(r);
  EXPECT_NE(r->run.find("512x512"), std::string::npos) << r->run;
  EXPECT_EQ(r->run.find("4096"), std::string::npos) << r->run;
  // The clock of the run: "hh:mm:ss" in every form.
  const std::string clock = r->run.substr(r->run.size() - 8);
  EXPECT_EQ(clock[2], ':');
  EXPECT_EQ(clock[5], ':');
  EXPECT_EQ(r->short_text, "roofline " + r->pct + "% (" + clock + ")");
  EXPECT_NE(r->text.find(clock), std::string::npos);
  EXPECT_NE(r->tooltip.find(clock), std::string::npos);
}

}  // namespace
}  // namespace bs
