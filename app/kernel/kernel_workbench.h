// kernel_workbench.h: the kernel lab's editor side, owned by App: one document per contract target (heat,
// vector, matmul) with its compile options, the compile service (NVRTC on a worker thread, newest edit wins)
// with the disk cache, and the kernel editor window (ui/kernel/kernel_panel.h). Every good compile is
// published to UserKernels (labs run it from there); a compile error keeps the last good kernel published and
// the window says so. Its state (sources, options, target) goes into sessions as the "kernel" member.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/kernel/user_kernels.h"
#include "gpu/kernel/compile_service.h"
#include "gpu/kernel/kernel_cache.h"
#include "gpu/kernel/source_file.h"
#include "ui/kernel/kernel_panel.h"

namespace bs {

class Layout;

class KernelWorkbench {
 public:
  // `cache_dir`: the disk cache's folder (empty: memory only). `compile`: what compiles (empty: NVRTC through
  // the cache; tests pass a fake). `nvrtc_error`: when set, compiling is unavailable for that reason (tests;
  // otherwise NVRTC's own load outcome decides).
  KernelWorkbench(UserKernels& kernels, std::string cache_dir, kernel::CompileService::CompileFn compile = {},
                  std::optional<std::string> nvrtc_error = std::nullopt);
  ~KernelWorkbench();
  KernelWorkbench(const KernelWorkbench&) = delete;
  KernelWorkbench& operator=(const KernelWorkbench&) = delete;

  // Once a frame, open or not: takes a finished compile (publishes it or keeps the last good kernel), and
  // compiles after an edit pause (k_pause_s) while the window is open or a session asked for it.
  void update(double now_s);
  // The editor window (inside a frame), when open.
  void draw(Layout& layout, double now_s);
  bool& open() { return m_open; }

  kernel::Target target() const { return m_target; }
  void set_target(kernel::Target t);
  ui::CodeDocument& document(kernel::Target t) { return doc(t).doc; }
  kernel::CompileOptions& options(kernel::Target t) { return doc(t).options; }
  int& arch(kernel::Target t) { return doc(t).arch; }
  // Compiles the current target's document now (the Compile button); returns the ticket (0: NVRTC missing).
  uint64_t compile_now(double now_s);
  // Loads template `id` (kernel::find_template) into its target's document as one undoable step and makes
  // that target current. False when there is no such template.
  bool load_template(std::string_view id);
  // Reads / writes the current document from / to `path`; false with a message (also shown in the window).
  bool load_file(const std::string& path, std::string* error);
  bool save_file(const std::string& path, std::string* error);

  bool nvrtc_available() const { return !m_nvrtc_error; }
  const std::string& nvrtc_error() const;
  kernel::CompileService& service() { return *m_service; }
  // The last finished compile of `t` (good or not), null before the first.
  std::shared_ptr<const kernel::CompileResult> last_result(kernel::Target t) { return doc(t).result; }
  // Undo / redo presses from the app's key queue for the editor that has the keyboard (true when it took
  // them): every press counts, however many fall between two frames. `from_queue` on: the editor stops
  // polling ImGui for those keys (the app's window delivers them all through here).
  bool key_chord(bool redo);
  void chords_from_queue(bool on);
  // The panel's model as it would be drawn now (tests read the texts).
  ui::KernelPanelModel& model() { return m_model; }
  void refresh_model(double now_s);

  // Sessions: {"target": "heat", "auto_compile": true, "documents": {"heat": {"source": "...", "fast_math":
  // false, "lineinfo": true, "maxrregcount": 0, "arch": "sm_90", "path": ""}, ...}}. check_state validates
  // everything (messages name the field, e.g. "kernel.documents.heat.maxrregcount: ..."); load_state applies
  // only a state that passed, and then compiles the current target's source.
  nlohmann::json save_state() const;
  static std::optional<std::string> check_state(const nlohmann::json& j);

  // What the layout dump shows of the editor (tests driving the app): open, target, status, the markers,
  // the marker the mouse is over, the published generation.
  nlohmann::json dump() const;
  std::optional<std::string> load_state(const nlohmann::json& j);

  // Markers for the editor from a compile's diagnostics: every message on a line of the user's file.
  static std::vector<ui::LineMarker> markers_from(const std::vector<kernel::Diagnostic>& d);

  static constexpr double k_pause_s = 0.4;               // auto-compile after this long without typing
  static constexpr size_t k_max_source_bytes = kernel::k_max_source_bytes;  // gpu/kernel/source_file.h

 private:
  struct Doc {
    ui::CodeDocument doc;
    ui::CodeEditorState editor;
    kernel::CompileOptions options;
    int arch = kernel::k_default_arch;
    std::string path;
    std::string name;                // where the text came from ("template heat", "file my.cu")
    uint64_t compiled_revision = 0;  // the revision last submitted
    uint64_t seen_revision = 0;      // for the edit pause
    double changed_at = 0;
    bool options_dirty = false;
    std::shared_ptr<const kernel::CompileResult> result;  // the last finished compile
  };
  Doc& doc(kernel::Target t) { return m_docs[static_cast<size_t>(t)]; }
  const Doc& doc(kernel::Target t) const { return m_docs[static_cast<size_t>(t)]; }
  kernel::CompileRequest request_of(kernel::Target t) const;
  void take_result(const kernel::CompileProgress& p);
  void act(const ui::KernelPanelActions& a, double now_s);

  UserKernels& m_kernels;
  std::unique_ptr<kernel::KernelCache> m_cache;
  std::unique_ptr<kernel::CompileService> m_service;
  std::optional<std::string> m_nvrtc_error;
  std::array<Doc, 3> m_docs;
  kernel::Target m_target = kernel::Target::Heat;
  bool m_open = false;
  bool m_auto_compile = true;
  bool m_compile_requested = false;  // a session loaded: compile even with the window closed
  // The compile in flight: its ticket, target and request (the newest only is ever delivered).
  uint64_t m_ticket = 0, m_taken_ticket = 0;
  kernel::Target m_ticket_target = kernel::Target::Heat;
  kernel::CompileRequest m_ticket_request;
  bool m_ticket_first = true;        // no compile of this exact request yet in this run
  std::set<std::string> m_compiled;  // requests compiled in this run (source + options), for "first compile"
  ui::KernelPanelModel m_model;
  std::string m_file_message;
  bool m_file_error = false;
  int m_ptx_for_target = -1;
  const kernel::CompileResult* m_ptx_for = nullptr;
};

}  // namespace bs
