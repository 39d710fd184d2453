// file_io_test.cpp: the file helpers every reader and writer goes through (core/text.h,
// app/json_file.h, gl::write_png, the figure exporters): atomic writes that never leave a truncated file or
// write through a symbolic link, refusal of special files (/dev/full, /dev/zero, pipes), size and nesting
// limits on input. Code that could hang or crash without the fixes runs in a forked child with a time limit.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "app/json_file.h"
#include "child_process.h"
#include "core/text.h"
#include "ui/figure_export.h"
#include "ui/gl/context.h"
#include "ui/plot_export.h"
#include "test_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;
using bs::test::read_text;
using test::run_in_child;

fs::path test_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("bs-file-io-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void put(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Names in `dir` other than the ones expected: a left-over "x.tmp-..." shows up here.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Lowers the file size limit (RLIMIT_FSIZE) for its lifetime: writes past it fail with EFBIG, like a full
// disk does with ENOSPC. SIGXFSZ is ignored meanwhile so the failing write returns an error instead of
// killing the process.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &m_old);
    m_old_handler = ::signal(SIGXFSZ, SIG_IGN);
    rlimit r = m_old;
    r.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &m_old);
    ::signal(SIGXFSZ, m_old_handler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit m_old{};
  sighandler_t m_old_handler = SIG_DFL;
};

// --- Writing
// ------------------------------------------------------------------------------------------------

TEST(AtomicWrite, ReplacesTheFileAndLeavesNoTemporary) {
  const fs::path d = test_dir("replace");
  put(d / "a.json", "old");
  std::string err;
  ASSERT_TRUE(write_file_atomic((d / "a.json").string(), "new contents", &err)) << err;
  EXPECT_EQ(read_text(d / "a.json"), "new contents");
  ASSERT_TRUE(write_text_file((d / "b.csv").string(), "x,y\n", &err)) << err;
  EXPECT_EQ(read_text(d / "b.csv"), "x,y\n");
  EXPECT_EQ(listing(d), (std::vector<std::string>{"a.json", "b.csv"}));
}

