// exercise_cli.cpp: see exercise_cli.h.
#include "app/exercise/exercise_cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/exercise/exercise_grade.h"
#include "app/exercise/exercise_progress.h"
#include "app/exercise/exercise_trace.h"
#include "core/error.h"
#include "core/text.h"
#include "gpu/exercise/export.h"
#include "gpu/exercise/runner.h"
#include "gpu/kernel/source_file.h"
#include "ui/kernel/access_map_export.h"

namespace bs::cli {

namespace {

using exercise::Exercise;

struct Args {
  std::string pack, name, file, block, out, maps;
  int hints = 0, test = 0;
  bool starter = false, solution = false, visible_only = false, json = false, no_record = false, sim = false, gpu = false;
};

// The pack, its refusals printed on stderr (one line each).
exercise::Pack load(const std::string& dir) {
  exercise::Pack p = exercise::load_pack(dir.empty() ? default_exercise_pack() : dir);
  for (const std::string& e : p.errors) std::fprintf(stderr, "blockscope: refused: %s\n", e.c_str());
  return p;
}

const Exercise* find(const exercise::Pack& p, const std::string& name) {
  if (const Exercise* e = p.find(name)) return e;
  std::string ids;
  for (const Exercise& e : p.exercises) ids += (ids.empty() ? "" : ", ") + e.id;
  print_error("no exercise named " + name + " in " + p.dir + " (there: " + (ids.empty() ? "none" : ids) + ")", 2);
  return nullptr;
}

// The saved progress; a file that cannot be read is one warning, and empty progress.
Progress saved_progress(bool* readable = nullptr) {
  Progress pr;
  std::string err;
  const bool ok = load_progress(progress_path(), &pr, &err);
  if (!ok) std::fprintf(stderr, "blockscope: progress: %s\n", err.c_str());
  if (readable) *readable = ok;
  return pr;
}

int run_list(const Args& a) {
  const exercise::Pack p = load(a.pack);
  if (p.exercises.empty()) return 2;
  const Progress pr = saved_progress();
  Table t{{"exercise", "title", "tests", "status", "topic"}, {}};
  for (const Exercise& e : p.exercises) {
    int hidden = 0;
    for (const exercise::TestCase& x : e.tests) hidden += x.hidden;
    t.rows.push_back({e.id, e.title, std::to_string(e.tests.size() - static_cast<size_t>(hidden)) + " + " +
                                         std::to_string(hidden) + " hidden",
                      status_text(pr.find(e.id)), e.topic});
  }
  t.print(std::cout);
  std::printf("%zu exercises in %s%s\n", p.exercises.size(), p.dir.c_str(),
              p.errors.empty() ? "" : (", " + std::to_string(p.errors.size()) + " refused").c_str());
  return p.errors.empty() ? 0 : 2;
}

std::string launch_text(const Exercise& e) {
  std::string s = "block (" + std::to_string(e.block[0]) + ", " + std::to_string(e.block[1]) + ", " +
                  std::to_string(e.block[2]) + ")" + (e.student_block ? " (yours to choose: --block)" : "") +
                  ", grid (" + e.grid[0] + ", " + e.grid[1] + ", " + e.grid[2] + ")";
  if (e.dynamic_shared != "0") s += ", dynamic shared memory " + e.dynamic_shared + " bytes";
  return s;
}

int run_show(const Args& a) {
  const exercise::Pack p = load(a.pack);
  const Exercise* e = find(p, a.name);
  if (!e) return 2;
  if (a.starter || a.solution) {
    std::fwrite((a.starter ? e->starter : e->reference).data(), 1, (a.starter ? e->starter : e->reference).size(), stdout);
    return 0;
  }
  std::printf("%s\n\n", e->statement.c_str());
  std::printf("kernel:  %s\nlaunch:  %s\n", e->signature().c_str(), launch_text(*e).c_str());
  std::string visible;
  int hidden = 0;
  for (const exercise::TestCase& t : e->tests) {
    if (t.hidden) ++hidden;
    else visible += (visible.empty() ? "" : "; ") + t.name;
  }
  std::printf("tests:   %s, and %d hidden\n", visible.c_str(), hidden);
  std::string par;
  for (const auto& [what, expr] : {std::pair<const char*, const std::string&>{"global reads/thread", e->par.global_reads},
                                   {"global writes/thread", e->par.global_writes},
                                   {"shared bytes/block", e->par.shared_bytes}})
    if (!expr.empty()) par += (par.empty() ? "" : ", ") + std::string(what) + " " + expr;
  std::printf("par:     %s\n", par.empty() ? "none" : par.c_str());
  const int shown = std::min<int>(a.hints, static_cast<int>(e->hints.size()));
  for (int i = 0; i < shown; ++i) std::printf("hint %d: %s\n", i + 1, e->hints[static_cast<size_t>(i)].c_str());
  if (shown < static_cast<int>(e->hints.size()))
    std::printf("%zu hint%s %s (--hints %d shows the next; --starter prints the starter, --solution the reference)\n",
                e->hints.size() - static_cast<size_t>(shown), e->hints.size() - static_cast<size_t>(shown) == 1 ? "" : "s",
                shown ? "more" : "available", shown + 1);
  return 0;
}

std::string test_label(const exercise::TestCase& t) {
  return t.name + (t.hidden ? " (hidden)" : "");
}

nlohmann::json result_json(const Exercise& e, const exercise::CheckResult& r) {
  nlohmann::json j = {{"exercise", e.id}, {"compiled", r.compiled.ok}, {"compile", r.compiled.message},
                      {"error", r.error}, {"passed", r.passed()}, {"tests_total", e.tests.size()}};
  int passed = 0;
  nlohmann::json tests = nlohmann::json::array();
  for (const exercise::TestResult& t : r.tests) {
    passed += t.passed;
    tests.push_back({{"name", t.test.name}, {"hidden", t.test.hidden}, {"passed", t.passed}, {"stopped", t.stopped},
                     {"check", t.check}, {"diagnostics", t.diagnostics}, {"seconds", t.seconds}, {"on_gpu", t.on_gpu},
                     {"gpu_ms_median", exercise::median_ms(t.gpu_ms)}});
  }
  j["tests"] = tests;
  j["tests_passed"] = passed;
  j["first_failure"] = r.first_failure >= 0 ? test_label(r.tests[static_cast<size_t>(r.first_failure)].test) : "";
  j["score"] = r.tests.empty() || r.tests.front().score.empty() ? "" : exercise::score_line(r.tests.front().score);
  j["engine"] = r.engine;
  if (r.timing) j["timing"] = exercise::timing_text(*r.timing);
  return j;
}

// The simulator's access maps of one test (the first failing one, else the first): the whole launch, the
// thread that wrote the first wrong element, the thread the first located diagnostic names.
int write_maps(const Args& a, const Exercise& e, const exercise::CheckResult& r, const exercise::RunOptions& o) {
  const ExerciseTrace t = trace_of_check(e, r, o);
  if (!t.trace) return print_error("--maps: " + t.error, 2);
  std::vector<std::string> files;
  std::string err;
  if (!ui::write_access_maps(a.maps, *t.trace, t.selections, &files, &err)) return print_error("--maps: " + err, 2);
  std::printf("access maps of test %s: %zu files in %s (%s; SVG per selection, PNG per buffer)\n", t.test.c_str(),
              files.size(), a.maps.c_str(), t.sampled.c_str());
  return 0;
}

int run_check(const Args& a) {
  const exercise::Pack p = load(a.pack);
  const Exercise* e = find(p, a.name);
  if (!e) return 2;
  std::string source, err;
  if (!kernel::read_kernel_source(a.file, &source, &err)) return print_error(err, 2);
  if (a.sim && a.gpu) return print_error("--sim and --gpu: give one of them", 2);
  exercise::RunOptions o;
  o.engine = a.sim ? exercise::Engine::Simulator : a.gpu ? exercise::Engine::Gpu : exercise::Engine::Auto;
  o.hidden = !a.visible_only;
  o.only_test = a.test - 1;
  kernel::KernelCache cache(kernel::default_cache_dir());
  o.cache = &cache;
  o.stop_at_first_failure = !a.json;
  if (!a.block.empty()) {
    unsigned x = 1, y = 1, z = 1;
    char tail = 0;
    const int n = std::sscanf(a.block.c_str(), "%ux%ux%u%c", &x, &y, &z, &tail);
    if (n < 1 || n > 3 || a.block.find_first_not_of("0123456789x") != std::string::npos)
      return print_error("--block " + a.block + ": give X, XxY or XxYxZ, e.g. 16x16", 2);
    o.block = std::array<uint32_t, 3>{x, y, z};
  }
  const exercise::CheckResult r = exercise::check_source(*e, source, a.file, o);
  if (a.json) {
    // The file's path is in it, and a folder's name need not be UTF-8: such bytes become U+FFFD, not a throw.
    std::printf("%s\n", result_json(*e, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return r.passed() ? 0 : (!r.compiled.ok || !r.error.empty() ? 2 : 1);
  }
  if (!a.no_record && r.error.empty() && a.test == 0 && !a.visible_only) {  // whole runs only
    const std::string warning = save_check(*e, r, source);
    if (!warning.empty()) std::fprintf(stderr, "blockscope: %s\n", warning.c_str());
  }
  if (!r.compiled.ok) {
    for (const std::string& line : r.compiled.errors) std::fprintf(stderr, "%s\n", line.c_str());
    return print_error(r.compiled.message, 2);
  }
  std::printf("%s\n", r.compiled.message.c_str());
  if (!r.error.empty()) return print_error(r.error, 2);
  std::printf("exercise %s: %s\nran on: %s\n", e->id.c_str(), e->title.c_str(), r.engine.c_str());
  for (const exercise::TestResult& t : r.tests) {
    std::printf("  %s  %-28s %6.2f s  %s\n", t.passed ? "pass" : "FAIL", test_label(t.test).c_str(), t.seconds,
                t.stopped.empty() ? t.check.c_str() : ("stopped: " + t.stopped).c_str());
    for (const std::string& d : t.diagnostics) std::printf("        %s\n", d.c_str());
  }
  if (!r.tests.empty() && !r.tests.front().score.empty())
    std::printf("score: %s\n", exercise::score_line(r.tests.front().score).c_str());
  if (r.timing) std::printf("GPU time: %s\n", exercise::timing_text(*r.timing).c_str());
  if (!a.maps.empty() && !r.tests.empty())
    if (const int code = write_maps(a, *e, r, o)) return code;
  if (r.passed()) {
    std::printf("result: pass (%zu of %zu tests)\n", r.tests.size(), e->tests.size());
    return 0;
  }
  const exercise::TestResult& f = r.tests[static_cast<size_t>(r.first_failure)];
  std::printf("result: FAIL at test %s%s\n", test_label(f.test).c_str(),
              e->hints.empty() ? "" : (" (stuck? `blockscope exercise show " + e->id + " --hints 1`)").c_str());
  return 1;
}

int run_export(const Args& a) {
  const exercise::Pack p = load(a.pack);
  const Exercise* e = find(p, a.name);
  if (!e) return 2;
  std::string source, err;
  if (!kernel::read_kernel_source(a.file, &source, &err)) return print_error(err, 2);
  const exercise::Export x = exercise::export_exercise(*e, source);
  if (!x.error.empty()) return print_error(x.error, 2);
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return print_error("--out " + a.out + ": cannot create the folder (" + ec.message() + ")", 2);
  const std::filesystem::path dir(a.out);
  for (const auto& [name, text] : {std::pair<std::string, const std::string&>{e->id + ".cu", x.program},
                                   {"CMakeLists.txt", x.cmake},
                                   {e->id + "_cupy.py", x.cupy}})
    if (!write_text_file((dir / name).string(), text, &err)) return print_error("--out: " + err, 2);
  std::printf("%s: %s.cu (a standalone CUDA program: every test on the GPU, checked against the reference and "
              "timed), CMakeLists.txt, %s_cupy.py (CuPy RawModule)\n",
              a.out.c_str(), e->id.c_str(), e->id.c_str());
  return 0;
}

int run_report(const Args& a) {
  const std::string ext = std::filesystem::path(a.out).extension().string();
  if (ext != ".json" && ext != ".csv") return print_error("--out " + a.out + ": give a .json or a .csv file", 2);
  const exercise::Pack p = load(a.pack);
  if (p.exercises.empty()) return 2;
  bool readable = false;
  const Progress pr = saved_progress(&readable);
  if (!readable) return 2;
  const char* user = std::getenv("USER");
  const std::string who = user && *user ? user : "unknown";
  std::string err;
  if (!write_text_file(a.out, ext == ".json" ? report_json(pr, p, who) : report_csv(pr, p, who), &err))
    return print_error("--out: " + err, 2);
  int passed = 0;
  for (const Exercise& e : p.exercises) {
    const ProgressEntry* x = pr.find(e.id);
    passed += x && x->status == "pass";
  }
  std::printf("%s: %d of %zu exercises pass (progress from %s)\n", a.out.c_str(), passed, p.exercises.size(),
              progress_path().c_str());
  return 0;
}

}  // namespace

std::string default_exercise_pack() {
  if (const char* env = std::getenv("BLOCKSCOPE_EXERCISES"); env && *env) return env;
  // An installed binary: PREFIX/bin/blockscope reads PREFIX/share/blockscope/exercises.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "blockscope" / "exercises";
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return BS_DEFAULT_EXERCISE_PACK;  // a build tree: the source's pack
}

void register_exercise_commands(CLI::App& app, BenchContext& ctx) {
  auto a = std::make_shared<Args>();
  CLI::App* ex = app.add_subcommand("exercise", "The course pack: CUDA exercises checked in the PTX simulator");
  ex->require_subcommand(1, 1);
  const auto pack = [a](CLI::App* sub) {
    sub->add_option("--pack", a->pack, "The pack's folder (default: $BLOCKSCOPE_EXERCISES or the built-in pack)");
  };
  CLI::App* list = ex->add_subcommand("list", "The pack's exercises, in order");
  pack(list);
  list->callback([a, &ctx] { run_guarded(ctx, [&] { return run_list(*a); }); });

  CLI::App* show = ex->add_subcommand("show", "An exercise's statement, kernel, launch, tests and par");
  show->add_option("name", a->name, "The exercise (its folder's name)")->required();
  pack(show);
  show->add_option("--hints", a->hints, "Reveal this many hints")->check(CLI::Range(0, 16));
  show->add_flag("--starter", a->starter, "Print the starter kernel");
  show->add_flag("--solution", a->solution, "Print the reference solution");
  show->callback([a, &ctx] { run_guarded(ctx, [&] { return run_show(*a); }); });

  CLI::App* check =
      ex->add_subcommand("check", "Run your kernel on the exercise's tests: on the GPU where there is one, else in the PTX simulator");
  check->add_option("name", a->name, "The exercise")->required();
  check->add_option("file", a->file, "Your kernel (.cu)")->required();
  pack(check);
  check->add_option("--block", a->block, "Your block (XxYxZ), where the exercise lets you choose it");
  check->add_flag("--visible-only", a->visible_only, "Run the visible tests only");
  check->add_flag("--sim", a->sim, "Run in the PTX simulator even where there is a GPU (what `exercise grade` does)");
  check->add_flag("--gpu", a->gpu, "Run on the GPU (without one: in the simulator, saying why)");
  check->add_flag("--json", a->json, "One JSON object with every test (what `exercise grade` reads)");
  check->add_flag("--no-record", a->no_record, "Do not save the result in your progress");
  check->add_option("--test", a->test, "Run only the K-th test (1-based; visible first, then hidden)")
      ->check(CLI::Range(1, 128));
  check->add_option("--maps", a->maps, "Write the simulator's access maps of the first failing test into this folder");
  check->callback([a, &ctx] { run_guarded(ctx, [&] { return run_check(*a); }); });

  CLI::App* exp = ex->add_subcommand("export", "Your kernel as a standalone CUDA program (+ CMake) and a CuPy snippet");
  exp->add_option("name", a->name, "The exercise")->required();
  exp->add_option("file", a->file, "Your kernel (.cu)")->required();
  exp->add_option("--out", a->out, "The folder to write into")->required();
  pack(exp);
  exp->callback([a, &ctx] { run_guarded(ctx, [&] { return run_export(*a); }); });

  CLI::App* report = ex->add_subcommand("report", "Your progress over the pack, as a report to hand in");
  report->add_option("--out", a->out, "report.json or report.csv")->required();
  pack(report);
  report->callback([a, &ctx] { run_guarded(ctx, [&] { return run_report(*a); }); });

  register_exercise_grade(*ex, ctx);
}

}  // namespace bs::cli
