// ptx_lines.h: the PTX's line info (-lineinfo: ".file N "path"" and ".loc N LINE COL" directives) as a map
// from each PTX line to the line of the user's file it comes from, and as blocks of consecutive PTX lines
// from one source line, for the side pane that shows the PTX beside the source.
#pragma once

#include <string_view>
#include <vector>

namespace bs::kernel {

struct PtxBlock {
  int first_ptx_line = 0, last_ptx_line = 0;  // 1-based, inclusive
  int source_line = 0;                        // the user's line; 0 = none (declarations, other files)
};

struct PtxLineMap {
  // source_line[i] = the user's line PTX line i + 1 comes from (0 = none). Code inlined from the prelude
  // maps to the user's line it was inlined at.
  std::vector<int> source_line;
  std::vector<PtxBlock> blocks;  // consecutive PTX lines with the same source_line
  bool has_line_info = false;    // any .loc for the user's file
};

// `user_file`: the name NVRTC knew the user's file by (the .file path ends with it).
PtxLineMap map_ptx_lines(std::string_view ptx, std::string_view user_file);

}  // namespace bs::kernel
