// cpu_reference_test.cpp: named CPU references ("reference": {"cpu": "NAME"}): an unknown name or one whose
// shape the args do not have is refused with the field named; the labs' templates pass their lab contract's
// tests against the lab's CPU reference in the simulator, and a wrong kernel fails a named test there.
#include <gtest/gtest.h>

#include "assets/embedded.h"
#include "gpu/exercise/cpu_reference.h"
#include "gpu/exercise/runner.h"
#include "gpu/kernel/contracts.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "check_expect.h"

namespace bs::exercise {
namespace {

std::string lab_text(kernel::Target t) {
  return std::string(embedded::find(kernel::contract_file(t)));
}

Exercise lab_exercise(kernel::Target t) {
  const LoadResult r = parse_contract(lab_text(t), kernel::contract_file(t));
  EXPECT_TRUE(r.exercise) << r.error;
  Exercise e = r.exercise ? *r.exercise : Exercise{};
  e.id = std::string(kernel::k_target_names.name_of(t));
  return e;
}

TEST(CpuReference, TheLabContractsNameTheirReferences) {
  EXPECT_EQ(lab_exercise(kernel::Target::Heat).cpu_reference, "heat_step");
  EXPECT_EQ(lab_exercise(kernel::Target::Vector).cpu_reference, "vector_formula");
  EXPECT_EQ(lab_exercise(kernel::Target::Matmul).cpu_reference, "matmul");
  for (const CpuReference& r : cpu_references()) {
    EXPECT_EQ(find_cpu_reference(r.name), &r);
    EXPECT_FALSE(r.summary.empty());
  }
  EXPECT_EQ(find_cpu_reference("nope"), nullptr);
}

TEST(CpuReference, AnUnknownNameOrAnotherShapeIsAFieldNamedError) {
  std::string text = lab_text(kernel::Target::Heat);
  const size_t at = text.find("\"cpu\": \"heat_step\"");
  ASSERT_NE(at, std::string::npos);
  std::string unknown = text;
  unknown.replace(at, 18, "\"cpu\": \"heat_stpe\"");
  EXPECT_EQ(parse_contract(unknown, "h.json").error,
            "h.json: reference.cpu: 'heat_stpe' is not a CPU reference (known: " + cpu_reference_names() + ")");
  std::string other = text;
  other.replace(at, 18, "\"cpu\": \"matmul\"");
  EXPECT_EQ(parse_contract(other, "h.json").error,
            "h.json: reference.cpu: 'matmul' takes (const float*, const float*, float*, int, int, int), the args give "
            "(const float*, float*, int, int, float, float, int)");
  std::string typo = text;
  typo.replace(at, 18, "\"cpu\": \"heat_step\", \"kernel\": \"x\"");
  EXPECT_NE(parse_contract(typo, "h.json").error.find("h.json: reference.kernel: unknown field"), std::string::npos);
  std::string not_object = text;
  not_object.replace(at - 1, 20, "\"heat_step\"");
  EXPECT_EQ(parse_contract(not_object, "h.json").error, "h.json: reference: must be an object");
}

TEST(CpuReference, TheLabTemplatesPassTheirLabContractAgainstTheCpu) {
  REQUIRE_NVRTC();
  for (const kernel::KernelTemplate& t : kernel::kernel_templates()) {
    if (std::string(t.id) == "heat-tutorial") continue;  // the slow tutorial kernel: right, but 32x slower to simulate
    SCOPED_TRACE(std::string(t.id));
    const Exercise e = lab_exercise(t.target);
    const CheckResult r = check_source(e, std::string(kernel::template_source(t)), std::string(t.file));
    EXPECT_TRUE(passes_every_test(r));
    EXPECT_EQ(r.tests.size(), e.tests.size());
  }
}

TEST(CpuReference, AWrongKernelFailsANamedTestAgainstTheCpu) {
  REQUIRE_NVRTC();
  const Exercise e = lab_exercise(kernel::Target::Vector);
  const std::string wrong =
      "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n) {\n"
      "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = (a[i] * 10.0f + 2.0f) * (b[i] + 2.0f * 10.0f - 5.0f) * 5.0f;\n"
      "}\n";
  const CheckResult r = check_source(e, wrong, "mine.cu");
  ASSERT_TRUE(fails_first_test_on(r, "c"));
  const TestResult& t = r.tests[0];
  EXPECT_EQ(t.test.name, "n=100003");
  EXPECT_EQ(t.wrong->index, 0u);
  EXPECT_EQ(t.wrong->writers.front(), "thread (0, 0, 0) of block (0, 0, 0)");
}

}  // namespace
}  // namespace bs::exercise
