// session_files_test.cpp: hostile session and record files. Deeply nested JSON (generated here: 100,000
// levels), /dev/zero and pipes, integers beyond int and int64, and every file of the fuzz corpus in
// tests/fuzz/ must give a session or a clear error naming the file: never a crash, a hang or a silently
// wrapped number. Saving a session is atomic and replaces a symbolic link instead of writing through it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/sweep/record.h"
#include "run_util.h"
#include "app/session.h"
#include "child_process.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using bs::test::read_text;
using nlohmann::json;
using test::run_in_child;

fs::path out_dir(const std::string& name) {
  const fs::path d = fs::path(BS_TEST_OUT) / "files" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A session whose heat lab state holds `levels` nested arrays: the shape of the fuzzer's crashing file.
std::string deep_session(int levels) {
  return R"({"blockscope_session": 1, "active_lab": "heat", "labs": {"heat": {"block": )" +
         std::string(static_cast<size_t>(levels), '[') + std::string(static_cast<size_t>(levels), ']') +
         "}}}";
}

// --- Integers: range-checked as 64-bit before narrowing
// ------------------------------------------------------

TEST(StateReaderRange, IntegersAreCheckedBeforeNarrowing) {
  // 4294967297 = 2^32 + 1 would become 1 when narrowed to int first.
  const json j = {
      {"reps", 4294967297LL}, {"ok", 7}, {"neg", -4294967295LL}, {"big", 18446744073709551615ULL}};
  int reps = 10;
  StateReader r(j, "sweep");
  r.integer("reps", reps, 1, INT64_MAX);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(reps, 10);
  ASSERT_TRUE(r.error());
  EXPECT_NE(r.error()->find("sweep.reps: 4294967297 is outside 1..2147483647"), std::string::npos)
      << *r.error();

  int neg = 3;
  StateReader n(j, "x");
  n.integer("neg", neg, INT64_MIN, INT64_MAX);
  EXPECT_FALSE(n.ok());
  EXPECT_EQ(neg, 3);

  int ok = 0;
  StateReader o(j, "x");
  o.integer("ok", ok, 1, INT64_MAX);
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(ok, 7);
}

// An unsigned value above INT64_MAX used to be clamped to INT64_MAX and then accepted by a 0..INT64_MAX range
// (a Monte Carlo seed of 2^64-1 became 2^63-1 without a word).
TEST(StateReaderRange, UnsignedBeyondInt64IsRefusedWithItsOwnValue) {
  const json j = {{"seed", 18446744073709551615ULL}};
  int64_t seed = 42;
  StateReader r(j, "labs.montecarlo");
  r.integer("seed", seed, 0, INT64_MAX);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(seed, 42);
  ASSERT_TRUE(r.error());
  EXPECT_NE(r.error()->find("labs.montecarlo.seed: 18446744073709551615 is outside"), std::string::npos)
      << *r.error();
}

TEST(StateReaderRange, PairsAndNonIntegers) {
  const json j = {
      {"grid", {4294967297LL, 1}}, {"huge", {18446744073709551615ULL, 1}}, {"f", 2.0}, {"s", "3"}};
  int grid[2] = {5, 5};
  StateReader r(j, "labs.heat");
  r.pair("grid", grid, 1, INT64_MAX);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(grid[0], 5);
  StateReader h(j, "labs.heat");
  h.pair("huge", grid, INT64_MIN, INT64_MAX);
  EXPECT_FALSE(h.ok());
  EXPECT_EQ(grid[0], 5);
  for (const char* key : {"f", "s"}) {
    int v = 1;
    StateReader k(j, "labs.heat");
    k.integer(key, v, 0, 100);
    EXPECT_FALSE(k.ok()) << key;
    EXPECT_NE(k.error()->find(std::string("labs.heat.") + key + ": expected a whole number"),
              std::string::npos)
        << *k.error();
  }
}

TEST(StateReaderRange, ASessionWithAWrappingSeedIsRefused) {
  const SessionResult r = parse_session(
      R"({"blockscope_session": 1, "active_lab": "heat", "labs": {"montecarlo": {"seed": 18446744073709551615}}})",
      "seed.json");
  if (r.error.find("unknown lab") != std::string::npos) GTEST_SKIP() << "no Monte Carlo lab in this build";
  EXPECT_FALSE(r.session);
  EXPECT_NE(r.error.find("seed"), std::string::npos) << r.error;
}

// Values from the file are shown escaped and shortened in messages: no control characters reach the terminal,
// a 20,000-character name is not printed in full.
TEST(StateReaderRange, MessagesShowValuesEscapedAndShort) {
  const SessionResult nul =
      parse_session(R"({"blockscope_session": 1, "active_lab": "heat\u0000\u001b[2J"})", "s");
  ASSERT_FALSE(nul.session);
  EXPECT_NE(nul.error.find("unknown lab 'heat\\u0000\\u001b[2J'"), std::string::npos) << nul.error;
  for (char c : nul.error)
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << "a control character in: " << nul.error;
  const SessionResult big =
      parse_session(R"({"blockscope_session": 1, "active_lab": "heat", "labs": {"heat": )"
                    R"({"colormap": ")" +
                        std::string(20000, 'x') + "\"}}}",
                    "s");
  ASSERT_FALSE(big.session);
  EXPECT_NE(big.error.find("labs.heat.colormap: 'xxx"), std::string::npos) << big.error;
  EXPECT_LT(big.error.size(), 400u) << big.error;
}

// --- Reading: limits before parsing
// --------------------------------------------------------------------------

// 100,000 nested arrays overflowed the stack of nlohmann's recursive parser (SIGSEGV).
TEST(SessionFiles, DeeplyNestedSessionIsRefusedWithoutCrashing) {
  const fs::path d = out_dir("deep");
  std::ofstream(d / "deep.json") << deep_session(100000);
  const std::string path = (d / "deep.json").string();
  const int code = run_in_child(
      [&] {
        const SessionResult r = load_session_file(path);
        if (r.session) return 1;
        return r.error.find("deep.json: nested more than 64 levels") != std::string::npos ? 0 : 2;
      },
      60);
  EXPECT_EQ(code, 0) << (code >= 128 ? "crashed with signal " + std::to_string(code - 128) : "");
  EXPECT_FALSE(parse_session(deep_session(100), "deep.json").session);
  // Nesting in strings is text, not structure.
  const SessionResult s = parse_session(
      R"({"blockscope_session": 1, "active_lab": "heat", "description": ")" + std::string(1000, '[') + "\"}",
      "s");
  EXPECT_TRUE(s.session) << s.error;
}

