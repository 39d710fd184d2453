// shell_rules_test.cpp: rules of the app's source that no compiler checks. app/ and ui/ use ImGui's public
// API only: imgui_internal.h changes between ImGui versions without notice (Debian's libimgui-dev moves with
// them), and the layout reads windows through Begin / GetWindowPos instead of ImGui's window list.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(ShellRules, NoImguiInternalInAppOrUi) {
  int files = 0;
  for (const char* top : {"app", "ui"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(BS_SOURCE_DIR) / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh")) continue;
      ++files;
      std::ifstream f(e.path());
      const std::string text((std::istreambuf_iterator<char>(f)), {});
      EXPECT_EQ(text.find("imgui_internal"), std::string::npos) << e.path() << " uses ImGui's internal API";
    }
  }
  EXPECT_GT(files, 20);  // the folders were found
}

}  // namespace
