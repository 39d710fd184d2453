// cuda_tokenizer_test.cpp: the editor's syntax colouring: keywords, CUDA qualifiers and built-ins, numbers,
// strings, comments (block comments across lines), preprocessor lines.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ui/kernel/cuda_tokenizer.h"

namespace bs::ui {
namespace {

// (text, kind) of each coloured token of one line.
std::vector<std::pair<std::string, TokenKind>> kinds(std::string_view line, LineState* state = nullptr) {
  LineState local;
  LineState& s = state ? *state : local;
  std::vector<std::pair<std::string, TokenKind>> out;
  for (const Token& t : tokenize_line(line, s))
    out.emplace_back(std::string(line.substr(t.begin, t.end - t.begin)), t.kind);
  return out;
}

using P = std::pair<std::string, TokenKind>;

TEST(CudaTokenizer, KeywordsTypesAndCuda) {
  const auto k = kinds("extern \"C\" __global__ void f(const float* a, int n) { __syncthreads(); return; }");
  const std::vector<P> want = {{"extern", TokenKind::Keyword},
                               {"\"C\"", TokenKind::String},
                               {"__global__", TokenKind::CudaKeyword},
                               {"void", TokenKind::Type},
                               {"const", TokenKind::Keyword},
                               {"float", TokenKind::Type},
                               {"int", TokenKind::Type},
                               {"__syncthreads", TokenKind::CudaKeyword},
                               {"return", TokenKind::Keyword}};
  EXPECT_EQ(k, want);
}

TEST(CudaTokenizer, BuiltinsAndNotPrefixes) {
  const auto k =
      kinds("int x = blockIdx.x * blockDim.x + threadIdx.x; int threadIdxs = gridDim.y + warpSize;");
  const std::vector<P> want = {{"int", TokenKind::Type},
                               {"blockIdx", TokenKind::CudaBuiltin},
                               {"blockDim", TokenKind::CudaBuiltin},
                               {"threadIdx", TokenKind::CudaBuiltin},
                               {"int", TokenKind::Type},
                               {"gridDim", TokenKind::CudaBuiltin},
                               {"warpSize", TokenKind::CudaBuiltin}};
  EXPECT_EQ(k, want);  // "threadIdxs" is a plain identifier, not a built-in
}

TEST(CudaTokenizer, Numbers) {
  const auto k = kinds("a = 42 + 0x1F + 1.5e-3f + 4.0f + .5 + 10ull + x2;");
  const std::vector<P> want = {{"42", TokenKind::Number},      {"0x1F", TokenKind::Number},
                               {"1.5e-3f", TokenKind::Number}, {"4.0f", TokenKind::Number},
                               {".5", TokenKind::Number},      {"10ull", TokenKind::Number}};
  EXPECT_EQ(k, want);  // the 2 of x2 is part of an identifier
}

TEST(CudaTokenizer, StringsAndCharsWithEscapes) {
  const auto k = kinds(R"(printf("a \"quoted\" // not a comment", '\'', 'x'); // done)");
  const std::vector<P> want = {{R"("a \"quoted\" // not a comment")", TokenKind::String},
                               {R"('\'')", TokenKind::Char},
                               {"'x'", TokenKind::Char},
                               {"// done", TokenKind::Comment}};
  EXPECT_EQ(k, want);
}

TEST(CudaTokenizer, LineCommentHidesKeywords) {
  const auto k = kinds("x = 1; // for int __global__");
  const std::vector<P> want = {{"1", TokenKind::Number}, {"// for int __global__", TokenKind::Comment}};
  EXPECT_EQ(k, want);
}

TEST(CudaTokenizer, BlockCommentAcrossLines) {
  const auto lines = tokenize("int a; /* start\n for while int\n end */ float b;\n/* one */ return");
  ASSERT_EQ(lines.size(), 4u);
  ASSERT_EQ(lines[0].size(), 2u);
  EXPECT_EQ(lines[0][1].kind, TokenKind::Comment);
  ASSERT_EQ(lines[1].size(), 1u);  // the whole middle line is comment: no keywords in it
  EXPECT_EQ(lines[1][0].kind, TokenKind::Comment);
  EXPECT_EQ(lines[1][0].begin, 0);
  EXPECT_EQ(lines[1][0].end, 14);  // " for while int"
  ASSERT_EQ(lines[2].size(), 2u);  // " end */" then float
  EXPECT_EQ(lines[2][0].kind, TokenKind::Comment);
  EXPECT_EQ(lines[2][0].end, 7);
  EXPECT_EQ(lines[2][1].kind, TokenKind::Type);
  ASSERT_EQ(lines[3].size(), 2u);
  EXPECT_EQ(lines[3][0].kind, TokenKind::Comment);
  EXPECT_EQ(lines[3][1].kind, TokenKind::Keyword);
}

TEST(CudaTokenizer, StateCarriesOverAndCloses) {
  LineState s;
  kinds("a /* open", &s);
  EXPECT_TRUE(s.in_block_comment);
  kinds("still */ b", &s);
  EXPECT_FALSE(s.in_block_comment);
}

TEST(CudaTokenizer, Preprocessor) {
  const auto k = kinds("  #include <cuda_fp16.h>  // halves");
  const std::vector<P> want = {{"#include <cuda_fp16.h>", TokenKind::Preprocessor},
                               {"// halves", TokenKind::Comment}};
  EXPECT_EQ(k, want);
  // '#' inside a line is not a directive.
  EXPECT_TRUE(kinds("a # b").empty());
  // A continued #define colours its next line too.
  const auto lines = tokenize("#define SQ(x) \\\n  ((x) * (x))\nint y;");
  ASSERT_EQ(lines.size(), 3u);
  ASSERT_EQ(lines[1].size(), 1u);
  EXPECT_EQ(lines[1][0].kind, TokenKind::Preprocessor);
  ASSERT_EQ(lines[2].size(), 1u);
  EXPECT_EQ(lines[2][0].kind, TokenKind::Type);
}

TEST(CudaTokenizer, EmptyAndUnclosed) {
  EXPECT_EQ(tokenize("").size(), 1u);
  EXPECT_EQ(tokenize("a\n").size(), 2u);
  const auto k = kinds("s = \"never closed");
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].second, TokenKind::String);
}

}  // namespace
}  // namespace bs::ui
