// kernel_workbench_test.cpp: the kernel editor's workbench: a compile through the service reaches
// UserKernels, an error keeps the last good kernel (and says so), auto-compile waits for a pause, templates
// are undoable, sessions round-trip and a corrupt "kernel" member is refused naming the field with nothing
// changed, and without NVRTC the editor says why. The fake compiler makes these exact; the last tests use the
// real NVRTC (no GPU needed) and skip where it cannot be loaded.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "app/kernel/kernel_workbench.h"
#include "app/session.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs {
namespace {

using namespace std::chrono_literals;

// "good" anywhere in the source compiles; anything else is an error on line 2.
kernel::CompileResult fake_compile(const kernel::CompileRequest& r) {
  kernel::CompileResult out;
  out.arch = r.arch;
  out.kernel_name = "k";
  if (r.source.find("good") != std::string::npos) {
    out.status = kernel::CompileStatus::Ok;
    out.message = "compiled";
    out.ptx = ".version 9.0\n";
  } else {
    out.status = kernel::CompileStatus::CompileError;
    out.message = "1 error";
    kernel::Diagnostic d;
    d.line = 2;
    d.message = "identifier \"x\" is undefined";
    out.diagnostics.push_back(d);
    kernel::Diagnostic w;
    w.line = 0;
    w.severity = kernel::Severity::Warning;
    w.origin = kernel::Origin::Compiler;
    w.message = "not on a line";
    out.diagnostics.push_back(w);
  }
  return out;
}

// Compiles now and waits for the result to be taken.
void compile_and_take(KernelWorkbench& wb, double now = 100.0) {
  const uint64_t t = wb.compile_now(now);
  ASSERT_NE(t, 0u);
  const auto p = wb.service().wait(t, 60s);
  ASSERT_EQ(p.state, kernel::CompileState::Done);
  wb.update(now + 0.01);
}

TEST(KernelWorkbench, StartsWithEachTargetsTemplate) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  for (auto t : {kernel::Target::Heat, kernel::Target::Vector, kernel::Target::Matmul})
    EXPECT_EQ(wb.document(t).text(),
              kernel::template_source(*kernel::find_template(kernel::k_target_names.name_of(t))));
  EXPECT_FALSE(wb.document(kernel::Target::Heat).can_undo());
}

TEST(KernelWorkbench, GoodCompileIsPublished) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  wb.document(kernel::Target::Heat).reset("good kernel");
  wb.options(kernel::Target::Heat).fast_math = true;
  compile_and_take(wb);
  const UserKernel cur = k.current(kernel::Target::Heat);
  ASSERT_TRUE(cur);
  EXPECT_EQ(cur.source, "good kernel");
  EXPECT_TRUE(cur.options.fast_math);
  EXPECT_FALSE(k.has(kernel::Target::Vector));
  wb.refresh_model(100.1);
  EXPECT_EQ(wb.model().status, ui::KernelPanelModel::Status::Ok);
  EXPECT_NE(wb.model().last_good_text.find("published to the heat lab"), std::string::npos)
      << wb.model().last_good_text;
}

TEST(KernelWorkbench, ErrorKeepsTheLastGoodKernelAndMarksTheLine) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  ui::CodeDocument& doc = wb.document(kernel::Target::Heat);
  doc.reset("good kernel");
  compile_and_take(wb);
  const uint64_t g = k.generation(kernel::Target::Heat);
  doc.edited("good kernel\nbroken", 18, 1.0);
  doc.replace("bad\nx;", "typing");
  compile_and_take(wb, 200.0);
  EXPECT_EQ(k.generation(kernel::Target::Heat), g);  // not replaced
  EXPECT_EQ(k.current(kernel::Target::Heat).source, "good kernel");
  EXPECT_EQ(k.last_failure(kernel::Target::Heat), "1 error");
  ASSERT_EQ(doc.markers().size(), 1u);  // the line-less warning is a message, not a marker
  EXPECT_EQ(doc.markers()[0].line, 2);
  EXPECT_EQ(doc.markers()[0].level, ui::LineMarker::Level::Error);
  wb.refresh_model(200.1);
  const auto& m = wb.model();
  EXPECT_EQ(m.status, ui::KernelPanelModel::Status::Failed);
  EXPECT_EQ(m.last_good_text.rfind("running the last good kernel (compiled ", 0), 0u) << m.last_good_text;
  ASSERT_EQ(m.messages.size(), 2u);
  EXPECT_EQ(m.messages[0].line, 2);
  EXPECT_FALSE(m.messages[1].error);
  // Fixing it publishes again and clears the markers.
  doc.replace("good again", "typing");
  compile_and_take(wb, 300.0);
  EXPECT_GT(k.generation(kernel::Target::Heat), g);
  EXPECT_TRUE(doc.markers().empty());
}

