// info.cpp: see info.h.
#include "app/info.h"

#include <glad/gl.h>

#include <cstdio>

#include "app/render_path.h"
#include "gpu/common/device_info.h"
#include "core/text.h"
#include "gpu/interop/gl_interop.h"
#include "ui/gl/context.h"

#ifndef BS_VERSION
#error "BS_VERSION (the CMake project version) must be defined by app/CMakeLists.txt"
#endif

namespace bs {

std::string version_text() {
  return std::string("blockscope ") + BS_VERSION + " (built with the CUDA " +
         version_string(built_cuda_runtime_version()) + " runtime)";
}

int run_info(const InfoOptions& opt) {
  const auto request = parse_path_request(opt.render_path);
  if (!request) {
    std::fprintf(stderr, "blockscope: --render-path: '%s' is not one of %s\n",
                 printable(opt.render_path).c_str(), k_path_request_names.list(", ").c_str());
    return 2;
  }
  const DeviceInfo d = query_device();
  std::printf("%s\n", version_text().c_str());
  if (d.available) {
    std::printf("CUDA device:   %s (compute capability %s, %d SMs, %.1f GiB, PCI %s)\n", d.name.c_str(),
                d.compute_capability().c_str(), d.sm_count, d.total_mem / 1073741824.0, d.pci_bus_id.c_str());
    std::printf("CUDA driver:   %s, runtime %s\n", version_string(d.driver_version).c_str(),
                version_string(d.runtime_version).c_str());
    std::printf("peaks:         FP32 %.1f TFLOP/s, DRAM %.0f GB/s (theoretical)\n", peak_fp32_gflops(d) / 1e3,
                peak_dram_gbs(d));
  } else {
    std::printf("CUDA device:   none (%s)\n", d.reason.c_str());
    std::printf("CUDA driver:   %s, runtime %s\n",
                d.driver_version > 0 ? version_string(d.driver_version).c_str() : "none",
                version_string(d.runtime_version).c_str());
  }
  std::string err;
  auto ctx = gl::create_headless(256, 256, &err);
  if (!ctx) {
    std::printf("GL:            no headless context (%s)\n", err.c_str());
    const PathDecision p = decide_path(*request, d.available, d.reason, "unknown");
    std::printf("render path:   %s (%s)\n", to_string(p.path), p.reason.c_str());
    return 0;
  }
  const auto& gi = ctx->info();
  std::printf("GL renderer:   %s\nGL version:    %s\nGL platform:   %s\n", gi.renderer.c_str(),
              gi.version.c_str(), gi.platform.c_str());
  PathDecision p = decide_path(*request, d.available, d.reason, gi.renderer);
  if (p.try_interop) {
    // A real registration attempt on a small field buffer: the same test the app makes.
    GLuint buf = 0;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_TEXTURE_BUFFER, buf);
    glBufferData(GL_TEXTURE_BUFFER, 64 * 64 * sizeof(float), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    std::string reg_err;
    auto t = interop::FieldInterop::create(buf, 64 * 64, &reg_err);
    p = settle_interop(p, t != nullptr, reg_err, gi.renderer, gi.software());
    t.reset();
    glDeleteBuffers(1, &buf);
  }
  std::printf("render path:   %s (%s)\n", to_string(p.path), p.reason.c_str());
  return 0;
}

}  // namespace bs
