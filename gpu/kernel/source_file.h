// source_file.h: the one door through which a kernel source enters blockscope, whoever asks (the editor's
// Load, `kernel compile`, `bench kernel`, `sweep --kernel`, a session's saved text): a file is refused before
// anything is read from it when it is a FIFO, a device, a folder or over the size limit, and any text is
// checked for what NVRTC would mishandle (a NUL, a byte that is not UTF-8: NVRTC 13 silently ends the file
// there). A UTF-8 byte order mark at the start is taken off. Plain C++.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bs::kernel {

// A kernel source is a few KiB; anything over 1 MiB is refused (the documented limit, README.md).
inline constexpr std::size_t k_max_source_bytes = std::size_t{1} << 20;

// Reads the kernel source `path` into `out` through read_file_limited (core/text.h: no read from a FIFO or a
// device, nothing over k_max_source_bytes), then checks the text (check_source_text) and drops a leading BOM.
// False with `error` = a message naming the file ("FILE: is not a regular file ...", "FILE:3:7: byte 0xff is
// not UTF-8 ...").
bool read_kernel_source(const std::string& path, std::string* out, std::string* error);

// Where the text of a kernel source breaks blockscope's rules: longer than k_max_source_bytes, a NUL, a byte
// sequence that is not UTF-8. nullopt when it is fine; else "LINE:COLUMN: what" (1-based, bytes).
struct SourceProblem {
  int line = 0, column = 0;  // 0 when it is about the whole text (its size)
  std::string message;
  std::string text() const;  // "3:7: byte 0xff is not UTF-8 ..." or the message alone
};
std::optional<SourceProblem> check_source_text(std::string_view text);

// The text without a leading UTF-8 byte order mark (EF BB BF).
std::string_view strip_bom(std::string_view text);

}  // namespace bs::kernel
