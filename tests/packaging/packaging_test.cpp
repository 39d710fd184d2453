// packaging_test.cpp: what a user or a distribution gets. `cmake --install` into a temporary prefix must give
// bin/blockscope (which runs), the desktop entry (valid, when desktop-file-validate is installed), the icon
// in the hicolor theme and the docs; `cpack -G DEB` must give a .deb with those files and its dependencies
// listed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_util.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using bs::test::read_text;

using Command = bs::test::RunResult;
using bs::test::run_command;

// 'text' for the shell (paths here have no quotes in them). Built with +=: GCC 12 warns falsely (-Wrestrict)
// about "'" + std::string.
std::string q(const std::string& text) {
  std::string out = "'";
  out += text;
  out += "'";
  return out;
}

bool have(const std::string& tool) {
  return run_command("command -v " + tool).exit_code == 0;
}

// Width and height from a PNG's IHDR; {0, 0} when it is not a PNG.
std::pair<int, int> png_size(const fs::path& p) {
  const std::string s = read_text(p);
  if (s.size() < 24 || s.compare(1, 3, "PNG") != 0) return {0, 0};
  auto be = [&](size_t at) {
    return (static_cast<unsigned char>(s[at]) << 24) | (static_cast<unsigned char>(s[at + 1]) << 16) |
           (static_cast<unsigned char>(s[at + 2]) << 8) | static_cast<unsigned char>(s[at + 3]);
  };
  return {be(16), be(20)};
}

const char* const k_installed[] = {
    "bin/blockscope",
    "share/applications/blockscope.desktop",
    "share/icons/hicolor/scalable/apps/blockscope.svg",
    "share/icons/hicolor/48x48/apps/blockscope.png",
    "share/icons/hicolor/128x128/apps/blockscope.png",
    "share/icons/hicolor/256x256/apps/blockscope.png",
    "share/doc/blockscope/README.md",
    "share/doc/blockscope/docs/PERFORMANCE.md",
    "share/blockscope/exercises/01_map/exercise.json",
    "share/blockscope/exercises/19_heat_step/reference.cu",
};

TEST(Packaging, InstallIntoAPrefix) {
  const fs::path prefix = fs::path(BS_TEST_OUT) / "prefix";
  fs::remove_all(prefix);
  const Command inst =
      run_command(q(BS_CMAKE) + " --install " + q(BS_BUILD_DIR) + " --prefix " + q(prefix.string()));
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  for (const char* f : k_installed)
    EXPECT_TRUE(fs::is_regular_file(prefix / f)) << f << " is missing; install printed:\n" << inst.output;
  struct stat st {};
  ASSERT_EQ(::stat((prefix / "bin/blockscope").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  for (int px : {48, 128, 256}) {
    const auto [w, h] = png_size(prefix / ("share/icons/hicolor/" + std::to_string(px) + "x" +
                                           std::to_string(px) + "/apps/blockscope.png"));
    EXPECT_EQ(w, px);
    EXPECT_EQ(h, px);
  }
  EXPECT_NE(read_text(prefix / "share/icons/hicolor/scalable/apps/blockscope.svg").find("<svg"),
            std::string::npos);

  const std::string desktop = read_text(prefix / "share/applications/blockscope.desktop");
  EXPECT_NE(desktop.find("[Desktop Entry]"), std::string::npos);
  EXPECT_NE(desktop.find("\nExec=blockscope"), std::string::npos) << desktop;
  EXPECT_NE(desktop.find("\nIcon=blockscope\n"), std::string::npos) << desktop;
  if (have("desktop-file-validate")) {
    const Command v = run_command("desktop-file-validate " +
                                  q((prefix / "share/applications/blockscope.desktop").string()));
    EXPECT_EQ(v.exit_code, 0) << v.output;
    EXPECT_EQ(v.output.find("error"), std::string::npos) << v.output;
  }

  // The installed binary runs (its libraries are found from the prefix, not the build tree).
  const Command ver = run_command(q((prefix / "bin/blockscope").string()) + " --version");
  EXPECT_EQ(ver.exit_code, 0) << ver.output;
  EXPECT_NE(ver.output.find("blockscope "), std::string::npos) << ver.output;
  // It finds the course pack installed beside it, not the source tree's.
  const Command list = run_command("env -u BLOCKSCOPE_EXERCISES " + q((prefix / "bin/blockscope").string()) +
                                   " exercise list");
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find((prefix / "share/blockscope/exercises").string()), std::string::npos) << list.output;
  fs::remove_all(prefix);
}

TEST(Packaging, DebianPackage) {
  if (!have("dpkg-deb")) GTEST_SKIP() << "dpkg-deb is not installed: no .deb to check";
  const fs::path out = fs::path(BS_TEST_OUT) / "deb";
  fs::remove_all(out);
  fs::create_directories(out);
  const Command pack =
      run_command("cd " + q(BS_BUILD_DIR) + " && " + q(BS_CPACK) + " -G DEB -B " + q(out.string()));
  ASSERT_EQ(pack.exit_code, 0) << pack.output;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << "no .deb in " << out << "\n" << pack.output;

  const Command info = run_command("dpkg-deb -I " + q(deb.string()));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  for (const char* field :
       {"Package: blockscope", "Architecture: amd64", "Section: science", "Depends:", "libglfw3", "libgomp1",
        "libopenblas0", "libstb0", "libegl1", "Recommends:", "libcublas-13-0", "linked statically",
        "Description: live CUDA kernel explorer"})
    EXPECT_NE(info.output.find(field), std::string::npos) << field << " missing in\n" << info.output;

  const Command contents = run_command("dpkg-deb -c " + q(deb.string()));
  ASSERT_EQ(contents.exit_code, 0) << contents.output;
  for (const char* f : k_installed)
    EXPECT_NE(contents.output.find(std::string("./usr/") + f), std::string::npos) << f << " missing in\n"
                                                                                  << contents.output;
  EXPECT_EQ(contents.output.find("gtest"), std::string::npos) << "test files in the package";
  fs::remove_all(out);
}

}  // namespace