TEST(KernelWorkbench, ErrorWithNoGoodKernelSaysTheLabKeepsItsOwn) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  wb.set_target(kernel::Target::Vector);
  wb.document(kernel::Target::Vector).reset("bad");
  compile_and_take(wb);
  wb.refresh_model(101);
  EXPECT_NE(wb.model().last_good_text.find("keeps its built-in kernel"), std::string::npos);
  EXPECT_FALSE(k.has(kernel::Target::Vector));
}

TEST(KernelWorkbench, AutoCompileWaitsForAPauseWhileOpen) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  wb.document(kernel::Target::Heat).reset("good");
  wb.update(10.0);  // closed: nothing compiles
  EXPECT_EQ(wb.service().poll().ticket, 0u);
  wb.open() = true;
  wb.update(10.1);  // the first time it is seen: the pause starts
  EXPECT_EQ(wb.service().poll().ticket, 0u);
  wb.document(kernel::Target::Heat).edited("good!", 5, 10.2);
  wb.update(10.3);  // typing again restarts the pause
  EXPECT_EQ(wb.service().poll().ticket, 0u);
  wb.update(10.3 + KernelWorkbench::k_pause_s + 0.01);
  const uint64_t t = wb.service().poll().ticket;
  ASSERT_NE(t, 0u);
  wb.service().wait(t, 60s);
  wb.update(11.5);
  EXPECT_EQ(k.current(kernel::Target::Heat).source, "good!");
  wb.update(12.0);  // nothing new: no new compile
  EXPECT_EQ(wb.service().poll().ticket, t);
}

TEST(KernelWorkbench, TemplateLoadIsUndoableAndSwitchesTarget) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  ui::CodeDocument& doc = wb.document(kernel::Target::Matmul);
  doc.reset("my own matmul");
  ASSERT_TRUE(wb.load_template("matmul-tiled"));
  EXPECT_EQ(wb.target(), kernel::Target::Matmul);
  EXPECT_NE(doc.text(), "my own matmul");
  ASSERT_TRUE(doc.undo());
  EXPECT_EQ(doc.text(), "my own matmul");
  EXPECT_FALSE(wb.load_template("no-such-template"));
}

TEST(KernelWorkbench, FilesLoadAndSaveWithClearErrors) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  const std::string dir = std::string(BS_TEST_OUT) + "/kernel_ui";
  std::filesystem::create_directories(dir);
  wb.document(kernel::Target::Heat).reset("// mine\ngood");
  std::string err;
  ASSERT_TRUE(wb.save_file(dir + "/mine.cu", &err)) << err;
  wb.document(kernel::Target::Heat).reset("other");
  ASSERT_TRUE(wb.load_file(dir + "/mine.cu", &err)) << err;
  EXPECT_EQ(wb.document(kernel::Target::Heat).text(), "// mine\ngood");
  EXPECT_TRUE(wb.document(kernel::Target::Heat).can_undo());
  EXPECT_FALSE(wb.load_file(dir + "/missing.cu", &err));
  EXPECT_NE(err.find("missing.cu"), std::string::npos) << err;
  EXPECT_FALSE(wb.load_file("", &err));
  EXPECT_FALSE(wb.save_file(dir, &err));  // a folder
  EXPECT_EQ(wb.document(kernel::Target::Heat).text(), "// mine\ngood");
}

