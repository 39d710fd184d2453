// cpu_job_test.cpp: background CPU work reports progress, can be cancelled, and hands back errors; poll_job
// and finish_job map each job state to a panel's running flag, progress and status line the same way for
// every lab.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
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

// What a lab's panel shows of one job.
struct PanelView {
  bool running = false;
  double progress = -1;
  std::string status = "(untouched)";
  int taken = 0;  // how often on_done ran
};

bool poll(const CpuJob& job, PanelView& v) {
  return poll_job(job, v.running, v.progress, v.status, [&] { ++v.taken; });
}

TEST(PollJob, IdleWritesNothingButRunningAndProgress) {
  CpuJob job;
  PanelView v;
  EXPECT_FALSE(poll(job, v));
  EXPECT_FALSE(v.running);
  EXPECT_DOUBLE_EQ(v.progress, 0.0);
  EXPECT_EQ(v.status, "(untouched)");
  EXPECT_EQ(v.taken, 0);
}

TEST(PollJob, RunningShowsProgressAndKeepsTheStatusLine) {
  CpuJob job;
  std::atomic<bool> half{false}, release{false};
  job.start("waits", [&](JobControl& c) {
    c.set_progress(0.5);
    half = true;
    while (!release && !c.cancelled())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (!half)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  PanelView v;
  v.status = "first the reference, then the timed runs";  // a lab's own line while it runs
  EXPECT_FALSE(poll(job, v));
  EXPECT_TRUE(v.running);
  EXPECT_DOUBLE_EQ(v.progress, 0.5);
  EXPECT_EQ(v.status, "first the reference, then the timed runs");
  EXPECT_EQ(v.taken, 0);
  release = true;
  job.wait();
}

TEST(PollJob, DoneTakesTheResultAndClearsTheStatusLine) {
  CpuJob job;
  job.start("quick", [](JobControl& c) { c.set_progress(1.0); });
  job.wait();
  PanelView v;
  v.status = "cancelled";  // from an earlier run
  EXPECT_TRUE(poll(job, v));
  EXPECT_FALSE(v.running);
  EXPECT_DOUBLE_EQ(v.progress, 1.0);
  EXPECT_EQ(v.status, "");
  EXPECT_EQ(v.taken, 1);
}

TEST(PollJob, CancelledSaysSo) {
  CpuJob job;
  job.start("forever", [](JobControl& c) {
    while (true) {
      if (c.cancelled()) throw JobCancelled{};
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  job.cancel();
  job.wait();
  PanelView v;
  EXPECT_TRUE(poll(job, v));
  EXPECT_FALSE(v.running);
  EXPECT_EQ(v.status, "cancelled");
  EXPECT_EQ(v.taken, 0);
}

TEST(PollJob, FailedShowsTheError) {
  CpuJob job;
  job.start("fails", [](JobControl&) { throw std::runtime_error("out of memory for the reference"); });
  job.wait();
  PanelView v;
  EXPECT_TRUE(poll(job, v));
  EXPECT_FALSE(v.running);
  EXPECT_EQ(v.status, "out of memory for the reference");
  EXPECT_EQ(v.taken, 0);
}

// finish_job alone (labs that take a result once, behind their own flag): the same mapping, no progress.
TEST(PollJob, FinishJobMapsOnlyEndedJobs) {
  CpuJob job;
  std::string status = "keep";
  int taken = 0;
  EXPECT_FALSE(finish_job(job, status, [&] { ++taken; }));
  EXPECT_EQ(status, "keep");
  job.start("quick", [](JobControl&) {});
  job.wait();
  EXPECT_TRUE(finish_job(job, status, [&] {
    ++taken;
    status = "set by the lab";  // on_done runs after the clear, so a lab may write its own line
  }));
  EXPECT_EQ(taken, 1);
  EXPECT_EQ(status, "set by the lab");
  EXPECT_TRUE(finish_job(job, status));  // no on_done: only the status line
  EXPECT_EQ(status, "");
}

}  // namespace bs
