// cli.cpp: see cli.h.
#include "app/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <new>
#include <system_error>

#include "app/app.h"
#include "app/bench.h"
#include "app/info.h"
#include "app/exercise/exercise_cli.h"
#include "app/kernel/kernel_cli.h"
#include "app/lab_start_flags.h"
#include "app/labs.h"
#include "app/roofline/roofline_cli.h"
#include "app/param_flags.h"
#include "app/sweep/record.h"
#include "app/session.h"
#include "core/error.h"
#include "core/text.h"

namespace bs {

namespace {
volatile std::sig_atomic_t g_quit_signal = 0;
extern "C" void on_quit_signal(int sig) {
  if (g_quit_signal) {  // asked twice: the user means it
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  g_quit_signal = sig;
}
// While alive, SIGINT and SIGTERM ask the interactive app to close instead of killing it.
class QuitOnSignal {
 public:
  QuitOnSignal() {
    g_quit_signal = 0;
    m_int = std::signal(SIGINT, on_quit_signal);
    m_term = std::signal(SIGTERM, on_quit_signal);
  }
  ~QuitOnSignal() {
    std::signal(SIGINT, m_int);
    std::signal(SIGTERM, m_term);
  }
  QuitOnSignal(const QuitOnSignal&) = delete;
  QuitOnSignal& operator=(const QuitOnSignal&) = delete;
  bool requested() const { return g_quit_signal != 0; }

 private:
  void (*m_int)(int);
  void (*m_term)(int);
};
}  // namespace

namespace {

int fail(const std::string& msg, int code = 2) {
  return cli::print_error(msg, code);
}

// The value as the user typed it, for messages: control characters escaped, long values cut.
std::string echo_value(const std::string& v) {
  return "'" + printable(v) + "'";
}

// Strict numbers: what CLI11 would otherwise accept with a surprise. It reads "010" as octal 8 and "0x10" as
// 16, wraps "-1" into an unsigned 18446744073709551615, saturates 64-bit overflow silently, and takes "nan",
// "inf" and "1e400" (= inf) as doubles. These checks run on the text before CLI11 converts it.
std::string check_integer(const std::string& v, bool is_unsigned) {
  if (v.empty()) return "an empty value is not a number";
  const bool negative = v[0] == '-';
  const std::string digits = negative ? v.substr(1) : v;
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return echo_value(v) + " is not a whole number (decimal digits" +
           (is_unsigned ? "" : ", optionally after -") + ")";
  if (digits.size() > 1 && digits[0] == '0')
    return echo_value(v) + ": write the number without leading zeros";
  if (is_unsigned) {
    if (negative) return echo_value(v) + " is negative; give 0 .. 18446744073709551615";
    uint64_t u = 0;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), u);
    if (ec != std::errc() || ptr != v.data() + v.size())
      return echo_value(v) + " is out of range 0 .. 18446744073709551615";
    return {};
  }
  int64_t i = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (ec != std::errc() || ptr != v.data() + v.size())
    return echo_value(v) + " is out of range -9223372036854775808 .. 9223372036854775807";
  return {};
}

std::string check_real(const std::string& v) {
  if (v.empty()) return "an empty value is not a number";
  double d = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec == std::errc::result_out_of_range) return echo_value(v) + " is out of the range of a double";
  if (ec != std::errc() || ptr != v.data() + v.size()) return echo_value(v) + " is not a number";
  if (!std::isfinite(d)) return echo_value(v) + " is not a finite number";
  return {};
}

