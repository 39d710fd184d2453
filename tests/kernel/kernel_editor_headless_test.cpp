// kernel_editor_headless_test.cpp: the kernel editor in the headless app: it opens where NVRTC cannot be
// loaded and says why (the app keeps running), and in presenter mode it stays inside the window.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_util.h"

namespace bs {
namespace {

namespace fs = std::filesystem;

nlohmann::json run_headless(const std::string& name, const std::string& env, const std::string& args,
                            std::string* output) {
  const fs::path dir = fs::path(BS_TEST_OUT) / "kernel_editor_headless";
  fs::create_directories(dir);
  const fs::path dump = dir / (name + ".json");
  fs::remove(dump);
  const auto r = test::run_blockscope(
      "--headless --render-path cpu --frames 12 " + args + " --screenshot " + (dir / (name + ".png")).string(),
      "BLOCKSCOPE_KERNEL_EDITOR=1 BLOCKSCOPE_CACHE_DIR=" + (dir / "cache").string() +
          " BLOCKSCOPE_LAYOUT_DUMP=" + dump.string() + " " + env);
  *output = r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(dump);
  if (!f) return nullptr;
  return nlohmann::json::parse(f);
}

TEST(KernelEditorHeadless, OpensWithoutNvrtcAndSaysWhy) {
  std::string out;
  const auto d = run_headless("no_nvrtc", "BLOCKSCOPE_NVRTC_LIBRARY=libnvrtc-not-here.so.13", "", &out);
  ASSERT_TRUE(d.is_object()) << out;
  const auto& k = d["kernel_editor"];
  EXPECT_EQ(k["open"], true);
  EXPECT_NE(k["nvrtc_error"].get<std::string>().find("NVRTC"), std::string::npos) << k.dump();
  EXPECT_EQ(k["generation"], 0);
  bool shown = false;
  for (const auto& w : d["windows"]) shown |= w["name"] == "Kernel editor";
  EXPECT_TRUE(shown) << d.dump();
}

TEST(KernelEditorHeadless, PresenterModeKeepsItInsideTheWindow) {
  std::string out;
  const auto d = run_headless("presenter", "", "--presenter --width 1280 --height 720", &out);
  ASSERT_TRUE(d.is_object()) << out;
  for (const auto& w : d["windows"]) {
    if (w["name"] != "Kernel editor") continue;
    const auto& r = w["rect"];
    EXPECT_GE(r[0].get<float>(), -0.5f);
    EXPECT_LE(r[0].get<float>() + r[2].get<float>(), 1280.5f);
    EXPECT_LE(r[1].get<float>() + r[3].get<float>(), 720.5f);
    EXPECT_GT(r[2].get<float>(), 300.0f) << "too narrow to edit in";
    return;
  }
  ADD_FAILURE() << "no Kernel editor window: " << d.dump();
}

}  // namespace
}  // namespace bs