TEST(SessionFiles, DevZeroAndPipesAreRefusedWithoutHanging) {
  const fs::path d = out_dir("pipe");
  ASSERT_EQ(::mkfifo((d / "session.json").c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), (d / "session.json").string()}) {
    const int code = run_in_child(
        [&] {
          const SessionResult r = load_session_file(path);
          if (r.session) return 1;
          return r.error.find(path + ": is not a regular file") != std::string::npos ? 0 : 2;
        },
        10);
    EXPECT_EQ(code, 0) << path << (code == -1 ? ": did not return within 10 s" : "");
  }
}

TEST(SessionFiles, OversizedSessionIsRefused) {
  const fs::path d = out_dir("big");
  {
    std::ofstream f(d / "big.json");
    f << R"({"blockscope_session": 1, "active_lab": "heat", "description": ")" << std::string(17u << 20, 'x')
      << "\"}";
  }
  const SessionResult r = load_session_file((d / "big.json").string());
  EXPECT_FALSE(r.session);
  EXPECT_NE(r.error.find("larger than 16 MiB"), std::string::npos) << r.error;
}

// The binary as the fuzzer ran it: exit 2 with a message, within seconds.
TEST(SessionFiles, TheBinaryRefusesHostileSessions) {
  const fs::path d = out_dir("cli");
  std::ofstream(d / "deep.json") << deep_session(100000);
  for (const std::string& path : {(d / "deep.json").string(), std::string("/dev/zero")}) {
    const test::RunResult r =
        test::run_blockscope("--headless --frames 2 --session " + path, "timeout -s KILL 60");
    EXPECT_EQ(r.exit_code, 2) << path << "\n" << r.output;
    EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
  }
}

// Every file of the committed corpus: a session or an error naming the file, in a child so that a crash or a
// hang is reported as this file's failure.
TEST(SessionFiles, FuzzCorpusGivesSessionsOrClearErrors) {
  const fs::path corpus = fs::path(BS_SOURCE_DIR) / "tests" / "fuzz" / "sessions";
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  int files = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    const std::string path = e.path().string(), name = e.path().filename().string();
    ++files;
    // The classes of file this reader refuses itself; the others (sweeps, lab states) may go either way here
    // as long as nothing crashes or hangs and an error names the file.
    bool must_fail = false;
    for (const char* prefix :
         {"nesting-", "int-", "number-", "version-", "empty", "whitespace", "nul-", "invalid-utf8",
          "lone-surrogate", "top-level-", "trailing", "comment", "truncated"})
      must_fail = must_fail || name.rfind(prefix, 0) == 0;
    // Valid files with something odd about them (brackets inside a string, a byte order mark, a lab listed
    // 2000 times): they load.
    const bool must_load = name == "nesting-in-string-is-fine.json" || name == "utf8-bom.json" ||
                           name == "open-labs-repeated.json";
    must_fail = must_fail && !must_load;
    const int code = run_in_child(
        [&] {
          const SessionResult r = load_session_file(path);
          if (r.session) return must_fail ? 3 : 0;
          if (r.error.find(path) == std::string::npos) return 2;
          return must_load ? 4 : 0;
        },
        20);
    EXPECT_EQ(code, 0) << name << ": "
                       << (code == -1    ? "hung"
                           : code >= 128 ? "crashed with signal " + std::to_string(code - 128)
                           : code == 2 ? "the error does not name the file: " + load_session_file(path).error
                           : code == 3 ? "accepted"
                                       : "refused: " + load_session_file(path).error);
  }
  EXPECT_GE(files, 40);
}