// Adds the strict checks to every option (flags excepted) of `app` and its subcommands: numbers as above,
// and no empty value for any option ("--grid ''" is a mistake, not a request for the default). `skip` names
// subcommands registered elsewhere that keep their own rules.
void make_strict(CLI::App& app, const std::vector<std::string>& skip) {
  for (CLI::Option* opt : app.get_options([](CLI::Option* o) { return o->get_type_size_max() > 0; })) {
    // CLI11 leaves the name out of the messages of hidden options (group ""): those name themselves.
    const std::string prefix =
        opt->get_group().empty() && !opt->get_lnames().empty() ? "--" + opt->get_lnames().front() + ": " : "";
    const std::string type = opt->get_type_name();
    const auto starts = [&type](const char* t) {
      const std::string head(t);
      return type.compare(0, head.size(), head) == 0 &&
             (type.size() == head.size() || type[head.size()] == ':');
    };
    std::function<std::string(const std::string&)> check;
    if (starts("UINT"))
      check = [](const std::string& v) { return check_integer(v, true); };
    else if (starts("INT"))
      check = [](const std::string& v) { return check_integer(v, false); };
    else if (starts("FLOAT"))
      check = check_real;
    else
      check = [](const std::string& v) {
        return v.empty() ? std::string("an empty value is not allowed") : std::string();
      };
    opt->check(CLI::Validator(
        [check, prefix](std::string& v) {
          const std::string err = check(v);
          return err.empty() ? err : prefix + err;
        },
        "", "strict"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (std::find(skip.begin(), skip.end(), sub->get_name()) == skip.end()) make_strict(*sub, skip);
}

// Every option that takes one value takes it once, here and in every subcommand (sweep and replay too): a
// second "--size" is a mistake to report, not a value that silently wins. Flags and lists (--param, -D) are
// left as they are.
void refuse_repeats(CLI::App& app) {
  for (CLI::Option* opt : app.get_options([](CLI::Option* o) {
         return o->get_type_size_max() > 0 && o->get_expected_max() == 1 && o->get_items_expected_max() == 1;
       }))
    opt->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    refuse_repeats(*sub);
}

// CLI11's message for a repeated option ("--size: At Most 1 required but received 2") in the user's words.
std::string repeated_message(const std::string& what) {
  const std::string mark = ": At Most 1 required but received ";
  const size_t at = what.find(mark);
  if (at == std::string::npos) return what;
  return what.substr(0, at) + ": given more than once (" + what.substr(at + mark.size()) +
         " times); give it once";
}

// The command path of what was parsed: "bench heat", "anatomy matmul", "" for the app itself.
std::string parsed_path(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    const std::string rest = parsed_path(*sub);
    return sub->get_name() + (rest.empty() ? "" : " " + rest);
  }
  return {};
}

std::string subcommand_names(const CLI::App& app) {
  std::string known;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    known += (known.empty() ? "" : ", ") + sub->get_name();
  return known;
}

// Arguments nobody took (an unknown option or command): a message naming the first of them and where it
// was given, from the innermost command that has some. Empty when there are none.
std::string extras_message(const CLI::App& app, const std::string& path) {
  for (const CLI::App* sub : app.get_subcommands()) {
    const std::string m = extras_message(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name());
    if (!m.empty()) return m;
  }
  std::vector<std::string> extra = app.remaining();
  if (extra.size() > 1 && extra.front() == "--") extra.erase(extra.begin());  // "--" only ends the options
  if (extra.empty()) return {};
  const std::string& first = extra.front();
  const std::string where = path.empty() ? "" : path + ": ";
  const std::string help = "blockscope " + (path.empty() ? "" : path + " ") + "--help";
  if (!first.empty() && first[0] == '-') {
    const std::string name = first.substr(0, first.find('='));
    return where + "unknown option " + echo_value(name) + " (" + help + " lists the options)";
  }
  if (path == "bench")
    return "bench: unknown benchmark " + echo_value(first) + " (known: " + subcommand_names(app) + ")";
  if (!app.get_subcommands([](const CLI::App*) { return true; }).empty())
    return where + "unknown command " + echo_value(first) + " (known: " + subcommand_names(app) + ")";
  return where + "unexpected argument " + echo_value(first) + " (" + help + " lists the options)";
}

// --screenshot writes PNG bytes, so only a .png name is honest; the folder must exist before frames run.
std::optional<std::string> check_screenshot_path(const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext != ".png")
    return "--screenshot: " + echo_value(file) +
           (ext.empty() ? " has no extension" : " ends in " + echo_value(ext)) +
           "; blockscope writes PNG images only: name the file *.png";
  std::error_code ec;
  const fs::path dir = p.parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    return "--screenshot: the folder " + echo_value(dir.string()) + " does not exist";
  if (fs::is_directory(p, ec)) return "--screenshot: " + echo_value(file) + " is a folder";
  return std::nullopt;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App cli{"blockscope: see how CUDA kernels run, live, and time them honestly against the CPU"};
  cli.set_version_flag("--version", version_text(),
                       "Print the version and the CUDA runtime it was built with");
  AppOptions opt;
  std::string render_path = "auto", scene = lab_entries().front().id;
  cli.add_flag("--headless", opt.headless, "Render offscreen through EGL (no window, no X server)");
  cli.add_option("--scene", scene, "Lab to open first: " + lab_ids_text());
  cli.add_option("--frames", opt.frames, "Exit after this many frames")->check(cli::in_range(1, 1000000000, "frames"));
  cli.add_option("--screenshot", opt.screenshot, "Write a PNG of the last frame (with --frames)");
  cli.add_option("--render-path", render_path, k_path_request_names.list());
  // The labs' own flags (--size, --block, ...: each schema's start_flag parameters) and --overlay.
  const cli::LabStartFlags lab_flags(cli);
  cli.add_option("--debug-fault-frame", opt.debug_fault_frame, "Testing: make an illegal address in frame N")
      ->group("");  // hidden: for the recovery tests
  std::string session_file, preset;
  cli.add_option("--session", session_file, "Start from a saved session (JSON: labs, parameters, UI scale)");
  cli.add_option("--preset", preset, "Start from a shipped preset (Session > Presets lists them)");
  cli.add_option("--ui-scale", opt.ui_scale,
                 "UI scale, 0.75..3 (fonts re-rasterized; times the monitor's scale)")
      ->check(cli::in_range(0.75, 3.0, "(times the monitor's scale)"));
  cli.add_flag("--presenter", opt.presenter, "Presenter mode: larger UI and big read-outs (key P)");
  cli.add_flag("--show-shortcuts", opt.show_shortcuts, "Testing: open the F1 shortcut list")->group("");
  cli.add_flag("--show-counters", opt.show_counters, "Testing: open the hardware-counters window")->group("");
  cli.add_flag("--show-roofline", opt.show_roofline, "Testing: open the Roofline window")->group("");
  cli.add_flag("--show-exercises", opt.show_exercises, "Testing: open the Exercises window")->group("");
  cli.add_option("--debug-capture", opt.debug_capture, "Testing: F12 (window) or Shift+F12 (view) capture")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v == "window" || v == "view"
                       ? std::string()
                       : "--debug-capture: " + echo_value(v) + " is not window or view";
          },
          "", "capture"))
      ->group("");
  cli.add_option("--width", opt.width, "Window or image width")->check(cli::in_range(64, 16384, "pixels"));
  cli.add_option("--height", opt.height, "Window or image height")->check(cli::in_range(64, 16384, "pixels"));

  InfoOptions info_opt;
  CLI::App* info =
      cli.add_subcommand("info", "Print the CUDA device, the GL renderer and the render path chosen");
  info->add_option("--render-path", info_opt.render_path, k_path_request_names.list());

  cli::BenchContext bench_ctx;
  CLI::App* bench = cli.add_subcommand("bench", "Benchmarks: one result row per variant");
  bench->require_subcommand(0, 1);
  cli::register_all_benches(*bench, bench_ctx);
  cli::register_anatomy_commands(cli, bench_ctx);
  cli::register_sweep_commands(cli, bench_ctx);
  cli::register_kernel_commands(cli, bench_ctx);
  cli::register_exercise_commands(cli, bench_ctx);
  cli::register_roofline_command(cli, bench_ctx);
  // One command per run: a word after a command is never taken as a second top-level command ("bench kernel"
  // is an unknown benchmark, not "bench" followed by "kernel").
  cli.require_subcommand(0, 1);
  // Every option here and of the benches, occupancy and anatomy: strict numbers, no empty values. Unknown
  // options and commands are errors everywhere (no allow_extras), reported before any command runs: CLI11
  // checks for left-over arguments before it calls the subcommands' callbacks.
  make_strict(cli, {"sweep", "replay"});
  refuse_repeats(cli);
  // Runs once parsing succeeded and before the commands' callbacks: names the command for messages.
  cli.parse_complete_callback([&] { bench_ctx.command = parsed_path(cli); });

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return cli.exit(e);  // --help, --version: printed on stdout, exit 0
    const std::string extras = extras_message(cli, "");
    std::string what = repeated_message(e.what());
    if (what.rfind(": ", 0) == 0) what.erase(0, 2);  // a hidden option's error: CLI11 leaves its name empty
    return fail(extras.empty() ? what : extras);
  } catch (const std::bad_alloc&) {
    return fail(cli::out_of_memory_message(bench_ctx.command), 1);
  }
  if (*info) return run_info(info_opt);
  if (*bench && bench->get_subcommands().empty())
    return fail("bench: name a benchmark (" + subcommand_names(*bench) + ")");
  if (*bench) {
    if (bench_ctx.counters && !bench_ctx.counters_shown && bench_ctx.exit_code == 0)
      std::printf("note: --counters: no counter columns: this bench ran no GPU kernel row that collects them (they come with the GPU rows of bench matmul, heat and vector)\n");
    return bench_ctx.exit_code;
  }
  for (const char* name : {"occupancy", "anatomy", "sweep", "replay", "kernel", "roofline", "exercise"})
    if (cli.got_subcommand(name)) return bench_ctx.exit_code;

  const auto request = parse_path_request(render_path);
  if (!request)
    return fail("--render-path: " + echo_value(render_path) + " is not one of " +
                k_path_request_names.list(", "));
  opt.render_path = *request;
  if (!is_lab(scene))
    return fail("--scene: unknown scene " + echo_value(scene) + " (known: " + lab_ids_text() + ")");
  opt.scene = scene;
  if (auto err = lab_flags.read(opt.start_states)) return fail(*err);
  if (!opt.screenshot.empty()) {
    if (auto err = check_screenshot_path(opt.screenshot)) return fail(*err);
    if (opt.frames <= 0) opt.frames = 30;
  }
  // A session is read and checked in full before any window opens.
  if (!session_file.empty() && !preset.empty()) return fail("--session and --preset: give one of them");
  if (!session_file.empty() || !preset.empty()) {
    SessionResult r = session_file.empty() ? load_preset(preset) : load_session_file(session_file);
    if (!r.session) return fail((session_file.empty() ? "--preset: " : "--session: ") + r.error);
    if (!r.note.empty()) std::fprintf(stderr, "note: %s\n", r.note.c_str());
    opt.session = std::move(r.session);
    opt.scene = opt.session->active_lab;
  }

  try {
    int code = 0;
    {
      App app(opt);
      // Ctrl+C in the terminal (or SIGTERM) closes the app as its window's close button would: the frame loop
      // ends and the app shuts down in order, saving the layout. A second signal ends it at once.
      const QuitOnSignal quit;
      while (!quit.requested() && app.frame()) {
      }
      code = app.exit_code();
    }
    if (std::getenv("BLOCKSCOPE_TRACE")) std::fprintf(stderr, "blockscope: trace: app destroyed, exiting\n");
    return code;
  } catch (const InvalidRequest& e) {
    return fail(e.what());
  } catch (const std::bad_alloc&) {
    return fail(cli::out_of_memory_message("the app"), 1);
  } catch (const std::runtime_error& e) {
    return fail(e.what(), 1);
  }
}

}  // namespace bs
