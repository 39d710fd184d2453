// cli.cpp: see cli.h.
#include "app/cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/app.h"
#include "app/bench.h"
#include "app/info.h"
#include "app/labs.h"
#include "app/record.h"
#include "app/session.h"
#include "gpu/common/gpu_error.h"

namespace bs {

namespace {

int fail(const std::string& msg, int code = 2) {
  std::fprintf(stderr, "blockscope: %s\n", msg.c_str());
  return code;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App cli{"blockscope: see how CUDA kernels run, live, and time them honestly against the CPU"};
  cli.set_version_flag("--version", std::string("blockscope ") + record::k_blockscope_version);
  AppOptions opt;
  std::string render_path = "auto", size = "1024", block = "64x4", grid, scene = "heat";
  cli.add_flag("--headless", opt.headless, "Render offscreen through EGL (no window, no X server)");
  cli.add_option("--scene", scene, "Lab to open first: heat, matmul, montecarlo, vector (those built in)");
  cli.add_option("--frames", opt.frames, "Exit after this many frames")->check(CLI::PositiveNumber);
  cli.add_option("--screenshot", opt.screenshot, "Write a PNG of the last frame (with --frames)");
  cli.add_option("--render-path", render_path, "auto | interop | host | cpu");
  cli.add_option("--size", size, "Heat grid: N or NXxNY (64..8192)");
  cli.add_option("--block", block, "Heat kernel block: XxY");
  cli.add_option("--cells-per-thread", opt.heat.cells_per_thread, "Heat cells per thread down y: 1, 2, 4, 8")
      ->check(CLI::IsMember({1, 2, 4, 8}));
  cli.add_option("--grid", grid, "Heat kernel grid by hand: XxY (default: ceil-div covering grid)");
  cli.add_option("--steps-per-frame", opt.heat.steps_per_frame, "Heat steps per frame")
      ->check(CLI::Range(1, 10000));
  cli.add_option("--overlay", opt.heat.overlay, "Heat anatomy overlay: off|blockidx|threadidx|warp|sm|time")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, anatomy::OverlayMode>{{"off", anatomy::OverlayMode::Off},
                                                      {"blockidx", anatomy::OverlayMode::BlockIdx},
                                                      {"threadidx", anatomy::OverlayMode::ThreadIdx},
                                                      {"warp", anatomy::OverlayMode::Warp},
                                                      {"sm", anatomy::OverlayMode::Sm},
                                                      {"time", anatomy::OverlayMode::BlockTime}}));
  cli.add_option("--debug-fault-frame", opt.debug_fault_frame, "Testing: make an illegal address in frame N")
      ->group("");  // hidden: for the recovery tests
  std::string session_file, preset;
  cli.add_option("--session", session_file, "Start from a saved session (JSON: labs, parameters, UI scale)");
  cli.add_option("--preset", preset, "Start from a shipped preset (Session > Presets lists them)");
  cli.add_option("--ui-scale", opt.ui_scale,
                 "UI scale, 0.75..3 (fonts re-rasterized; times the monitor's scale)")
      ->check(CLI::Range(0.75, 3.0));
  cli.add_flag("--presenter", opt.presenter, "Presenter mode: larger UI and big read-outs (key P)");
  cli.add_flag("--show-shortcuts", opt.show_shortcuts, "Testing: open the F1 shortcut list")->group("");
  cli.add_option("--debug-capture", opt.debug_capture, "Testing: F12 (window) or Shift+F12 (view) capture")
      ->check(CLI::IsMember({"window", "view"}))
      ->group("");
  cli.add_option("--width", opt.width, "Window or image width")->check(CLI::Range(64, 16384));
  cli.add_option("--height", opt.height, "Window or image height")->check(CLI::Range(64, 16384));

  InfoOptions info_opt;
  CLI::App* info =
      cli.add_subcommand("info", "Print the CUDA device, the GL renderer and the render path chosen");
  info->add_option("--render-path", info_opt.render_path, "auto | interop | host | cpu");

  cli::BenchContext bench_ctx;
  CLI::App* bench = cli.add_subcommand("bench", "Benchmarks: one result row per variant");
  bench->require_subcommand(0, 1);
  bench->allow_extras();
  cli::register_all_benches(*bench, bench_ctx);
  cli::register_anatomy_commands(cli, bench_ctx);
  cli::register_sweep_commands(cli, bench_ctx);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (*info) return run_info(info_opt);
  if (*bench && bench->get_subcommands().empty()) {
    std::string known;
    for (const CLI::App* sub : bench->get_subcommands([](const CLI::App*) { return true; }))
      known += (known.empty() ? "" : ", ") + sub->get_name();
    const auto extra = bench->remaining();
    return fail(extra.empty() ? "bench: name a benchmark (" + known + ")"
                              : "bench: unknown benchmark '" + extra.front() + "' (known: " + known + ")");
  }
  if (*bench) return bench_ctx.exit_code;
  for (const char* name : {"occupancy", "anatomy", "sweep", "replay"})
    if (cli.got_subcommand(name)) return bench_ctx.exit_code;

  const auto request = parse_path_request(render_path);
  if (!request) return fail("--render-path: '" + render_path + "' is not one of auto, interop, host, cpu");
  opt.render_path = *request;
  if (!is_lab(scene)) {
    std::string known;
    for (const LabEntry& e : lab_entries())
      known += (known.empty() ? "" : ", ") + std::string(e.id);
    return fail("--scene: unknown scene '" + scene + "' (known: " + known + ")");
  }
  opt.scene = scene;
  const ParsedDim2 sz = parse_size2(size, "--size");
  if (!sz.value) return fail(sz.error);
  if (sz.value->x < heat::k_ui_min_size || sz.value->y < heat::k_ui_min_size ||
      sz.value->x > heat::k_max_size || sz.value->y > heat::k_max_size)
    return fail("--size: " + to_string(*sz.value) + " is outside 64x64 .. 8192x8192");
  opt.heat.nx = sz.value->x;
  opt.heat.ny = sz.value->y;
  const ParsedDim2 b = parse_dim2(block, "--block");
  if (!b.value) return fail(b.error);
  if (auto err = validate_block(*b.value, DeviceLimits{})) return fail("--block: " + *err);
  opt.heat.block = *b.value;
  if (!grid.empty()) {
    const ParsedDim2 g = parse_dim2(grid, "--grid");
    if (!g.value) return fail(g.error);
    if (auto err = validate_grid(*g.value, DeviceLimits{})) return fail("--grid: " + *err);
    opt.heat.grid = *g.value;
  }
  if (!opt.screenshot.empty() && opt.frames <= 0) opt.frames = 30;
  // A session is read and checked in full before any window opens.
  if (!session_file.empty() && !preset.empty()) return fail("--session and --preset: give one of them");
  if (!session_file.empty() || !preset.empty()) {
    SessionResult r = session_file.empty() ? load_preset(preset) : load_session_file(session_file);
    if (!r.session) return fail((session_file.empty() ? "--preset: " : "--session: ") + r.error);
    opt.session = std::move(r.session);
    opt.scene = opt.session->active_lab;
  }

  try {
    int code = 0;
    {
      App app(opt);
      while (app.frame()) {
      }
      code = app.exit_code();
    }
    if (std::getenv("BLOCKSCOPE_TRACE")) std::fprintf(stderr, "blockscope: trace: app destroyed, exiting\n");
    return code;
  } catch (const InvalidRequest& e) {
    return fail(e.what());
  } catch (const std::runtime_error& e) {
    return fail(e.what(), 1);
  }
}

}  // namespace bs
