// cuda_tokenizer.h: CUDA C++ source split into coloured tokens, one line at a time, for the kernel editor's
// syntax colouring. Pure (no ImGui): the only state carried from one line to the next is whether a block
// comment (or a raw line continuation of a preprocessor directive) is still open.
#pragma once

#include <string_view>
#include <vector>

namespace bs::ui {

enum class TokenKind {
  Text,          // identifiers, operators, white space
  Keyword,       // C++ keywords (if, for, return, const, ...)
  Type,          // built-in types (int, float, size_t, float4, ...)
  CudaKeyword,   // CUDA qualifiers and intrinsics: __global__, __shared__, __syncthreads, atomicAdd, ...
  CudaBuiltin,   // threadIdx, blockIdx, blockDim, gridDim, warpSize
  Number,        // 42, 0x1F, 1.5e-3f, 4.0f, 10ull
  String,        // "..." (with escapes)
  Char,          // 'a', '\n'
  Comment,       // // ... and /* ... */ (across lines)
  Preprocessor,  // #include, #define ... (the whole directive line)
};

struct Token {
  int begin = 0, end = 0;  // byte offsets in the line, [begin, end)
  TokenKind kind = TokenKind::Text;
};

// What carries over from one line to the next.
struct LineState {
  bool in_block_comment = false;  // a /* ... not closed yet
  bool in_directive = false;      // a preprocessor line that ended with a backslash
  bool operator==(const LineState&) const = default;
};

// The tokens of one line (no '\n' in it) starting in `state`; `state` becomes the state after the line.
// Tokens cover only the coloured parts; plain text (identifiers, operators, spaces) is left out: anything not
// covered is Text.
std::vector<Token> tokenize_line(std::string_view line, LineState& state);

// Every line of `text` (split at '\n'), tokenized in order.
std::vector<std::vector<Token>> tokenize(std::string_view text);

}  // namespace bs::ui
