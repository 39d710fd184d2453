// user_kernels_test.cpp: the published user kernels: only good compiles, generations, last good kept.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "app/kernel/user_kernels.h"

namespace bs {
namespace {

std::shared_ptr<const kernel::CompileResult> result_of(kernel::CompileStatus s, std::string msg = "m") {
  auto r = std::make_shared<kernel::CompileResult>();
  r->status = s;
  r->message = std::move(msg);
  return r;
}

kernel::CompileRequest request_for(kernel::Target t, std::string source) {
  kernel::CompileRequest r;
  r.source = std::move(source);
  r.target = t;
  r.options.fast_math = true;
  r.arch = 89;
  return r;
}

TEST(UserKernels, EmptyUntilPublished) {
  UserKernels k;
  for (auto t : {kernel::Target::Heat, kernel::Target::Vector, kernel::Target::Matmul}) {
    EXPECT_FALSE(k.has(t));
    EXPECT_EQ(k.generation(t), 0u);
    EXPECT_FALSE(k.current(t));
    EXPECT_EQ(k.current(t).compiled_at_text(), "");
  }
}

TEST(UserKernels, PublishKeepsSourceOptionsAndBumpsGeneration) {
  UserKernels k;
  const auto g1 = k.publish(request_for(kernel::Target::Heat, "src one"),
                            result_of(kernel::CompileStatus::Ok), "heat template");
  EXPECT_GT(g1, 0u);
  const UserKernel cur = k.current(kernel::Target::Heat);
  ASSERT_TRUE(cur);
  EXPECT_EQ(cur.generation, g1);
  EXPECT_EQ(cur.source, "src one");
  EXPECT_TRUE(cur.options.fast_math);
  EXPECT_EQ(cur.arch, 89);
  EXPECT_EQ(cur.name, "heat template");
  EXPECT_EQ(cur.compiled_at_text().size(), 8u);  // HH:MM:SS
  EXPECT_FALSE(k.has(kernel::Target::Vector));

  const auto g2 = k.publish(request_for(kernel::Target::Vector, "v"), result_of(kernel::CompileStatus::Ok));
  const auto g3 =
      k.publish(request_for(kernel::Target::Heat, "src two"), result_of(kernel::CompileStatus::Ok));
  EXPECT_NE(g2, g1);
  EXPECT_NE(g3, g1);
  EXPECT_NE(g3, g2);
  EXPECT_EQ(k.generation(kernel::Target::Heat), g3);
  EXPECT_EQ(k.current(kernel::Target::Heat).source, "src two");
  EXPECT_EQ(k.current(kernel::Target::Vector).source, "v");
  // A copy taken before stays valid after the next publish.
  EXPECT_EQ(cur.source, "src one");
}

TEST(UserKernels, RefusesWhatCannotRunAndKeepsTheLastGood) {
  UserKernels k;
  const auto g = k.publish(request_for(kernel::Target::Matmul, "good"), result_of(kernel::CompileStatus::Ok));
  EXPECT_THROW(k.publish(request_for(kernel::Target::Matmul, "bad"),
                         result_of(kernel::CompileStatus::CompileError, "2 errors")),
               std::invalid_argument);
  EXPECT_THROW(k.publish(request_for(kernel::Target::Matmul, "bad"), nullptr), std::invalid_argument);
  kernel::CompileRequest no_target = request_for(kernel::Target::Matmul, "x");
  no_target.target.reset();
  EXPECT_THROW(k.publish(no_target, result_of(kernel::CompileStatus::Ok)), std::invalid_argument);
  EXPECT_EQ(k.generation(kernel::Target::Matmul), g);
  EXPECT_EQ(k.current(kernel::Target::Matmul).source, "good");
}

TEST(UserKernels, FailureNoteClearedByTheNextGoodCompile) {
  UserKernels k;
  k.note_failure(kernel::Target::Heat, "2 errors");
  EXPECT_EQ(k.last_failure(kernel::Target::Heat), "2 errors");
  EXPECT_EQ(k.last_failure(kernel::Target::Vector), "");
  k.publish(request_for(kernel::Target::Heat, "s"), result_of(kernel::CompileStatus::Ok));
  EXPECT_EQ(k.last_failure(kernel::Target::Heat), "");
}

TEST(UserKernels, ClearGoesBackToBuiltIn) {
  UserKernels k;
  const auto g = k.publish(request_for(kernel::Target::Heat, "s"), result_of(kernel::CompileStatus::Ok));
  k.clear(kernel::Target::Heat);
  EXPECT_FALSE(k.has(kernel::Target::Heat));
  const auto g2 = k.publish(request_for(kernel::Target::Heat, "s"), result_of(kernel::CompileStatus::Ok));
  EXPECT_GT(g2, g);  // generations are never reused
}

TEST(UserKernels, RecordHasTheSourceOfKernelsInUseOnly) {
  UserKernels k;
  EXPECT_TRUE(k.record_json().is_null());
  auto r = std::make_shared<kernel::CompileResult>();
  r->status = kernel::CompileStatus::Ok;
  r->kernel_name = "heat_step";
  r->nvrtc_version = "13.0";
  k.publish(request_for(kernel::Target::Heat, "the heat source"), r, "template heat");
  k.publish(request_for(kernel::Target::Vector, "the vector source"), r);
  EXPECT_TRUE(k.record_json().is_null());  // published but no lab runs it
  k.set_in_use(kernel::Target::Heat, true);
  k.set_in_use(kernel::Target::Matmul, true);  // in use but nothing published: nothing to record
  const nlohmann::json j = k.record_json();
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j["heat"]["source"], "the heat source");
  EXPECT_EQ(j["heat"]["kernel"], "heat_step");
  EXPECT_EQ(j["heat"]["arch"], "sm_89");
  EXPECT_EQ(j["heat"]["options"]["fast_math"], true);
  EXPECT_EQ(j["heat"]["nvrtc_version"], "13.0");
  k.set_in_use(kernel::Target::Heat, false);
  EXPECT_TRUE(k.record_json().is_null());
}

}  // namespace
}  // namespace bs
