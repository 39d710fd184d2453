// exercise_progress.cpp: see exercise_progress.h.
#include "app/exercise/exercise_progress.h"

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "gpu/roofline/ceilings.h"  // utc_now
#include "gpu/kernel/sha256.h"

namespace bs::cli {

namespace {

using nlohmann::json;

json entry_json(const ProgressEntry& e) {
  return {{"exercise", e.exercise},       {"status", e.status},         {"tests_passed", e.tests_passed},
          {"tests_total", e.tests_total}, {"first_failure", e.first_failure}, {"score", e.score},
          {"source_sha256", e.source_sha256}, {"when", e.when},          {"attempts", e.attempts},
          {"ever_passed", e.ever_passed}};
}

}  // namespace

const ProgressEntry* Progress::find(const std::string& exercise) const {
  for (const ProgressEntry& e : entries)
    if (e.exercise == exercise) return &e;
  return nullptr;
}

std::string progress_path() {
  if (const char* p = std::getenv("BLOCKSCOPE_PROGRESS"); p && *p) return p;
  namespace fs = std::filesystem;
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  const fs::path base = xdg && *xdg ? fs::path(xdg) : home && *home ? fs::path(home) / ".local" / "share" : fs::path();
  return base.empty() ? std::string() : (base / "blockscope" / "progress.json").string();
}

bool load_progress(const std::string& path, Progress* out, std::string* error) {
  *out = {};
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return true;
  std::string text;
  if (!read_file_limited(path, 16u << 20, &text, error)) return false;
  try {
    const json j = json::parse(text);
    for (const json& e : j.at("exercises")) {
      ProgressEntry p;
      p.exercise = e.at("exercise").get<std::string>();
      p.status = e.at("status").get<std::string>();
      p.tests_passed = e.value("tests_passed", 0);
      p.tests_total = e.value("tests_total", 0);
      p.first_failure = e.value("first_failure", "");
      p.score = e.value("score", "");
      p.source_sha256 = e.value("source_sha256", "");
      p.when = e.value("when", "");
      p.attempts = e.value("attempts", 0);
      p.ever_passed = e.value("ever_passed", false);
      out->entries.push_back(std::move(p));
    }
  } catch (const json::exception& e) {
    *error = path + ": not a progress file (" + e.what() + ")";
    return false;
  }
  return true;
}

bool save_progress(const std::string& path, const Progress& p, std::string* error) {
  if (path.empty()) {
    *error = "no place for the progress file (set HOME, XDG_DATA_HOME or BLOCKSCOPE_PROGRESS)";
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  json j = {{"format", 1}, {"exercises", json::array()}};
  for (const ProgressEntry& e : p.entries) j["exercises"].push_back(entry_json(e));
  return write_text_file(path, j.dump(2) + "\n", error);
}

void record_result(Progress& p, const exercise::Exercise& e, const exercise::CheckResult& r, const std::string& source) {
  ProgressEntry* entry = nullptr;
  for (ProgressEntry& x : p.entries)
    if (x.exercise == e.id) entry = &x;
  if (!entry) {
    p.entries.push_back({});
    entry = &p.entries.back();
    entry->exercise = e.id;
  }
  entry->status = !r.compiled.ok ? "compile error" : r.passed() ? "pass" : "fail";
  entry->tests_total = static_cast<int>(e.tests.size());
  entry->tests_passed = 0;
  for (const exercise::TestResult& t : r.tests) entry->tests_passed += t.passed;
  entry->first_failure = r.first_failure >= 0 ? r.tests[static_cast<size_t>(r.first_failure)].test.name : "";
  entry->score = r.tests.empty() || r.tests.front().score.empty() ? "" : exercise::score_line(r.tests.front().score);
  entry->source_sha256 = kernel::sha256_hex(source);
  entry->when = roofline::utc_now();
  entry->attempts += 1;
  entry->ever_passed = entry->ever_passed || r.passed();
}

std::string save_check(const exercise::Exercise& e, const exercise::CheckResult& r, const std::string& source) {
  Progress pr;
  std::string err;
  if (!load_progress(progress_path(), &pr, &err)) return "progress not saved (the file is kept as it is): " + err;
  record_result(pr, e, r, source);
  if (!save_progress(progress_path(), pr, &err)) return "progress not saved: " + err;
  return "";
}

std::string status_text(const ProgressEntry* e) {
  if (!e) return "";
  if (e->status == "pass") return "pass";
  return e->status + " (" + std::to_string(e->tests_passed) + "/" + std::to_string(e->tests_total) + ")" +
         (e->ever_passed ? ", passed before" : "");
}

std::string report_json(const Progress& p, const exercise::Pack& pack, const std::string& user) {
  json j = {{"user", user}, {"date", roofline::utc_now()}, {"pack", pack.dir}, {"exercises", json::array()}};
  int passed = 0;
  for (const exercise::Exercise& e : pack.exercises) {
    const ProgressEntry* x = p.find(e.id);
    json row = x ? entry_json(*x) : json{{"exercise", e.id}, {"status", "not attempted"}, {"attempts", 0}};
    row["title"] = e.title;
    passed += x && x->status == "pass";
    j["exercises"].push_back(row);
  }
  j["passed"] = passed;
  j["total"] = pack.exercises.size();
  return j.dump(2) + "\n";
}

std::string report_csv(const Progress& p, const exercise::Pack& pack, const std::string& user) {
  std::string out = "user,exercise,title,status,tests_passed,tests_total,first_failure,score,attempts,ever_passed,"
                    "when,source_sha256\n";
  for (const exercise::Exercise& e : pack.exercises) {
    const ProgressEntry* x = p.find(e.id);
    out += csv_field(user) + "," + csv_field(e.id) + "," + csv_field(e.title) + ",";
    if (!x) {
      out += "not attempted,0," + std::to_string(e.tests.size()) + ",,,0,false,,\n";
      continue;
    }
    out += csv_field(x->status) + "," + std::to_string(x->tests_passed) + "," + std::to_string(x->tests_total) + "," +
           csv_field(x->first_failure) + "," + csv_field(x->score) + "," + std::to_string(x->attempts) + "," +
           (x->ever_passed ? "true" : "false") + "," + csv_field(x->when) + "," + csv_field(x->source_sha256) + "\n";
  }
  return out;
}

}  // namespace bs::cli
