// bench.cpp: the shared table printer and the registry of `blockscope bench` subcommands.
#include "app/bench.h"

#include <algorithm>
#include <cstdio>

#include "gpu/common/gpu_error.h"

namespace bs::cli {

void register_all_benches(CLI::App& bench, BenchContext& ctx) {
  register_heat_bench(bench, ctx);
  register_interop_bench(bench, ctx);
  register_montecarlo_bench(bench, ctx);
  register_vector_bench(bench, ctx);
  register_matmul_bench(bench, ctx);
}

void run_guarded(BenchContext& ctx, const std::function<int()>& body) {
  try {
    ctx.exit_code = body();
  } catch (const InvalidRequest& e) {
    std::fprintf(stderr, "blockscope: %s\n", e.what());
    ctx.exit_code = 2;
  } catch (const GpuError& e) {
    std::fprintf(stderr, "blockscope: GPU error: %s\n", e.what());
    ctx.exit_code = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blockscope: %s\n", e.what());
    ctx.exit_code = 1;
  }
}

void Table::print(std::ostream& out) const {
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c)
    width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < r.size() ? r[c] : std::string();
      out << cell << std::string(width[c] - cell.size() + (c + 1 < width.size() ? 2 : 0), ' ');
    }
    out << '\n';
  };
  line(header);
  for (const auto& r : rows)
    line(r);
  out.flush();
}

void add_device_option(CLI::App& sub, BenchDevice& device) {
  sub.add_option("--device", device, "gpu | cpu | all")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, BenchDevice>{
              {"all", BenchDevice::All}, {"gpu", BenchDevice::Gpu}, {"cpu", BenchDevice::Cpu}},
          CLI::ignore_case));
}

}  // namespace bs::cli