TEST(RecordFiles, FuzzCorpusGivesRecordsOrClearErrors) {
  const fs::path corpus = fs::path(BS_SOURCE_DIR) / "tests" / "fuzz" / "records";
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  int files = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    const std::string path = e.path().string(), name = e.path().filename().string();
    ++files;
    const int code = run_in_child(
        [&] {
          try {
            (void)record::load_record(path);
            return 0;  // readable; whether it may run is the sweep's validation, after this
          } catch (const std::exception& ex) {
            return std::string(ex.what()).find(path) != std::string::npos ? 0 : 2;
          }
        },
        20);
    EXPECT_EQ(code, 0) << name << ": "
                       << (code == -1    ? "hung"
                           : code >= 128 ? "crashed"
                                         : "the error does not name the file");
  }
  EXPECT_GE(files, 20);
  // The deep ones are refused by the reader itself, before any parsing.
  for (const char* name : {"nesting-1000.json", "nesting-5000-unterminated.json"})
    try {
      (void)record::load_record((corpus / name).string());
      ADD_FAILURE() << name << " was accepted";
    } catch (const std::exception& ex) {
      EXPECT_NE(std::string(ex.what()).find("nested more than 64 levels"), std::string::npos) << ex.what();
    }
}

TEST(RecordFiles, DeepRecordAndDevZeroAreRefused) {
  const fs::path d = out_dir("record");
  std::ofstream(d / "record.json") << R"({"blockscope_record": 1, "sweep": )" << std::string(100000, '[')
                                   << std::string(100000, ']') << "}";
  for (const std::string& path : {(d / "record.json").string(), std::string("/dev/zero")}) {
    const int code = run_in_child(
        [&] {
          try {
            (void)record::load_record(path);
            return 1;
          } catch (const std::exception& ex) {
            return std::string(ex.what()).find(path) != std::string::npos ? 0 : 2;
          }
        },
        30);
    EXPECT_EQ(code, 0) << path << (code == -1 ? ": hung" : code >= 128 ? ": crashed" : "");
  }
}

// The binary's --screenshot through the same writer: a link at the name is replaced (the old writer wrote
// through it, into /dev/full, and reported "wrote"); a pipe at the name is refused (the old one blocked).
TEST(SessionFiles, ScreenshotsNeverWriteThroughLinksOrIntoPipes) {
  const fs::path d = out_dir("screenshot");
  fs::create_symlink("/dev/full", d / "link.png");
  test::RunResult r = test::run_blockscope("--headless --frames 2 --screenshot " + (d / "link.png").string(),
                                           "timeout -s KILL 120");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::is_symlink(d / "link.png"));
  EXPECT_EQ(read_text(d / "link.png").substr(1, 3), "PNG") << r.output;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  ASSERT_EQ(::mkfifo((d / "pipe.png").c_str(), 0600), 0);
  r = test::run_blockscope("--headless --frames 2 --screenshot " + (d / "pipe.png").string(),
                           "timeout -s KILL 120");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.exit_code, 137) << "hung writing into a pipe";
  EXPECT_NE(r.output.find("not a regular file"), std::string::npos) << r.output;
}

// --- Saving ----------------------------------------------------------------------------------------------

Session minimal_session() {
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  return s;
}

TEST(SessionSave, ReplacesASymlinkInsteadOfWritingThroughIt) {
  const fs::path d = out_dir("save-link");
  std::ofstream(d / "notes.txt") << "my notes";
  fs::create_symlink(d / "notes.txt", d / "s.json");
  std::string err;
  ASSERT_TRUE(save_session(minimal_session(), (d / "s.json").string(), &err)) << err;
  EXPECT_EQ(read_text(d / "notes.txt"), "my notes");
  EXPECT_FALSE(fs::is_symlink(d / "s.json"));
  EXPECT_TRUE(load_session_file((d / "s.json").string()).session);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d))
    ++entries;
  EXPECT_EQ(entries, 2u) << "a temporary file was left behind";
}

TEST(SessionSave, ADeviceTargetFailsWithTheReason) {
  std::string err;
  EXPECT_FALSE(save_session(minimal_session(), "/dev/full", &err));
  EXPECT_NE(err.find("/dev/full"), std::string::npos) << err;
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

}  // namespace
}  // namespace bs
