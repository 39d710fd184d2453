// kernel_service_test.cpp: the compile service's contract with the UI: a burst of submissions delivers only
// the last, cancellation (queued and running), progress while compiling, cache hits that never touch NVRTC,
// and a clean shutdown with a compile in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <unistd.h>

#include "gpu/kernel/compile_service.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/nvrtc_loader.h"

namespace bs::kernel {
namespace {

using namespace std::chrono_literals;

// A stand-in for NVRTC: takes `delay`, counts calls, and answers with the source as the message, so a test
// knows which request a result belongs to.
struct FakeCompiler {
  std::chrono::milliseconds delay;
  std::atomic<int> calls{0};
  std::atomic<bool> inside{false};
  CompileResult operator()(const CompileRequest& r) {
    ++calls;
    inside = true;
    std::this_thread::sleep_for(delay);
    inside = false;
    CompileResult out;
    out.status = CompileStatus::Ok;
    out.message = r.source;
    return out;
  }
};

CompileRequest request(const std::string& source) {
  CompileRequest r;
  r.source = source;
  return r;
}

TEST(CompileService, StartsIdle) {
  FakeCompiler fake{1ms};
  CompileService service([&](const CompileRequest& r) { return fake(r); });
  const CompileProgress p = service.poll();
  EXPECT_EQ(p.state, CompileState::Idle);
  EXPECT_EQ(p.ticket, 0u);
  EXPECT_EQ(p.result, nullptr);
}

TEST(CompileService, BurstDeliversOnlyTheLast) {
  FakeCompiler fake{40ms};
  std::atomic<int> deliveries{0};
  std::string delivered_source;
  uint64_t delivered_ticket = 0;
  CompileService service([&](const CompileRequest& r) { return fake(r); },
                         [&](uint64_t ticket, const CompileResult& r) {
                           ++deliveries;
                           delivered_ticket = ticket;
                           delivered_source = r.message;
                         });
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    last = service.submit(request("edit " + std::to_string(i)));
    std::this_thread::sleep_for(3ms);  // typing speed: faster than a compile
  }
  EXPECT_EQ(last, 20u);
  const CompileProgress p = service.wait(last, 10s);
  ASSERT_EQ(p.state, CompileState::Done);
  ASSERT_NE(p.result, nullptr);
  EXPECT_EQ(p.result->message, "edit 19");
  EXPECT_EQ(p.ticket, last);
  EXPECT_EQ(deliveries.load(), 1);
  EXPECT_EQ(delivered_ticket, last);
  EXPECT_EQ(delivered_source, "edit 19");
  EXPECT_EQ(service.delivered(), 1u);
  // Most edits never reached the compiler; those that did were dropped when they returned.
  EXPECT_LT(fake.calls.load(), 20);
  EXPECT_EQ(service.dropped() + service.delivered(), 20u);
}

TEST(CompileService, ReportsCompilingWithElapsedTime) {
  FakeCompiler fake{200ms};
  CompileService service([&](const CompileRequest& r) { return fake(r); });
  const uint64_t t = service.submit(request("a"));
  while (!fake.inside)
    std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(30ms);
  const CompileProgress p = service.poll();
  EXPECT_EQ(p.state, CompileState::Compiling);
  EXPECT_EQ(p.ticket, t);
  EXPECT_GE(p.elapsed_ms, 25.0);
  EXPECT_EQ(p.result, nullptr);
  const CompileProgress done = service.wait(t, 10s);
  EXPECT_EQ(done.state, CompileState::Done);
  EXPECT_GE(done.elapsed_ms, 150.0);
}

TEST(CompileService, CancelWhileCompilingDropsTheResult) {
  FakeCompiler fake{150ms};
  std::atomic<int> deliveries{0};
  CompileService service([&](const CompileRequest& r) { return fake(r); },
                         [&](uint64_t, const CompileResult&) { ++deliveries; });
  const uint64_t t = service.submit(request("slow"));
  while (!fake.inside)
    std::this_thread::sleep_for(1ms);
  service.cancel();
  EXPECT_EQ(service.poll().state, CompileState::Cancelled);
  // Let the compile return: its result must not show up.
  while (fake.inside)
    std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(20ms);
  const CompileProgress p = service.poll();
  EXPECT_EQ(p.state, CompileState::Cancelled);
  EXPECT_EQ(p.ticket, t);
  EXPECT_EQ(p.result, nullptr);
  EXPECT_EQ(deliveries.load(), 0);
  EXPECT_EQ(service.dropped(), 1u);
  // The service goes on working after a cancel.
  const uint64_t t2 = service.submit(request("next"));
  const CompileProgress p2 = service.wait(t2, 10s);
  ASSERT_EQ(p2.state, CompileState::Done);
  EXPECT_EQ(p2.result->message, "next");
  EXPECT_EQ(deliveries.load(), 1);
}

TEST(CompileService, CancelQueuedNeverRuns) {
  FakeCompiler fake{100ms};
  CompileService service([&](const CompileRequest& r) { return fake(r); });
  service.submit(request("running"));
  while (!fake.inside)
    std::this_thread::sleep_for(1ms);
  service.submit(request("queued"));
  EXPECT_EQ(service.poll().state, CompileState::Queued);
  service.cancel();
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(fake.calls.load(), 1);  // "queued" never reached the compiler
  EXPECT_EQ(service.poll().state, CompileState::Cancelled);
  EXPECT_EQ(service.delivered(), 0u);
}

TEST(CompileService, DestructionWithACompileInFlightJoinsCleanly) {
  FakeCompiler fake{100ms};
  std::atomic<int> deliveries{0};
  {
    CompileService service([&](const CompileRequest& r) { return fake(r); },
                           [&](uint64_t, const CompileResult&) { ++deliveries; });
    service.submit(request("in flight"));
    while (!fake.inside)
      std::this_thread::sleep_for(1ms);
    service.submit(request("queued"));
  }
  EXPECT_EQ(deliveries.load(), 0);
  EXPECT_EQ(fake.calls.load(), 1);
}

TEST(CompileService, CacheHitsComeBackWithoutNvrtc) {
  if (!nvrtc().ok()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc().error;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("bs-kernel-service-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  KernelCache cache(dir);
  CompileService service([&](const CompileRequest& r) { return compile_cached(cache, r); });
  CompileRequest r;
  r.source = std::string(template_source(*find_template("vector")));
  r.target = Target::Vector;
  const CompileProgress first = service.wait(service.submit(r), 60s);
  ASSERT_EQ(first.state, CompileState::Done);
  ASSERT_TRUE(first.result->ok()) << first.result->message;
  EXPECT_FALSE(first.result->from_cache);
  const long long calls = nvrtc_compile_calls();
  const CompileProgress again = service.wait(service.submit(r), 60s);
  ASSERT_EQ(again.state, CompileState::Done);
  EXPECT_TRUE(again.result->from_cache);
  EXPECT_EQ(again.result->cubin, first.result->cubin);
  EXPECT_EQ(nvrtc_compile_calls(), calls);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bs::kernel
