// cpu_job_test.cpp: background CPU work reports progress, can be cancelled, and hands back errors.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/cpu_job.h"

namespace bs {

TEST(CpuJob, RunsToCompletionWithProgress) {
  CpuJob job;
  int result = 0;
  job.start("sum", [&](JobControl& c) {
    for (int i = 1; i <= 100; ++i) {
      result += i;
      c.set_progress(i / 100.0);
    }
  });
  job.wait();
  EXPECT_EQ(job.state(), CpuJob::State::Done);
  EXPECT_EQ(result, 5050);
  EXPECT_DOUBLE_EQ(job.progress(), 1.0);
}

TEST(CpuJob, CancelStopsLongWork) {
  CpuJob job;
  job.start("forever", [](JobControl& c) {
    while (true) {
      if (c.cancelled()) throw JobCancelled{};
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(job.running());
  const auto t0 = std::chrono::steady_clock::now();
  job.cancel();
  job.wait();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(job.state(), CpuJob::State::Cancelled);
}

TEST(CpuJob, ErrorsAreReported) {
  CpuJob job;
  job.start("fails", [](JobControl&) { throw std::runtime_error("out of patience"); });
  job.wait();
  EXPECT_EQ(job.state(), CpuJob::State::Failed);
  EXPECT_EQ(job.error(), "out of patience");
}

}  // namespace bs
