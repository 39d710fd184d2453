// check_expect.h: what the exercise suites expect of a check (gpu/exercise/runner.h's CheckResult), in one
// place: NVRTC present (else the test skips, saying why), a kernel that passes every test, and a kernel whose
// first test fails on a named buffer. The assertions' messages say which test failed and why.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpu/exercise/runner.h"
#include "gpu/kernel/nvrtc_loader.h"

// Skips the current test where NVRTC cannot be loaded (the kernels are compiled at run time), saying why.
#define REQUIRE_NVRTC() \
  if (!::bs::kernel::nvrtc().ok()) GTEST_SKIP() << "NVRTC cannot be loaded: " << ::bs::kernel::nvrtc().error

namespace bs::exercise {

// The first failing test's check, else the check's error ("" when it passed).
inline std::string first_failure_text(const CheckResult& r) {
  return r.first_failure >= 0 ? r.tests[static_cast<size_t>(r.first_failure)].check : r.error;
}

// Compiled, no error, every test passed.
inline ::testing::AssertionResult passes_every_test(const CheckResult& r) {
  if (!r.compiled.ok) return ::testing::AssertionFailure() << "did not compile: " << r.compiled.message;
  if (!r.passed()) return ::testing::AssertionFailure() << "failed: " << first_failure_text(r);
  return ::testing::AssertionSuccess();
}

// Compiled, and the first test failed with a wrong element in `buffer` (r.tests[0].wrong is then set).
inline ::testing::AssertionResult fails_first_test_on(const CheckResult& r, const std::string& buffer) {
  if (!r.compiled.ok) return ::testing::AssertionFailure() << "did not compile: " << r.compiled.message;
  if (r.first_failure != 0)
    return ::testing::AssertionFailure()
           << "first failure " << r.first_failure << ", not test 0: " << first_failure_text(r);
  if (!r.tests[0].wrong)
    return ::testing::AssertionFailure() << "test 0 failed with no wrong element: " << r.tests[0].check;
  if (r.tests[0].wrong->buffer != buffer)
    return ::testing::AssertionFailure()
           << "the wrong element is in '" << r.tests[0].wrong->buffer << "', not '" << buffer << "'";
  return ::testing::AssertionSuccess();
}

}  // namespace bs::exercise
