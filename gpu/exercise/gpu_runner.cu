// gpu_runner.cu: see gpu_runner.h (the part that needs the CUDA runtime).
#include <cuda_runtime.h>

#include <cstring>

#include "core/error.h"
#include "gpu/common/cuda_check.h"
#include "gpu/common/device_buffer.h"
#include "gpu/common/device_info.h"
#include "gpu/exercise/gpu_runner.h"
#include "gpu/kernel/kernel_runner.h"

namespace bs::exercise {

const GpuStatus& gpu_status() {
  // Asked once: the runtime's answer for a process does not change, and every "Run tests" needs it.
  static const GpuStatus status = [] {
    GpuStatus s;
    const DeviceInfo d = query_device(0);
    s.available = d.available;
    s.reason = d.reason;
    if (!d.available) return s;
    s.device = d.name;
    s.arch = d.cc_major * 10 + d.cc_minor;
    s.dram_gbs = peak_dram_gbs(d);
    s.dram_source = "theoretical DRAM bandwidth of " + d.name + " (2 x memory clock x bus width, from the CUDA runtime)";
    return s;
  }();
  return status;
}

namespace {

// Buffers, library and stream of one job; a sticky fault leaves them to the device reset (abandoned).
GpuRun run_checked(const GpuJob& job) {
  GpuRun out;
  kernel::CompileResult binary = *job.binary;
  binary.lowered_name = job.entry;  // exercises compile without a lab contract: the PTX entry names the kernel
  binary.kernel_name = job.shown_name;
  if (job.grid[2] != 1 || job.block[2] != 1) {
    out.error = "a launch with a z dimension runs in the simulator only";
    return out;
  }
  Stream stream;
  std::vector<DeviceBuffer<uint32_t>> dev(job.buffers.size());
  kernel::LoadedKernel k(binary);
  try {
    std::vector<std::vector<uint32_t>> inputs;  // for the timed runs: each starts from the test's inputs
    if (job.repetitions > 0)
      for (const std::vector<uint32_t>* v : job.buffers) inputs.push_back(*v);
    for (size_t i = 0; i < job.buffers.size(); ++i) dev[i].resize(job.buffers[i]->size());
    const auto upload = [&](size_t i, const std::vector<uint32_t>& v) {
      BS_CUDA_CHECK(cudaMemcpyAsync(dev[i].data(), v.data(), dev[i].bytes(), cudaMemcpyHostToDevice, stream.get()));
    };
    for (size_t i = 0; i < job.buffers.size(); ++i) upload(i, *job.buffers[i]);
    std::vector<void*> pointers(job.args.size(), nullptr);
    std::vector<uint64_t> scalars(job.args.size(), 0);
    std::vector<void*> args(job.args.size(), nullptr);
    for (size_t i = 0; i < job.args.size(); ++i) {
      if (job.args[i].buffer >= 0) {
        pointers[i] = dev[static_cast<size_t>(job.args[i].buffer)].data();
        args[i] = &pointers[i];
      } else {
        scalars[i] = job.args[i].bits;  // little-endian: a 4-byte scalar is the slot's first 4 bytes
        args[i] = &scalars[i];
      }
    }
    const Dim2 grid{job.grid[0], job.grid[1]}, block{job.block[0], job.block[1]};
    const auto launch = [&] { k.launch(grid, block, args.data(), stream.get(), job.dynamic_shared); };
    launch();
    kernel::wait_with_deadline(stream.get(), job.timeout_s, job.shown_name);
    for (size_t i = 0; i < job.buffers.size(); ++i)
      BS_CUDA_CHECK(cudaMemcpyAsync(job.buffers[i]->data(), dev[i].data(), dev[i].bytes(), cudaMemcpyDeviceToHost,
                                    stream.get()));
    kernel::wait_with_deadline(stream.get(), job.timeout_s, job.shown_name);
    if (job.repetitions > 0) {
      // Timed after the checked run: the outputs were copied back already, and the first launch's cold start
      // (module load, caches) is not part of the figure. Every run starts from the test's inputs again (a
      // kernel with counters or in-out buffers, such as a chained scan's tickets, depends on them); the
      // uploads sit outside the events.
      const auto reset = [&] {
        for (size_t i = 0; i < inputs.size(); ++i) upload(i, inputs[i]);
      };
      for (int i = 0; i < job.warmup; ++i) {
        reset();
        launch();
      }
      kernel::wait_with_deadline(stream.get(), job.timeout_s, job.shown_name);
      Event start, stop;
      for (int i = 0; i < job.repetitions; ++i) {
        reset();
        BS_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
        launch();
        BS_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
        kernel::wait_with_deadline(stream.get(), job.timeout_s, job.shown_name);
        float ms = 0;
        BS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        out.ms.push_back(ms);
      }
    }
  } catch (const GpuError& e) {
    if (e.sticky()) {
      k.abandon();
      stream.abandon();
      for (auto& b : dev) b.abandon();
    }
    throw;
  }
  return out;
}

}  // namespace

GpuRun run_on_gpu(const GpuJob& job) {
  try {
    return run_checked(job);
  } catch (const std::exception& e) {
    GpuRun r;
    r.error = e.what();
    return r;
  }
}

}  // namespace bs::exercise