TEST(KernelWorkbench, WithoutNvrtcTheEditorSaysWhy) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile, std::string("libnvrtc.so.13: cannot open shared object file"));
  EXPECT_FALSE(wb.nvrtc_available());
  EXPECT_EQ(wb.compile_now(1.0), 0u);
  wb.open() = true;
  wb.update(5.0);
  EXPECT_EQ(wb.service().poll().ticket, 0u);
  wb.refresh_model(5.0);
  EXPECT_FALSE(wb.model().nvrtc_available);
  EXPECT_NE(wb.model().nvrtc_message.find("libnvrtc"), std::string::npos);
}

TEST(KernelWorkbench, SessionRoundTrip) {
  UserKernels k;
  KernelWorkbench a(k, "", fake_compile);
  a.set_target(kernel::Target::Vector);
  a.document(kernel::Target::Vector).reset("good vector source\n");
  a.options(kernel::Target::Vector).maxrregcount = 32;
  a.options(kernel::Target::Vector).lineinfo = false;
  a.arch(kernel::Target::Vector) = 80;
  const nlohmann::json state = a.save_state();
  EXPECT_EQ(KernelWorkbench::check_state(state), std::nullopt);

  // Through a session file and back.
  Session s;
  s.active_lab = "heat";
  s.open_labs = {"heat"};
  s.kernel = state;
  const SessionResult parsed = parse_session(to_json(s).dump(), "test");
  ASSERT_TRUE(parsed.session) << parsed.error;
  EXPECT_EQ(parsed.session->kernel, state);

  UserKernels k2;
  KernelWorkbench b(k2, "", fake_compile);
  ASSERT_EQ(b.load_state(parsed.session->kernel), std::nullopt);
  EXPECT_EQ(b.target(), kernel::Target::Vector);
  EXPECT_EQ(b.document(kernel::Target::Vector).text(), "good vector source\n");
  EXPECT_TRUE(b.document(kernel::Target::Vector).can_undo());  // the text before the session is one undo away
  EXPECT_EQ(b.options(kernel::Target::Vector).maxrregcount, 32);
  EXPECT_FALSE(b.options(kernel::Target::Vector).lineinfo);
  EXPECT_EQ(b.arch(kernel::Target::Vector), 80);
  EXPECT_EQ(b.save_state(), state);
  // A loaded session compiles its target even with the window closed, and publishes it.
  b.update(1.0);
  const uint64_t t = b.service().poll().ticket;
  ASSERT_NE(t, 0u);
  b.service().wait(t, 60s);
  b.update(2.0);
  EXPECT_EQ(k2.current(kernel::Target::Vector).source, "good vector source\n");
}

TEST(KernelWorkbench, CorruptSessionMemberIsRefusedAndChangesNothing) {
  UserKernels k;
  KernelWorkbench wb(k, "", fake_compile);
  const nlohmann::json before = wb.save_state();
  struct Case {
    nlohmann::json j;
    std::string field;
  };
  const std::vector<Case> cases = {
      {nlohmann::json::array(), "kernel"},
      {{{"target", "cuda"}}, "kernel.target"},
      {{{"auto_compile", "yes"}}, "kernel.auto_compile"},
      {{{"colour", 1}}, "colour"},
      {{{"documents", {{"heat", {{"maxrregcount", 8}}}}}}, "kernel.documents.heat.maxrregcount"},
      {{{"documents", {{"heat", {{"maxrregcount", 999}}}}}}, "kernel.documents.heat.maxrregcount"},
      {{{"documents", {{"vector", {{"arch", "sm_61"}}}}}}, "kernel.documents.vector.arch"},
      {{{"documents", {{"vector", {{"source", 42}}}}}}, "kernel.documents.vector.source"},
      {{{"documents", {{"reduce", {{"source", "x"}}}}}}, "kernel.documents.reduce"},
      {{{"documents", {{"matmul", {{"fast_math", 1}}}}}}, "kernel.documents.matmul.fast_math"},
      {{{"documents", "all"}}, "kernel.documents"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = c.j;
    if (j.is_object() && j.contains("documents") && j["documents"].is_object())
      j["target"] = "matmul";  // a good member next to the bad one must not be applied either
    const auto err = wb.load_state(j);
    ASSERT_TRUE(err) << j.dump();
    EXPECT_NE(err->find(c.field), std::string::npos) << *err;
    EXPECT_EQ(wb.save_state(), before) << j.dump();
    // The session parser refuses the same.
    Session s;
    s.active_lab = "heat";
    s.open_labs = {"heat"};
    nlohmann::json file = to_json(s);
    file["kernel"] = j;
    EXPECT_FALSE(parse_session(file.dump(), "test").session) << j.dump();
  }
  // Too long a source.
  nlohmann::json big = {
      {"documents", {{"heat", {{"source", std::string(KernelWorkbench::k_max_source_bytes + 1, 'a')}}}}}};
  const auto err = wb.load_state(big);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("kernel.documents.heat.source"), std::string::npos) << *err;
}

