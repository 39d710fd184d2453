// lab_jobs_test.cpp: the labs' background-job helper (app/shell/lab_jobs.h): progress and the result taken
// once on the frame thread, cancel, a failure's message, a GPU error carried to the shell's recovery, and the
// headless drain.
#include "app/shell/lab_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "app/lab.h"
#include "core/error.h"

namespace bs {
namespace {

// A GL context that only answers "headless?" (the helper reads nothing else).
class FakeContext final : public gl::Context {
 public:
  explicit FakeContext(bool headless) { m_info.headless = headless; }
  const gl::ContextInfo& info() const override { return m_info; }
  int width() const override { return 1; }
  int height() const override { return 1; }
  bool should_close() const override { return false; }
  void request_close() override {}
  void poll_events() override {}
  void bind_target() override {}
  void present() override {}
  void resize(int, int) override {}

 private:
  gl::ContextInfo m_info;
};

// Spins until `flag` is set (a worker's step), failing the test after a few seconds instead of hanging.
void wait_for(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(flag.load()) << "the worker never reached its step";
}

struct Panel {
  bool running = false;
  double progress = 0;
  std::string status = "old status";
};

TEST(LabJobs, ShowsProgressAndTakesTheResultOnceOnTheFrameThread) {
  LabJobs jobs;
  LabJob job;
  Panel panel;
  jobs.attach(job, {&panel.running, &panel.progress, &panel.status});
  std::atomic<bool> halfway{false}, go_on{false};
  int result = 0;
  int taken = 0;
  auto value = std::make_shared<int>(0);
  job.start("count", [&, value](JobControl& ctl) {
    ctl.set_progress(0.5);
    halfway = true;
    while (!go_on) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    *value = 42;
    ctl.set_progress(1.0);
  }, [&, value] {
    result = *value;
    ++taken;
  });
  wait_for(halfway);
  jobs.poll();
  EXPECT_TRUE(panel.running);
  EXPECT_DOUBLE_EQ(panel.progress, 0.5);
  EXPECT_TRUE(jobs.busy());
  EXPECT_EQ(taken, 0);
  go_on = true;
  job.wait();
  jobs.poll();
  jobs.poll();
  EXPECT_FALSE(panel.running);
  EXPECT_EQ(panel.status, "");
  EXPECT_EQ(result, 42);
  EXPECT_EQ(taken, 1) << "the result is taken once, however often the frame polls";
  EXPECT_FALSE(jobs.busy());
}

TEST(LabJobs, CancelEndsTheJobWithoutItsResult) {
  LabJobs jobs;
  LabJob job;
  Panel panel;
  jobs.attach(job, {&panel.running, &panel.progress, &panel.status});
  std::atomic<bool> started{false};
  bool taken = false;
  job.start("endless", [&](JobControl& ctl) {
    started = true;
    while (!ctl.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    throw JobCancelled{};
  }, [&] { taken = true; });
  wait_for(started);
  job.cancel();
  job.wait();
  jobs.poll();
  EXPECT_EQ(panel.status, "cancelled");
  EXPECT_FALSE(taken);
  EXPECT_FALSE(panel.running);
}

TEST(LabJobs, AFailureShowsItsMessageAndIsNotAGpuError) {
  LabJobs jobs;
  LabJob job;
  Panel panel;
  jobs.attach(job, {nullptr, nullptr, &panel.status});
  job.start("bad input", [](JobControl&) { throw std::runtime_error("n must be positive"); });
  job.wait();
  jobs.poll();
  EXPECT_EQ(panel.status, "n must be positive");
  FakeContext window(false);
  LabEnv env;
  env.gl = &window;
  EXPECT_NO_THROW(jobs.finish_update(env));
}

TEST(LabJobs, AGpuErrorInTheWorkerIsRethrownOnceForTheShellsRecovery) {
  LabJobs jobs;
  LabJob job;
  Panel panel;
  jobs.attach(job, {&panel.running, &panel.progress, &panel.status});
  bool taken = false;
  int seen_code = 0;
  job.start("the GPU ladder", [](JobControl&) { throw GpuError("cudaErrorIllegalAddress: boom", 700, true); },
            [&] { taken = true; }, [&](const GpuError& e) { seen_code = e.code(); });
  job.wait();
  FakeContext window(false);
  LabEnv env;
  env.gl = &window;
  jobs.poll();
  EXPECT_EQ(panel.status, "the GPU failed during the GPU ladder (see the Device window)");
  EXPECT_FALSE(taken);
  EXPECT_EQ(seen_code, 700) << "on_gpu_error saw the error on the frame thread";
  EXPECT_TRUE(jobs.has_gpu_error());
  try {
    jobs.finish_update(env);
    ADD_FAILURE() << "the GPU error was not rethrown";
  } catch (const GpuError& e) {
    EXPECT_EQ(e.code(), 700);
    EXPECT_TRUE(e.sticky());
  }
  EXPECT_NO_THROW(jobs.finish_update(env)) << "rethrown once only";
}

TEST(LabJobs, HeadlessUpdateDrainsJobsAndQueuedWorkButAWindowDoesNot) {
  for (bool headless : {false, true}) {
    SCOPED_TRACE(headless ? "headless" : "window");
    LabJobs jobs;
    LabJob first, second;
    Panel p1, p2;
    jobs.attach(first, {&p1.running, &p1.progress, &p1.status});
    jobs.attach(second, {&p2.running, &p2.progress, &p2.status});
    std::atomic<bool> release{false};
    int queued = 1;  // one more piece of work waits in the lab's queue
    int done = 0;
    first.start("slow", [&](JobControl&) {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }, [&] { ++done; });
    FakeContext gl(headless);
    LabEnv env;
    env.gl = &gl;
    const auto run_queue = [&] {
      if (queued == 0 || second.running()) return;
      --queued;
      second.start("queued", [](JobControl& ctl) { ctl.set_progress(1); }, [&] { ++done; });
    };
    if (headless) {
      std::thread releaser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        release = true;
      });
      jobs.finish_update(env, run_queue, [&] { return queued > 0; });
      releaser.join();
      EXPECT_EQ(done, 2) << "both the running job and the queued one finished inside update()";
      EXPECT_FALSE(jobs.busy());
      EXPECT_FALSE(p1.running);
      EXPECT_FALSE(p2.running);
    } else {
      jobs.finish_update(env, run_queue, [&] { return queued > 0; });
      EXPECT_EQ(done, 0) << "a window's frame never waits for the work";
      EXPECT_TRUE(jobs.busy());
      release = true;
      first.wait();
    }
  }
}

TEST(LabJobs, AJobOutlivedByNoOneLeavesItsSetCleanly) {
  LabJobs jobs;
  {
    LabJob job;
    jobs.attach(job);
    job.start("short", [](JobControl&) {});
  }  // destroyed: joined and detached
  EXPECT_FALSE(jobs.busy());
  jobs.poll();  // would touch a destroyed job if it were still attached
}

}  // namespace
}  // namespace bs