TEST(AtomicWrite, KeepsThePermissionsOfTheReplacedFile) {
  const fs::path d = test_dir("mode");
  put(d / "s.json", "old");
  ::chmod((d / "s.json").c_str(), 0600);
  std::string err;
  ASSERT_TRUE(write_text_file((d / "s.json").string(), "new", &err)) << err;
  struct stat st {};
  ASSERT_EQ(::stat((d / "s.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// A write that fails part-way (here: a file size limit; on a user's machine: a full disk) reports the reason,
// keeps the old file intact and removes the temporary file. The old writer left a truncated file and said
// nothing.
TEST(AtomicWrite, AShortWriteFailsAndKeepsTheOldFile) {
  const fs::path d = test_dir("short");
  const std::string old_text(100, 'o');
  put(d / "sweep.json", old_text);
  const std::string big(64 * 1024, 'x');
  std::string err;
  bool ok = true;
  {
    FileSizeLimit limit(4096);
    ok = write_text_file((d / "sweep.json").string(), big, &err);
  }
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
  EXPECT_NE(err.find("sweep.json"), std::string::npos) << err;
  EXPECT_NE(err.find(std::strerror(EFBIG)), std::string::npos) << err;
  EXPECT_EQ(read_text(d / "sweep.json"), old_text);
  EXPECT_EQ(listing(d), std::vector<std::string>{"sweep.json"});
}

// Writing to a device is refused up front: /dev/full would fail every write, /dev/null would swallow the
// export and report success. The device itself is left alone (rename would replace it).
TEST(AtomicWrite, SpecialFilesAreRefused) {
  for (const char* dev : {"/dev/full", "/dev/null"}) {
    struct stat before {};
    ASSERT_EQ(::stat(dev, &before), 0);
    std::string err;
    EXPECT_FALSE(write_text_file(dev, "data", &err)) << dev;
    EXPECT_NE(err.find(dev), std::string::npos) << err;
    EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
    struct stat after {};
    ASSERT_EQ(::stat(dev, &after), 0);
    EXPECT_TRUE(S_ISCHR(after.st_mode)) << dev << " was replaced";
    EXPECT_EQ(before.st_rdev, after.st_rdev);
  }
  const fs::path d = test_dir("fifo");
  ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
  std::string err;
  EXPECT_FALSE(write_text_file((d / "pipe").string(), "data", &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

// A symbolic link at the target is replaced by the new file; the file it pointed to is not overwritten.
TEST(AtomicWrite, SymbolicLinksAreReplacedNotWrittenThrough) {
  const fs::path d = test_dir("symlink");
  put(d / "precious.txt", "keep me");
  fs::create_symlink(d / "precious.txt", d / "figure.svg");
  std::string err;
  ASSERT_TRUE(write_text_file((d / "figure.svg").string(), "<svg/>", &err)) << err;
  EXPECT_EQ(read_text(d / "precious.txt"), "keep me");
  EXPECT_FALSE(fs::is_symlink(d / "figure.svg"));
  EXPECT_EQ(read_text(d / "figure.svg"), "<svg/>");
  // A link to a device is replaced too, never followed into the device.
  fs::create_symlink("/dev/full", d / "record.json");
  ASSERT_TRUE(write_text_file((d / "record.json").string(), "{}", &err)) << err;
  EXPECT_FALSE(fs::is_symlink(d / "record.json"));
  EXPECT_EQ(read_text(d / "record.json"), "{}");
}

TEST(AtomicWrite, BadTargetsAreNamedWithTheReason) {
  const fs::path d = test_dir("bad");
  std::string err;
  EXPECT_FALSE(write_text_file((d / "missing" / "x.csv").string(), "a", &err));
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_FALSE(write_text_file(d.string(), "a", &err));
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  put(d / "file", "x");
  EXPECT_FALSE(write_text_file((d / "file" / "x.csv").string(), "a", &err));
  EXPECT_NE(err.find("not a folder"), std::string::npos) << err;
  EXPECT_FALSE(write_text_file("", "a", &err));
  EXPECT_NE(err.find("no output path"), std::string::npos) << err;
  EXPECT_EQ(listing(d), std::vector<std::string>{"file"});
}

// write_png encodes in memory and writes atomically: a failed write leaves the previous PNG as it was.
TEST(AtomicWrite, WritePngFailsCleanlyAndKeepsTheOldImage) {
  const fs::path d = test_dir("png");
  const int w = 64, h = 48;
  std::vector<unsigned char> rgba(static_cast<size_t>(w) * h * 4);
  uint32_t state = 12345;
  for (unsigned char& c : rgba) {  // noise (a linear congruential generator): the PNG stays large
    state = state * 1664525u + 1013904223u;
    c = static_cast<unsigned char>(state >> 24);
  }
  std::string err;
  ASSERT_TRUE(gl::write_png((d / "shot.png").string(), w, h, rgba, &err)) << err;
  const std::string good = read_text(d / "shot.png");
  int rw = 0, rh = 0, rc = 0;
  unsigned char* px = stbi_load((d / "shot.png").c_str(), &rw, &rh, &rc, 4);
  ASSERT_NE(px, nullptr);
  EXPECT_EQ(rw, w);
  EXPECT_EQ(rh, h);
  EXPECT_EQ(std::memcmp(px, rgba.data(), rgba.size()), 0);
  stbi_image_free(px);

  std::vector<unsigned char> other(rgba.rbegin(), rgba.rend());
  bool ok = true;
  {
    FileSizeLimit limit(1024);
    ok = gl::write_png((d / "shot.png").string(), w, h, other, &err);
  }
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("shot.png"), std::string::npos) << err;
  EXPECT_EQ(read_text(d / "shot.png"), good);
  EXPECT_EQ(listing(d), std::vector<std::string>{"shot.png"});
  EXPECT_FALSE(gl::write_png("/dev/full", w, h, rgba, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

TEST(AtomicWrite, SvgExportToADeviceFails) {
  fig::Figure f;
  f.title = "t";
  std::string err;
  EXPECT_FALSE(ui::export_svg(f, 640, 480, "/dev/full", &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

// A plot export whose .json cannot be written (a pipe sits at its name; the old writer blocked in open()
// forever) fails with the reason and lists what was saved before it, never "saved" alone.
TEST(AtomicWrite, PlotExportReportsTheFailedFile) {
  const fs::path d = test_dir("plot");
  ASSERT_EQ(::mkfifo((d / "timing.json").c_str(), 0600), 0);
  const int code = run_in_child(
      [&] {
        ui::PlotExportJob job;
        job.png = job.svg = false;
        job.name = "timing";
        ui::queue_plot_export(job);
        const std::string msg = ui::run_plot_exports(d.string(), "{}");
        if (msg.rfind("saved", 0) == 0) return 1;
        if (msg.find("cannot write " + (d / "timing.json").string()) == std::string::npos) return 2;
        return msg.find("saved before this: timing.csv") != std::string::npos ? 0 : 3;
      },
      10);
  EXPECT_EQ(code, 0) << (code == -1 ? "hung" : "wrong message");
}

// An export that is interrupted (here: the painter throws) leaves the previous figure.png untouched. The old
// exporter truncated the file to 0 bytes before it started drawing.
TEST(AtomicWrite, AnInterruptedPngExportKeepsTheOldFile) {
  std::string err;
  auto gl = gl::create_headless(64, 64, &err);
  if (!gl) GTEST_SKIP() << "no headless OpenGL context: " << err;
  const fs::path d = test_dir("interrupted");
  put(d / "figure.png", "an older figure");
  ui::PngOptions o;
  o.width = 200;
  o.height = 100;
  EXPECT_THROW(ui::render_png([](ImDrawList*, ImVec2, ImVec2) { throw std::runtime_error("interrupted"); }, o,
                              (d / "figure.png").string(), &err),
               std::runtime_error);
  EXPECT_EQ(read_text(d / "figure.png"), "an older figure");
  EXPECT_EQ(listing(d), std::vector<std::string>{"figure.png"});
  // And a complete export replaces it.
  fig::Figure f;
  f.title = "ok";
  ASSERT_TRUE(ui::export_png(f, o, (d / "figure.png").string(), &err)) << err;
  EXPECT_EQ(read_text(d / "figure.png").substr(1, 3), "PNG");
}

// --- Reading
// ------------------------------------------------------------------------------------------------

TEST(LimitedRead, ReadsARegularFile) {
  const fs::path d = test_dir("read");
  put(d / "a.json", "{\"x\": 1}");
  std::string text, err;
  ASSERT_TRUE(read_file_limited((d / "a.json").string(), 1024, &text, &err)) << err;
  EXPECT_EQ(text, "{\"x\": 1}");
  put(d / "empty", "");
  ASSERT_TRUE(read_file_limited((d / "empty").string(), 1024, &text, &err)) << err;
  EXPECT_EQ(text, "");
}

// /dev/zero never ends and a FIFO without a writer blocks in open(): both used to hang `--session FILE`.
TEST(LimitedRead, DevicesAndPipesAreRefusedWithoutHanging) {
  const fs::path d = test_dir("special");
  ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
  for (const std::string& path :
       {std::string("/dev/zero"), std::string("/dev/urandom"), (d / "pipe").string()}) {
    const int code = run_in_child(
        [&] {
          std::string text, err;
          if (read_file_limited(path, k_max_input_file_bytes, &text, &err)) return 1;
          return err.find("not a regular file") != std::string::npos && err.find(path) != std::string::npos
                     ? 0
                     : 2;
        },
        10);
    EXPECT_EQ(code, 0) << path << (code == -1 ? ": did not return within 10 s" : "");
  }
  std::string text, err;
  EXPECT_FALSE(read_file_limited(d.string(), 1024, &text, &err));
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  EXPECT_FALSE(read_file_limited((d / "missing.json").string(), 1024, &text, &err));
  EXPECT_NE(err.find("missing.json: no such file"), std::string::npos) << err;
}

TEST(LimitedRead, FilesOverTheLimitAreRefused) {
  const fs::path d = test_dir("big");
  put(d / "big.json", std::string(1001, ' '));
  std::string text, err;
  EXPECT_FALSE(read_file_limited((d / "big.json").string(), 1000, &text, &err));
  EXPECT_NE(err.find("larger than 1000 bytes"), std::string::npos) << err;
  EXPECT_TRUE(read_file_limited((d / "big.json").string(), 1001, &text, &err)) << err;
  EXPECT_EQ(text.size(), 1001u);
  // A sparse 17 MiB file: refused from its size, nothing read.
  { std::ofstream f(d / "sparse.json", std::ios::binary); }
  fs::resize_file(d / "sparse.json", (17u << 20));
  EXPECT_FALSE(read_file_limited((d / "sparse.json").string(), k_max_input_file_bytes, &text, &err));
  EXPECT_NE(err.find("larger than 16 MiB"), std::string::npos) << err;
}

TEST(JsonDepth, CountsBracketsOutsideStrings) {
  EXPECT_EQ(json_nesting_depth("{}", 64), 1);
  EXPECT_EQ(json_nesting_depth("1", 64), 0);
  EXPECT_EQ(json_nesting_depth("{\"a\": [[1], {\"b\": []}]}", 64), 4);
  EXPECT_EQ(json_nesting_depth("[\"[[[[{{{{\", \"\\\"[[[[\"]", 64),
            1);                                                     // brackets in strings, escaped quotes
  EXPECT_EQ(json_nesting_depth("[\"\\\\\", [[]]]", 64), 3);         // an escaped backslash ends the escape
  EXPECT_EQ(json_nesting_depth(std::string(100000, '['), 64), 65);  // stops just past the limit
}

// 100,000 nested arrays overflowed the stack in nlohmann's recursive parser (SIGSEGV). Now refused unparsed.
TEST(JsonFile, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const int code = run_in_child(
      [&] {
        const JsonRead r = parse_json_text(deep, "deep.json");
        if (r.value) return 1;
        return r.error.find("deep.json: nested more than 64 levels") != std::string::npos ? 0 : 2;
      },
      30);
  EXPECT_EQ(code, 0) << (code >= 128 ? "crashed with signal " + std::to_string(code - 128) : "");
  // 64 levels are fine.
  const JsonRead ok = parse_json_text(std::string(64, '[') + std::string(64, ']'), "ok.json");
  EXPECT_TRUE(ok.value) << ok.error;
  const JsonRead no = parse_json_text(std::string(65, '[') + std::string(65, ']'), "no.json");
  EXPECT_FALSE(no.value);
}

TEST(JsonFile, ReadJsonFileNamesTheFile) {
  const fs::path d = test_dir("json");
  put(d / "good.json", "{\"a\": [1, 2]}");
  JsonRead r = read_json_file((d / "good.json").string());
  ASSERT_TRUE(r.value) << r.error;
  EXPECT_EQ((*r.value)["a"][1], 2);
  put(d / "bad.json", "{\"a\": ");
  r = read_json_file((d / "bad.json").string());
  EXPECT_FALSE(r.value);
  EXPECT_NE(r.error.find("bad.json: not valid JSON"), std::string::npos) << r.error;
  r = read_json_file("/dev/zero");
  EXPECT_NE(r.error.find("/dev/zero: is not a regular file"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace bs

// The read-outs' compact counts (the Monte Carlo panel without a gap, the simulator's status line with one).
TEST(CompactCount, SuffixesAndDecimalsPerRange) {
  EXPECT_EQ(bs::compact_count(0), "0");
  EXPECT_EQ(bs::compact_count(999), "999");
  EXPECT_EQ(bs::compact_count(1000), "1.0k");
  EXPECT_EQ(bs::compact_count(198'900, " "), "198.9 k");
  EXPECT_EQ(bs::compact_count(4'500'000), "4.50M");
  EXPECT_EQ(bs::compact_count(1.2e9, " "), "1.20 G");
}
