// bench_interop.cpp: `blockscope bench interop --size N --frames F`: what one frame of the field costs on its
// way into GL, through CUDA-GL interop (map, kernel writes the texture, unmap) and through the host
// (device-to-host copy into pinned memory, glBufferSubData), measured in the same run on the same field.
#include <glad/gl.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/bench.h"
#include "gpu/common/device_info.h"
#include "core/stats.h"
#include "gpu/heat/heat.h"
#include "gpu/interop/gl_interop.h"
#include "ui/gl/context.h"
#include "ui/gl/field_renderer.h"

namespace bs::cli {

namespace {
struct InteropBenchArgs {
  std::string size = "2048";
  int frames = 200;
};

int run(const InteropBenchArgs& a) {
  const ParsedDim2 sz = parse_size2(a.size, "--size");
  if (!sz.value) return print_error(sz.error, 2);
  heat::Params p;
  p.nx = sz.value->x;
  p.ny = sz.value->y;
  if (auto err = heat::validate(p)) return print_error("--size: " + *err, 2);
  const DeviceInfo dev = query_device();
  if (!dev.available) return print_error("bench interop: no CUDA device: " + dev.reason, 1);
  std::string err;
  auto ctx = gl::create_headless(64, 64, &err);
  if (!ctx) return print_error("bench interop: " + err, 1);
  std::printf("GL: %s (%s); CUDA: %s\n", ctx->info().renderer.c_str(), ctx->info().platform.c_str(),
              dev.name.c_str());

  gl::FieldRenderer renderer;
  renderer.resize_field(static_cast<int>(p.nx), static_cast<int>(p.ny));
  heat::GpuSolver solver(p);
  solver.upload(heat::make_initial(p, heat::InitialPattern::HotSpots));
  solver.step(10);
  solver.sync();
  interop::HostStaging staging;
  auto mapped = interop::FieldInterop::create(renderer.field_buffer(), static_cast<size_t>(p.cells()), &err);
  const std::string map_err = err;

  using clock = std::chrono::steady_clock;
  auto time_frames = [&](auto&& frame) {
    std::vector<double> us;
    for (int i = 0; i < a.frames + 10; ++i) {
      glFinish();
      const auto t0 = clock::now();
      frame();
      glFinish();  // whatever GL still had to do before it can sample the field
      const auto t1 = clock::now();
      if (i >= 10)
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());  // 10 warm-up frames
    }
    return summarize(us);
  };
  const double mib = p.cells() * 4.0 / (1 << 20);
  Table t{{"path", "us/frame (median)", "p10", "p90", "field MiB"}, {}};
  auto row = [&](const std::string& name, const Summary& s) {
    t.rows.push_back(
        {name, fmt_fixed(s.median, 1), fmt_fixed(s.p10, 1), fmt_fixed(s.p90, 1), fmt_fixed(mib, 1)});
  };
  Summary s_map{}, s_shared{}, s_host{};
  if (mapped) {
    s_map = time_frames([&] {
      mapped->write(solver.device_field(), solver.stream_handle());
      solver.sync();
    });
    row("interop, map/unmap: map, kernel writes the GL buffer, unmap", s_map);
  } else {
    std::printf("map/unmap interop unavailable here: %s\n", map_err.c_str());
  }
  mapped.reset();
  s_host = time_frames([&] {
    renderer.upload(
        staging.download(solver.device_field(), static_cast<size_t>(p.cells()), solver.stream_handle()));
  });
  row("host copy: D2H to pinned, glBufferSubData", s_host);
  // Shared memory last: importing replaces the renderer's buffer.
  auto shared = interop::SharedFieldMemory::create(static_cast<size_t>(p.cells()), &err);
  if (shared) {
    const int fd = shared->export_fd(&err);
    if (fd < 0 || !renderer.import_field_memory(fd, shared->bytes(), &err)) shared.reset();
  }
  if (shared) {
    s_shared = time_frames([&] {
      renderer.wait_for_reads();
      shared->write(solver.device_field(), solver.stream_handle());
    });
    row("interop, shared memory: kernel writes memory GL imported", s_shared);
  } else {
    std::printf("shared-memory interop unavailable here: %s\n", err.c_str());
  }
  t.print(std::cout);
  const double best = shared ? s_shared.median : mapped || s_map.count ? s_map.median : 0;
  if (best > 0)
    std::printf("interop (%s) is %.1fx faster than the host-copy path at %s\n",
                shared ? "shared memory" : "map/unmap", s_host.median / best, to_string(*sz.value).c_str());
  std::printf(
      "%d frames each after 10 warm-up frames; host clock around each frame with glFinish on both sides\n",
      a.frames);
  return 0;
}
}  // namespace

void register_interop_bench(CLI::App& bench, BenchContext& ctx) {
  auto args = std::make_shared<InteropBenchArgs>();
  CLI::App* sub =
      bench.add_subcommand("interop", "Field to GL texture: interop vs host copy (needs CUDA and EGL)");
  sub->add_option("--size", args->size, "Field: N or NXxNY");
  sub->add_option("--frames", args->frames, "Timed frames per path")->check(in_range(1, 100000, "frames"));
  sub->callback([args, &ctx] { run_guarded(ctx, [&] { return run(*args); }); });
}

}  // namespace bs::cli
