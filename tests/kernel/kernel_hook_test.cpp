// kernel_hook_test.cpp: the heat lab's hook for the user's kernel, driven through the app (headless, CPU
// path, as CI runs it): the choice is part of the lab's session state, a bad value is refused naming the
// member, and without a GPU the choice says it needs one while the lab keeps running on the CPU.
#include <gtest/gtest.h>

#include <string>

#include "app/app.h"
#include "app/heat/heat_lab.h"
#include "app/kernel/user_kernels.h"
#include "app/session.h"
#include "gpu/kernel/compiler.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs {
namespace {

using json = nlohmann::json;

AppOptions headless_cpu() {
  AppOptions o;
  o.headless = true;
  o.render_path = PathRequest::Cpu;
  o.width = 1280;
  o.height = 720;
  o.scene = "heat";
  o.heat.nx = o.heat.ny = 128;
  return o;
}

Session heat_session(const json& state) {
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  s.labs["heat"] = state;
  return s;
}

HeatLab& heat_of(App& app) {
  auto* lab = dynamic_cast<HeatLab*>(app.active_lab());
  EXPECT_NE(lab, nullptr);
  return *lab;
}

TEST(HeatUserKernelHook, TheChoiceIsSavedAndWithoutAGpuSaysItNeedsOne) {
  App app(headless_cpu());
  ASSERT_TRUE(app.frame());
  EXPECT_EQ(heat_of(app).save_state()["kernel"], "built-in");
  ASSERT_FALSE(
      app.apply_session(heat_session({{"kernel", "user"}, {"paused", false}, {"steps_per_frame", 2}})));
  for (int i = 0; i < 4; ++i)
    app.frame();
  HeatLab& lab = heat_of(app);
  EXPECT_EQ(lab.model().kernel, 1);
  EXPECT_NE(lab.model().user_kernel_status.find("needs a GPU"), std::string::npos)
      << lab.model().user_kernel_status;
  EXPECT_FALSE(lab.model().user_kernel_running);
  EXPECT_GT(lab.steps_done(), 0);  // the CPU step runs meanwhile
  EXPECT_EQ(lab.save_state()["kernel"], "user");
}

TEST(HeatUserKernelHook, APublishedKernelStillNeedsAGpuToRun) {
  if (!kernel::nvrtc().ok()) GTEST_SKIP() << kernel::nvrtc().error;
  App app(headless_cpu());
  kernel::CompileRequest req;
  req.source = std::string(kernel::template_source(*kernel::find_template("heat")));
  req.target = kernel::Target::Heat;
  auto result = std::make_shared<const kernel::CompileResult>(kernel::compile_kernel(req));
  ASSERT_TRUE(result->ok()) << result->message;
  app.user_kernels().publish(req, result, "heat template");
  ASSERT_FALSE(app.apply_session(heat_session({{"kernel", "user"}})));
  app.frame();
  EXPECT_NE(heat_of(app).model().user_kernel_status.find("needs a GPU"), std::string::npos);
  // Not running, so not in use: experiment records do not claim it.
  EXPECT_FALSE(app.user_kernels().in_use(kernel::Target::Heat));
}

TEST(HeatUserKernelHook, ABadChoiceIsRefusedNamingTheMember) {
  App app(headless_cpu());
  ASSERT_TRUE(app.frame());
  const auto err = app.apply_session(heat_session({{"kernel", "mine"}}));
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("kernel"), std::string::npos) << *err;
  EXPECT_EQ(heat_of(app).model().kernel, 0);
}

}  // namespace
}  // namespace bs
