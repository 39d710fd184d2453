// no_lab_id_test.cpp: the shell, the roofline and the anatomy tools name no lab (issue 25: "the lab is the only
// door"). Their sources are read from the source tree with comments removed and searched for each registered
// lab's id in the forms code uses it: the string "heat", a path app/heat/ (gpu/, ui/), a namespace heat::, an
// identifier heat_... and a class HeatLab / heat_lab. The registry (app/labs.*, app/lab_list.inc,
// app/lab_hooks.h) is where the labs are named, so it is not searched; each lab's own folders reach the tools
// through its descriptor, its old session formats included (the descriptor's migrate_state).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/labs.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

// `src` with // and /* */ comments blanked (line breaks kept, so line numbers hold). String and character
// literals are kept whole, raw strings included; a ' between digits is a digit separator.
std::string without_comments(const std::string& src) {
  std::string out;
  out.reserve(src.size());
  size_t i = 0;
  const size_t n = src.size();
  while (i < n) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < n && src[i] != '\n') ++i;
    } else if (src.compare(i, 2, "/*") == 0) {
      const size_t end = src.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? n : end + 2;
      for (; i < stop; ++i)
        if (src[i] == '\n') out += '\n';
    } else if (src.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(src[i - 1])))) {
      const size_t open = src.find('(', i + 2);
      if (open == std::string::npos) {
        out.append(src, i, std::string::npos);
        break;
      }
      std::string close(1, ')');  // ")delim\"" (appended: GCC 12's -Wrestrict misfires on operator+ here)
      close.append(src, i + 2, open - i - 2);
      close += '"';
      const size_t end = src.find(close, open);
      const size_t stop = end == std::string::npos ? n : end + close.size();
      out.append(src, i, stop - i);
      i = stop;
    } else if (src[i] == '"' ||
               (src[i] == '\'' && (i == 0 || !std::isxdigit(static_cast<unsigned char>(src[i - 1]))))) {
      const char quote = src[i];
      out += src[i++];
      while (i < n && src[i] != quote && src[i] != '\n') {
        if (src[i] == '\\' && i + 1 < n) out += src[i++];
        out += src[i++];
      }
      if (i < n) out += src[i++];
    } else {
      out += src[i++];
    }
  }
  return out;
}

struct Finder {
  std::string id;
  std::vector<std::regex> forms;
};

std::vector<Finder> finders() {
  std::vector<Finder> out;
  for (const LabDescriptor& d : lab_entries()) {
    const std::string id = d.id;
    std::string quoted(1, '"');
    quoted.append(id).push_back('"');
    out.push_back({id,
                   {std::regex(quoted), std::regex("\\b(app|gpu|ui)/" + id + "/"),
                    std::regex("(^|[^:\\w])" + id + "::"), std::regex("\\b" + id + "_"),
                    std::regex("\\b" + id + "_?lab\\b", std::regex::icase)}});
  }
  return out;
}

// "file:line: text" for each line of `path` (relative to the source tree) that names a lab.
std::vector<std::string> lab_ids_in(const fs::path& root, const fs::path& path, const std::vector<Finder>& f) {
  std::ifstream in(root / path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::istringstream code(without_comments(ss.str()));
  std::vector<std::string> hits;
  std::string line;
  for (int no = 1; std::getline(code, line); ++no)
    for (const Finder& lab : f)
      for (const std::regex& r : lab.forms)
        if (std::regex_search(line, r)) {
          hits.push_back(path.string() + ":" + std::to_string(no) + ": names lab '" + lab.id + "': " + line);
          break;
        }
  return hits;
}

// The shell, the roofline and the anatomy tools: whole folders, and the shell's files in app/.
const char* const k_folders[] = {"app/shell", "app/roofline", "app/anatomy", "gpu/anatomy"};
const char* const k_files[] = {"app/app.h",         "app/app.cpp",          "app/main.cpp",
                               "app/cli.h",         "app/cli.cpp",          "app/lab.h",
                               "app/layout.h",      "app/layout.cpp",       "app/undo.h",
                               "app/undo.cpp",      "app/lab_start_flags.h", "app/lab_start_flags.cpp",
                               "app/param_flags.h", "app/param_flags.cpp",   "app/session.h",
                               "app/session.cpp"};

std::vector<fs::path> searched(const fs::path& root) {
  std::vector<fs::path> out;
  for (const char* folder : k_folders)
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".h" || ext == ".cpp" || ext == ".cu" || ext == ".cuh"))
        out.push_back(fs::relative(e.path(), root));
    }
  for (const char* file : k_files) out.push_back(file);
  return out;
}

TEST(NoLabId, TheShellRooflineAndAnatomyCodeNameNoLab) {
  const fs::path root = BS_SOURCE_DIR;
  const std::vector<Finder> f = finders();
  ASSERT_GE(f.size(), 7u);
  const std::vector<fs::path> files = searched(root);
  ASSERT_GT(files.size(), 20u);
  std::string report;
  for (const fs::path& p : files) {
    ASSERT_TRUE(fs::exists(root / p)) << p << " is gone: update this test's list";
    for (const std::string& hit : lab_ids_in(root, p, f)) report += hit + "\n";
  }
  EXPECT_TRUE(report.empty()) << "lab ids outside the labs' folders and the registry (reach the lab through its "
                                 "descriptor, app/labs.h):\n"
                              << report;
}

// The search itself: each form is found in code, none in comments, and strings and digit separators do not
// hide code after them.
TEST(NoLabId, TheSearchFindsEachFormInCodeAndNoneInComments) {
  const fs::path root = fs::path(BS_TEST_OUT) / "no_lab_id";
  fs::create_directories(root);
  const std::vector<Finder> f = finders();
  const auto hits_in = [&](const std::string& code) {
    std::ofstream(root / "probe.cpp") << code;
    return lab_ids_in(root, "probe.cpp", f).size();
  };
  EXPECT_EQ(hits_in("auto* d = find_lab(\"heat\");\n"), 1u);
  EXPECT_EQ(hits_in("#include \"app/matmul/matmul_lab.h\"\n"), 1u);
  EXPECT_EQ(hits_in("reduce::Params p;\n"), 1u);
  EXPECT_EQ(hits_in("ui::montecarlo_schema();\n"), 1u);
  EXPECT_EQ(hits_in("class MultiGpuLab;\n"), 1u);
  EXPECT_EQ(hits_in("int x = 1'000; auto s = \"a\"; return vector_op(x);\n"), 1u);
  EXPECT_EQ(hits_in("const char* s = \"// not a comment\"; memory::predict();\n"), 1u);
  EXPECT_EQ(hits_in("// the heat lab: find_lab(\"heat\")\n/* reduce::Params\n matmul_lab */ int x;\n"), 0u);
  EXPECT_EQ(hits_in("std::vector<int> v; std::vector<int>::iterator it; #include <memory>\n"), 0u);
  EXPECT_EQ(hits_in("auto s = \"the heat lab\";\n"), 0u) << "a lab named in a sentence is a message, not code";
}

}  // namespace
}  // namespace bs
