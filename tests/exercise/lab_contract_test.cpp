// lab_contract_test.cpp: the heat, vector and matmul labs' kernel contracts are files of the exercise contract
// format (gpu/<lab>/<lab>.contract.json), embedded at build time and read through the exercise parser: the
// signatures, pointer types and default blocks the kernel editor and `kernel check --target` use are the ones
// the labs always had, and a malformed file is refused with its field named.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "assets/embedded.h"
#include "gpu/exercise/exercise.h"
#include "gpu/kernel/contracts.h"

namespace bs::kernel {
namespace {

std::string read_source_file(const std::string& rel) {
  std::ifstream in(std::string(BS_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LabContracts, TheThreeFilesParseIntoTheLabsSignatures) {
  struct Want {
    Target t;
    const char* kernel;
    const char* signature;
    const char* pointer;
    int bx, by;
  };
  const Want want[] = {
      {Target::Heat, "heat_step",
       "extern \"C\" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, "
       "float boundary_temp, int fixed_boundary)",
       "void (*)(const float*, float*, int, int, float, float, int)", 32, 8},
      {Target::Vector, "vector_op",
       "extern \"C\" __global__ void vector_op(const float* a, const float* b, float* c, long long n)",
       "void (*)(const float*, const float*, float*, long long)", 256, 1},
      {Target::Matmul, "matmul",
       "extern \"C\" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)",
       "void (*)(const float*, const float*, float*, int, int, int)", 16, 16},
  };
  for (const Want& w : want) {
    SCOPED_TRACE(contract_file(w.t));
    EXPECT_EQ(contract_error(w.t), "");
    const Contract& c = contract(w.t);
    EXPECT_EQ(c.target, w.t);
    EXPECT_EQ(c.kernel_name, w.kernel);
    EXPECT_EQ(c.signature, w.signature);
    EXPECT_EQ(c.pointer_type, w.pointer);
    EXPECT_EQ(c.default_block_x, w.bx);
    EXPECT_EQ(c.default_block_y, w.by);
    EXPECT_GT(c.launch.size(), 40u);
  }
  EXPECT_NE(contract(Target::Heat).launch.find("fixed_boundary = 1"), std::string_view::npos);
}

TEST(LabContracts, TheEmbeddedFilesAreTheLabFoldersFiles) {
  const std::pair<Target, const char*> files[] = {{Target::Heat, "gpu/heat/heat.contract.json"},
                                                  {Target::Vector, "gpu/vector/vector.contract.json"},
                                                  {Target::Matmul, "gpu/matmul/matmul.contract.json"}};
  for (const auto& [t, rel] : files) {
    SCOPED_TRACE(rel);
    const std::string on_disk = read_source_file(rel);
    ASSERT_FALSE(on_disk.empty());
    EXPECT_EQ(std::string(embedded::find(contract_file(t))), on_disk);
    // The same parser the course pack uses: a lab contract is a loadable contract with tests.
    const exercise::LoadResult r = exercise::parse_contract(on_disk, rel);
    ASSERT_TRUE(r.exercise) << r.error;
    EXPECT_GE(r.exercise->tests.size(), 2u);
  }
}

TEST(LabContracts, AMalformedFileNamesItsField) {
  std::string text(embedded::find(contract_file(Target::Heat)));
  ASSERT_FALSE(text.empty());
  ContractStorage storage;
  Contract c;
  std::string bad = text;
  const size_t at = bad.find("\"type\": \"float\"");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 15, "\"type\": \"float4\"");
  EXPECT_EQ(parse_lab_contract(Target::Heat, bad, "heat.contract.json", storage, c),
            "heat.contract.json: args[0].type: 'float4' is not a type here (give float, double, int, uint, int64 or uint64)");
  EXPECT_TRUE(c.kernel_name.empty());
  EXPECT_EQ(parse_lab_contract(Target::Heat, "{\"format\": 1}", "x.json", storage, c),
            "x.json: title: missing (required)");
  EXPECT_NE(parse_lab_contract(Target::Heat, "{", "x.json", storage, c).find("x.json: not valid JSON"),
            std::string::npos);
  // A 3D block is refused: the labs launch 1D or 2D blocks.
  std::string deep = text;
  deep.replace(deep.find("[32, 8]"), 7, "[8, 8, 2]");
  EXPECT_EQ(parse_lab_contract(Target::Heat, deep, "h.json", storage, c),
            "h.json: launch.block: a lab launches a 1D or 2D block");
  // And the good text parses into the same contract as the shipped one.
  EXPECT_EQ(parse_lab_contract(Target::Heat, text, "h.json", storage, c), "");
  EXPECT_EQ(c.signature, contract(Target::Heat).signature);
}

}  // namespace
}  // namespace bs::kernel