// --- With the real NVRTC (no GPU needed)
// --------------------------------------------------------------------

class KernelWorkbenchNvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << kernel::nvrtc().error;
  }
};

TEST_F(KernelWorkbenchNvrtc, HeatTemplateCompilesPublishesAndMapsPtx) {
  UserKernels k;
  KernelWorkbench wb(k, "");
  ASSERT_TRUE(wb.nvrtc_available());
  compile_and_take(wb);
  const UserKernel cur = k.current(kernel::Target::Heat);
  ASSERT_TRUE(cur) << (wb.last_result(kernel::Target::Heat) ? wb.last_result(kernel::Target::Heat)->log : "");
  EXPECT_FALSE(cur.result->cubin.empty());
  wb.refresh_model(101);
  const auto& m = wb.model();
  EXPECT_EQ(m.status, ui::KernelPanelModel::Status::Ok);
  EXPECT_FALSE(m.ptx.empty());
  EXPECT_FALSE(m.ptx_blocks.empty());  // -lineinfo is on by default
  ASSERT_GE(m.resources.size(), 2u);
  EXPECT_NE(m.resources[0].find("registers"), std::string::npos);
  EXPECT_NE(m.resources[1].find("occupancy"), std::string::npos) << m.resources[1];
}

TEST_F(KernelWorkbenchNvrtc, TypedErrorMarksItsLineAndKeepsTheLastGood) {
  UserKernels k;
  KernelWorkbench wb(k, "");
  compile_and_take(wb);
  ASSERT_TRUE(k.has(kernel::Target::Heat));
  ui::CodeDocument& doc = wb.document(kernel::Target::Heat);
  // An undefined name on a line of its own inside the kernel body.
  std::string src = doc.text();
  const int line = kernel::find_kernel_line(src, "heat_step");
  ASSERT_GT(line, 0);
  const size_t brace = src.find('{', static_cast<size_t>(ui::line_start(src, line)));
  ASSERT_NE(brace, std::string::npos);
  src.insert(brace + 1, "\n  undefined_name = 1;");
  const int bad_line = ui::line_of(src, static_cast<int>(brace) + 2);
  doc.replace(src, "typing");
  compile_and_take(wb, 300);
  ASSERT_FALSE(doc.markers().empty());
  EXPECT_EQ(doc.markers()[0].line, bad_line);
  EXPECT_NE(doc.markers()[0].message.find("undefined_name"), std::string::npos) << doc.markers()[0].message;
  EXPECT_NE(k.current(kernel::Target::Heat).source, src);
  wb.refresh_model(301);
  EXPECT_EQ(wb.model().last_good_text.rfind("running the last good kernel", 0), 0u);
  EXPECT_FALSE(wb.model().ptx.empty());  // the last good kernel's PTX stays in the pane
}

}  // namespace
}  // namespace bs
