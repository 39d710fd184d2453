// exercise_progress.h: a student's progress through the course pack, saved per user (a JSON file: each
// exercise's latest result, attempts, whether it ever passed, the source's SHA-256) and exported as a report a
// student hands in (`blockscope exercise report --out report.json|report.csv`: every exercise of the pack,
// attempted or not). `exercise check` records each run; `exercise list` shows the status.
#pragma once

#include <string>
#include <vector>

#include "gpu/exercise/runner.h"

namespace bs::cli {

struct ProgressEntry {
  std::string exercise, status;  // status: "pass" | "fail" | "compile error"
  int tests_passed = 0, tests_total = 0;
  std::string first_failure, score, source_sha256, when;  // when: ISO 8601 UTC
  int attempts = 0;
  bool ever_passed = false;
};

struct Progress {
  std::vector<ProgressEntry> entries;
  const ProgressEntry* find(const std::string& exercise) const;
};

// $BLOCKSCOPE_PROGRESS, else $XDG_DATA_HOME/blockscope/progress.json, else ~/.local/share/blockscope/progress.json.
std::string progress_path();
// A missing file is empty progress; a malformed one is false with *error naming the file and what is wrong.
bool load_progress(const std::string& path, Progress* out, std::string* error);
bool save_progress(const std::string& path, const Progress& p, std::string* error);
// The result of one `exercise check` of `source`.
void record_result(Progress& p, const exercise::Exercise& e, const exercise::CheckResult& r, const std::string& source);

// record_result into the saved progress file (progress_path()); a file that cannot be read is left as it is.
// "" when saved, else the warning to show.
std::string save_check(const exercise::Exercise& e, const exercise::CheckResult& r, const std::string& source);

// "pass", "fail (2/5)", "" (not attempted)
std::string status_text(const ProgressEntry* e);
// Every exercise of the pack, in order, with the student's latest result; `user` names the student.
std::string report_json(const Progress& p, const exercise::Pack& pack, const std::string& user);
std::string report_csv(const Progress& p, const exercise::Pack& pack, const std::string& user);

}  // namespace bs::cli
