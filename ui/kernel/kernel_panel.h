// kernel_panel.h: the kernel editor window's contents (pure ImGui, no CUDA): target picker, templates, file
// load / save, compile options, the compile status (progress and elapsed time while NVRTC runs, "from
// cache", the last good kernel), the editor, the messages list (a click jumps to the line), the compiled
// kernel's resources and occupancy estimate, and the PTX side pane (each block with the source line it comes
// from; a click highlights that line). The workbench (app/kernel/kernel_workbench.h) fills the model and acts
// on what the user asked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ui/kernel/code_editor.h"

namespace bs::ui {

struct KernelPanelModel {
  int target = 0;
  std::vector<std::string> target_names;  // heat, vector, matmul
  struct TemplateItem {
    std::string id, summary;
    int target = 0;
  };
  std::vector<TemplateItem> templates;
  std::string path;  // the file field (edited in place)
  std::string file_message;
  bool file_error = false;

  // Options (edited in place; actions.options_changed says so).
  bool fast_math = false, lineinfo = true;
  int maxrregcount = 0;
  int arch_index = 0;
  std::vector<std::string> arch_names;  // "sm_90", ...
  bool auto_compile = true;
  bool show_ptx = true;

  bool nvrtc_available = true;
  std::string nvrtc_message;  // why compiling is unavailable

  enum class Status { None, Compiling, Ok, Failed };
  Status status = Status::None;
  std::string
      status_text;  // "compiling (first compile of this source, ~1 s) 0.4 s", "compiled ... (from cache)"
  std::string last_good_text;  // "running the last good kernel (compiled 12:03:41)"
  bool edited_since_compile = false;

  struct Message {
    bool error = true;
    int line = 0;  // 0: not on a line of the file
    std::string text;
  };
  std::vector<Message> messages;
  std::vector<std::string> resources;  // one line each: registers, shared memory, spills, occupancy

  std::string ptx;
  struct PtxBlock {
    int first = 0, last = 0;  // 1-based PTX lines
    int source_line = 0;
  };
  std::vector<PtxBlock> ptx_blocks;
  std::string ptx_note;       // e.g. "no line info: turn on -lineinfo"
  int ptx_selected_line = 0;  // the source line picked in the PTX pane
};

struct KernelPanelActions {
  bool compile = false;
  std::optional<int> target;  // picked
  std::string template_id;    // picked from the Templates menu
  bool load_file = false, save_file = false;
  bool options_changed = false;
  bool undo = false, redo = false;
  bool text_changed = false;
};

// Draws into the current window.
void draw_kernel_panel(KernelPanelModel& m, CodeDocument& doc, CodeEditorState& editor, KernelPanelActions& a,
                       double now_s);

}  // namespace bs::ui
