// kernel_workbench.cpp: the kernel lab's editor side (see kernel_workbench.h).
#include "app/kernel/kernel_workbench.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/layout.h"
#include "app/session.h"
#include "core/text.h"
#include "gpu/anatomy/occupancy.h"
#include "gpu/kernel/nvrtc_loader.h"
#include "gpu/kernel/ptx_lines.h"
#include "gpu/kernel/source_file.h"

namespace bs {

namespace {

constexpr kernel::Target k_targets[] = {kernel::Target::Heat, kernel::Target::Vector, kernel::Target::Matmul};
// The architectures offered in the editor (NVRTC 13 supports sm_75 and newer).
constexpr int k_arch_choices[] = {75, 80, 86, 89, 90, 100, 120};

std::string target_name(kernel::Target t) {
  return std::string(kernel::k_target_names.name_of(t));
}

std::string request_id(const kernel::CompileRequest& r) {
  std::string id = r.source;
  for (const std::string& o : kernel::nvrtc_options(r))
    id += '\n' + o;
  id += '\n' + (r.target ? target_name(*r.target) : std::string("any"));
  return id;
}

std::string ms_text(double ms) {
  char b[32];
  if (ms < 1000)
    std::snprintf(b, sizeof b, "%.0f ms", ms);
  else
    std::snprintf(b, sizeof b, "%.2f s", ms / 1000);
  return b;
}

std::string bytes_text(int b) {
  return std::to_string(b) + " B";
}

}  // namespace

KernelWorkbench::KernelWorkbench(UserKernels& kernels, std::string cache_dir,
                                 kernel::CompileService::CompileFn compile,
                                 std::optional<std::string> nvrtc_error)
    : m_kernels(kernels), m_cache(std::make_unique<kernel::KernelCache>(std::move(cache_dir))) {
  if (nvrtc_error) {
    m_nvrtc_error = std::move(nvrtc_error);
  } else if (!compile && !kernel::nvrtc().ok()) {
    m_nvrtc_error = kernel::nvrtc().error.empty() ? kernel::nvrtc_missing_message() : kernel::nvrtc().error;
  }
  if (!compile)
    compile = [this](const kernel::CompileRequest& r) { return kernel::compile_cached(*m_cache, r); };
  m_service = std::make_unique<kernel::CompileService>(std::move(compile));
  for (kernel::Target t : k_targets) {
    Doc& d = doc(t);
    if (const kernel::KernelTemplate* tpl = kernel::find_template(target_name(t))) {
      d.doc.reset(std::string(kernel::template_source(*tpl)));
      d.name = "template " + std::string(tpl->id);
    }
  }
}

KernelWorkbench::~KernelWorkbench() = default;

const std::string& KernelWorkbench::nvrtc_error() const {
  static const std::string none;
  return m_nvrtc_error ? *m_nvrtc_error : none;
}

void KernelWorkbench::set_target(kernel::Target t) {
  m_target = t;
}

kernel::CompileRequest KernelWorkbench::request_of(kernel::Target t) const {
  const Doc& d = doc(t);
  kernel::CompileRequest r;
  r.source = d.doc.text();
  r.target = t;
  r.options = d.options;
  r.arch = d.arch;
  return r;
}

uint64_t KernelWorkbench::compile_now(double now_s) {
  if (m_nvrtc_error) return 0;
  Doc& d = doc(m_target);
  m_ticket_request = request_of(m_target);
  m_ticket_target = m_target;
  m_ticket_first = !m_compiled.count(request_id(m_ticket_request));
  d.compiled_revision = d.doc.revision();
  d.options_dirty = false;
  d.changed_at = now_s;
  m_ticket = m_service->submit(m_ticket_request);
  return m_ticket;
}

std::vector<ui::LineMarker> KernelWorkbench::markers_from(const std::vector<kernel::Diagnostic>& diags) {
  std::vector<ui::LineMarker> out;
  for (const kernel::Diagnostic& d : diags) {
    if (d.line <= 0 || d.severity == kernel::Severity::Remark) continue;
    out.push_back({d.line,
                   d.severity == kernel::Severity::Error ? ui::LineMarker::Level::Error
                                                         : ui::LineMarker::Level::Warning,
                   d.message});
  }
  return out;
}

void KernelWorkbench::take_result(const kernel::CompileProgress& p) {
  if (p.state != kernel::CompileState::Done || p.ticket != m_ticket || p.ticket == m_taken_ticket ||
      !p.result)
    return;
  m_taken_ticket = p.ticket;
  Doc& d = doc(m_ticket_target);
  d.result = p.result;
  const kernel::CompileResult& r = *p.result;
  if (r.status != kernel::CompileStatus::NvrtcMissing && r.status != kernel::CompileStatus::InternalError)
    m_compiled.insert(request_id(m_ticket_request));
  d.doc.set_markers(markers_from(r.diagnostics));
  if (r.ok()) {
    m_kernels.publish(m_ticket_request, p.result, d.name);
  } else {
    m_kernels.note_failure(m_ticket_target, r.message);
  }
}

void KernelWorkbench::update(double now_s) {
  take_result(m_service->poll());
  Doc& d = doc(m_target);
  if (d.doc.revision() != d.seen_revision) {
    d.seen_revision = d.doc.revision();
    d.changed_at = now_s;
  }
  const bool stale = d.doc.revision() != d.compiled_revision || d.options_dirty;
  const bool paused = now_s - d.changed_at >= k_pause_s;
  if (stale && !m_nvrtc_error && ((m_open && m_auto_compile && paused) || m_compile_requested))
    compile_now(now_s);
  m_compile_requested = false;
}

bool KernelWorkbench::load_template(std::string_view id) {
  const kernel::KernelTemplate* t = kernel::find_template(id);
  if (!t) return false;
  Doc& d = doc(t->target);
  d.doc.replace(std::string(kernel::template_source(*t)), "template " + std::string(t->id));
  d.name = "template " + std::string(t->id);
  m_target = t->target;
  return true;
}

bool KernelWorkbench::load_file(const std::string& path, std::string* error) {
  std::string text, err;
  if (path.empty())
    err = "name a .cu file to load";
  else if (!kernel::read_kernel_source(path, &text, &err))
    err = "cannot load " + err;
  if (!err.empty()) {
    if (error) *error = err;
    m_file_message = err;
    m_file_error = true;
    return false;
  }
  Doc& d = doc(m_target);
  d.doc.replace(std::move(text), "file " + path);
  d.path = path;
  d.name = "file " + path;
  m_file_message = "loaded " + path + " (Ctrl+Z brings back the text before)";
  m_file_error = false;
  return true;
}

bool KernelWorkbench::save_file(const std::string& path, std::string* error) {
  std::string err;
  if (path.empty())
    err = "name a .cu file to save to";
  else
    write_text_file(path, doc(m_target).doc.text(), &err);
  if (!err.empty()) {
    if (error) *error = err;
    m_file_message = err;
    m_file_error = true;
    return false;
  }
  doc(m_target).path = path;
  m_file_message = "saved " + path;
  m_file_error = false;
  return true;
}

// --- The window
// -----------------------------------------------------------------------------------------------

void KernelWorkbench::refresh_model(double now_s) {
  ui::KernelPanelModel& m = m_model;
  Doc& d = doc(m_target);
  m.target = static_cast<int>(m_target);
  if (m.target_names.empty()) {
    for (kernel::Target t : k_targets)
      m.target_names.push_back(target_name(t));
    for (const kernel::KernelTemplate& t : kernel::kernel_templates())
      m.templates.push_back({std::string(t.id), std::string(t.summary), static_cast<int>(t.target)});
    for (int a : k_arch_choices)
      m.arch_names.push_back("sm_" + std::to_string(a));
  }
  m.path = d.path;
  m.file_message = m_file_message;
  m.file_error = m_file_error;
  m.fast_math = d.options.fast_math;
  m.lineinfo = d.options.lineinfo;
  m.maxrregcount = d.options.maxrregcount;
  m.arch_index = 0;
  for (size_t i = 0; i < std::size(k_arch_choices); ++i)
    if (k_arch_choices[i] == d.arch) m.arch_index = static_cast<int>(i);
  m.auto_compile = m_auto_compile;
  m.nvrtc_available = !m_nvrtc_error;
  m.nvrtc_message = m_nvrtc_error ? *m_nvrtc_error : std::string();

  const kernel::CompileProgress p = m_service->poll();
  const bool running =
      m_ticket != 0 && p.ticket == m_ticket && m_ticket_target == m_target &&
      (p.state == kernel::CompileState::Queued || p.state == kernel::CompileState::Compiling);
  const UserKernel good = m_kernels.current(m_target);
  const std::string contract_name(kernel::contract(m_target).kernel_name);
  m.messages.clear();
  m.resources.clear();
  m.last_good_text.clear();
  if (running) {
    m.status = ui::KernelPanelModel::Status::Compiling;
    m.status_text =
        std::string(m_ticket_first ? "compiling (first compile of this source, ~1 s)" : "compiling") + "  " +
        ms_text(p.elapsed_ms);
  } else if (!d.result) {
    m.status = ui::KernelPanelModel::Status::None;
    m.status_text = m_auto_compile ? "not compiled yet (compiles after a pause in typing, or press Compile)"
                                   : "not compiled yet: press Compile";
  } else if (d.result->ok()) {
    const kernel::CompileResult& r = *d.result;
    m.status = ui::KernelPanelModel::Status::Ok;
    m.status_text = r.from_cache ? "compiled " + r.kernel_name + " for sm_" + std::to_string(r.arch) +
                                       " from the cache in " + ms_text(r.total_ms) + " (NVRTC took " +
                                       ms_text(r.nvrtc_ms) + " the first time)"
                                 : "compiled " + r.kernel_name + " for sm_" + std::to_string(r.arch) +
                                       " in " + ms_text(r.total_ms) + " (NVRTC " + ms_text(r.nvrtc_ms) + ")";
  } else {
    m.status = ui::KernelPanelModel::Status::Failed;
    // A compile error's message says it ("compile failed: 1 error, 0 warnings"); the others get their name.
    m.status_text = d.result->status == kernel::CompileStatus::CompileError
                        ? d.result->message
                        : std::string(kernel::k_compile_status_names.name_of(d.result->status)) + ": " +
                              d.result->message;
  }
  if (d.result && !d.result->ok() && !running) {
    m.last_good_text =
        good ? "running the last good kernel (compiled " + good.compiled_at_text() + ")"
             : "no good kernel yet: the " + target_name(m_target) + " lab keeps its built-in kernel";
  } else if (good) {
    m.last_good_text = "published to the " + target_name(m_target) + " lab as its user kernel (" +
                       contract_name + ", compiled " + good.compiled_at_text() + ")";
  }
  // It faulted on the GPU (illegal address, hang): the lab runs its built-in kernel until the next compile.
  if (const std::string f = m_kernels.fault_status(m_target, "the lab's built-in kernel runs");
      !f.empty() && !running)
    m.last_good_text = f;
  if (d.result && (d.doc.revision() != d.compiled_revision || d.options_dirty) && !running)
    m.last_good_text += m.last_good_text.empty() ? "edited since the last compile" : "; edited since";
  if (d.result) {
    for (const kernel::Diagnostic& g : d.result->diagnostics) {
      if (g.severity == kernel::Severity::Remark) continue;
      std::string text = g.message;
      if (g.origin == kernel::Origin::Prelude) text = "(in blockscope's prelude) " + text;
      m.messages.push_back({g.severity == kernel::Severity::Error, g.line, text});
    }
    if (d.result->ok() && !d.result->main_kernel())
      m.resources.push_back("registers and shared memory: unknown (NVRTC gave no ptxas report)");
    if (const kernel::KernelResources* k = d.result->main_kernel(); k && d.result->ok()) {
      m.resources.push_back(k->name + ": " + std::to_string(k->registers) + " registers, " +
                            bytes_text(k->shared_static_bytes) + " shared, " +
                            bytes_text(k->stack_frame_bytes) + " stack, spills " +
                            bytes_text(k->spill_store_bytes) + " stored / " +
                            bytes_text(k->spill_load_bytes) + " loaded");
      const kernel::Contract& c = kernel::contract(m_target);
      const int threads = std::max(1, c.default_block_x) * std::max(1, c.default_block_y);
      if (auto arch = anatomy::find_arch("sm_" + std::to_string(d.result->arch))) {
        try {
          anatomy::KernelUsage u;
          u.threads_per_block =
              std::min(threads, k->max_threads_per_block > 0 ? k->max_threads_per_block : threads);
          u.regs_per_thread = k->registers;
          u.static_smem = k->shared_static_bytes;
          const anatomy::Occupancy o = anatomy::compute_occupancy(*arch, u);
          char b[200];
          std::snprintf(b, sizeof b,
                        "occupancy %.0f%% at %d threads per block (%d blocks per SM, limited by %s; model "
                        "for %s); up to %d threads per block",
                        o.occupancy * 100, u.threads_per_block, o.blocks_per_sm,
                        anatomy::limiter_label(o.limiter), arch->name.c_str(), k->max_threads_per_block);
          m.resources.push_back(b);
        } catch (const std::exception& e) {
          m.resources.push_back(std::string("occupancy: ") + e.what());
        }
      } else {
        m.resources.push_back("occupancy: no model for sm_" + std::to_string(d.result->arch) +
                              " (models: " + anatomy::arch_names() + ")");
      }
    }
  }
  // PTX and its line map, once per result.
  const kernel::CompileResult* shown = d.result && d.result->ok() ? d.result.get() : nullptr;
  if (!shown && good) shown = good.result.get();  // a failed compile: the last good kernel's PTX
  if (shown != m_ptx_for || m_ptx_for_target != m.target) {
    m_ptx_for = shown;
    m_ptx_for_target = m.target;
    m.ptx = shown ? shown->ptx : std::string();
    m.ptx_blocks.clear();
    m.ptx_note.clear();
    m.ptx_selected_line = 0;
    if (shown) {
      const kernel::PtxLineMap map = kernel::map_ptx_lines(shown->ptx, kernel::k_user_file);
      for (const kernel::PtxBlock& b : map.blocks)
        if (b.source_line > 0) m.ptx_blocks.push_back({b.first_ptx_line, b.last_ptx_line, b.source_line});
      if (!map.has_line_info) m.ptx_note = "no source lines in this PTX: turn on -lineinfo";
      if (shown != d.result.get()) m.ptx_note = "the last good kernel's PTX";
    }
  }
  (void)now_s;
}

void KernelWorkbench::act(const ui::KernelPanelActions& a, double now_s) {
  Doc& d = doc(m_target);
  m_auto_compile = m_model.auto_compile;
  d.path = m_model.path;
  if (a.options_changed) {
    d.options.fast_math = m_model.fast_math;
    d.options.lineinfo = m_model.lineinfo;
    d.options.maxrregcount = std::clamp(m_model.maxrregcount, 0, 255);
    d.arch =
        k_arch_choices[std::clamp(m_model.arch_index, 0, static_cast<int>(std::size(k_arch_choices)) - 1)];
    d.options_dirty = true;
    d.changed_at = now_s;
  }
  if (a.undo) d.doc.undo();
  if (a.redo) d.doc.redo();
  if (!a.template_id.empty()) load_template(a.template_id);
  if (a.load_file) load_file(m_model.path, nullptr);
  if (a.save_file) save_file(m_model.path, nullptr);
  if (a.target) set_target(k_targets[std::clamp(*a.target, 0, 2)]);
  if (a.compile) compile_now(now_s);
}

bool KernelWorkbench::key_chord(bool redo) {
  ui::CodeEditorState& e = doc(m_target).editor;
  if (!m_open || !e.active || !e.chords_queued) return false;
  ++(redo ? e.queued_redo : e.queued_undo);
  return true;
}

void KernelWorkbench::chords_from_queue(bool on) {
  for (kernel::Target t : k_targets)
    doc(t).editor.chords_queued = on;
}

void KernelWorkbench::draw(Layout& layout, double now_s) {
  if (!m_open) return;
  ImGui::SetNextWindowBgAlpha(1.0f);  // over the lab's view: the field must not show through the code
  if (layout.begin("Kernel editor", Slot::Editor, &m_open)) {
    refresh_model(now_s);
    ui::KernelPanelActions a;
    Doc& d = doc(m_target);
    ui::draw_kernel_panel(m_model, d.doc, d.editor, a, now_s);
    act(a, now_s);
  }
  ImGui::End();
}

nlohmann::json KernelWorkbench::dump() const {
  const Doc& d = doc(m_target);
  nlohmann::json markers = nlohmann::json::array();
  for (const ui::LineMarker& mk : d.doc.markers())
    markers.push_back(
        {{"line", mk.line}, {"level", mk.level == ui::LineMarker::Level::Error ? "error" : "warning"}});
  static constexpr const char* k_status[] = {"none", "compiling", "ok", "failed"};
  return {{"open", m_open},
          {"target", target_name(m_target)},
          {"nvrtc_error", m_nvrtc_error ? *m_nvrtc_error : std::string()},
          {"status", k_status[static_cast<int>(m_model.status)]},
          {"status_text", m_model.status_text},
          {"last_good", m_model.last_good_text},
          {"markers", markers},
          {"hovered_marker_line", d.editor.hovered_marker_line},
          {"first_marker", {d.editor.first_marker.x, d.editor.first_marker.y}},
          {"editor_top", d.editor.top_y},
          {"source_size", d.doc.text().size()},
          {"revision", d.doc.revision()},
          {"generation", m_kernels.generation(m_target)}};
}

// --- Sessions
// -------------------------------------------------------------------------------------------------

nlohmann::json KernelWorkbench::save_state() const {
  nlohmann::json docs = nlohmann::json::object();
  for (kernel::Target t : k_targets) {
    const Doc& d = doc(t);
    docs[target_name(t)] = {{"source", d.doc.text()},
                            {"fast_math", d.options.fast_math},
                            {"lineinfo", d.options.lineinfo},
                            {"maxrregcount", d.options.maxrregcount},
                            {"arch", "sm_" + std::to_string(d.arch)},
                            {"path", d.path}};
  }
  return {{"target", target_name(m_target)}, {"auto_compile", m_auto_compile}, {"documents", docs}};
}

namespace {

// Reads (and checks) a state into the given values; the first problem is returned, naming the field.
std::optional<std::string> read_state(const nlohmann::json& j, kernel::Target& target, bool& auto_compile,
                                      std::array<kernel::CompileOptions, 3>& options,
                                      std::array<int, 3>& archs,
                                      std::array<std::optional<std::string>, 3>& sources,
                                      std::array<std::string, 3>& paths) {
  if (!j.is_object()) return "kernel: expected an object";
  StateReader r(j, "kernel");
  r.only({"target", "auto_compile", "documents"});
  int ti = static_cast<int>(target);
  r.choice("target", ti, kernel::k_target_names.names());
  r.boolean("auto_compile", auto_compile);
  if (r.error()) return r.error();
  target = k_targets[ti];
  if (!j.contains("documents")) return std::nullopt;
  const nlohmann::json& docs = j["documents"];
  if (!docs.is_object()) return std::string("kernel.documents: expected an object with heat, vector, matmul");
  for (const auto& [key, value] : docs.items()) {
    const auto t = kernel::k_target_names.parse(key);
    if (!t) return "kernel.documents." + key + ": not a target (heat, vector, matmul)";
    const size_t i = static_cast<size_t>(*t);
    if (!value.is_object()) return "kernel.documents." + key + ": expected an object";
    StateReader d(value, "kernel.documents." + key);
    d.only({"source", "fast_math", "lineinfo", "maxrregcount", "arch", "path"});
    std::string source;
    if (d.has("source")) {
      d.text("source", source);
      if (d.ok())
        if (auto p = kernel::check_source_text(source)) d.fail("source", p->text());
      if (d.ok()) sources[i] = source;
    }
    d.boolean("fast_math", options[i].fast_math);
    d.boolean("lineinfo", options[i].lineinfo);
    d.integer("maxrregcount", options[i].maxrregcount, 0, 255);
    if (d.ok() && options[i].maxrregcount > 0 && options[i].maxrregcount < 16)
      d.fail("maxrregcount", "give 0 (no limit) or 16..255");
    if (d.has("arch")) {
      std::string arch;
      d.text("arch", arch);
      if (d.ok()) {
        const auto a = kernel::parse_arch(arch);
        if (!a ||
            std::find(std::begin(k_arch_choices), std::end(k_arch_choices), *a) == std::end(k_arch_choices))
          d.fail("arch", "\"" + arch + "\" is not one of sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120");
        else
          archs[i] = *a;
      }
    }
    d.text("path", paths[i]);
    if (d.error()) return d.error();
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> KernelWorkbench::check_state(const nlohmann::json& j) {
  kernel::Target target = kernel::Target::Heat;
  bool auto_compile = true;
  std::array<kernel::CompileOptions, 3> options;
  std::array<int, 3> archs{};
  std::array<std::optional<std::string>, 3> sources;
  std::array<std::string, 3> paths;
  return read_state(j, target, auto_compile, options, archs, sources, paths);
}

std::optional<std::string> KernelWorkbench::load_state(const nlohmann::json& j) {
  kernel::Target target = m_target;
  bool auto_compile = m_auto_compile;
  std::array<kernel::CompileOptions, 3> options;
  std::array<int, 3> archs{};
  std::array<std::optional<std::string>, 3> sources;
  std::array<std::string, 3> paths;
  for (size_t i = 0; i < 3; ++i) {
    options[i] = m_docs[i].options;
    archs[i] = m_docs[i].arch;
    paths[i] = m_docs[i].path;
  }
  if (auto err = read_state(j, target, auto_compile, options, archs, sources, paths)) return err;
  for (size_t i = 0; i < 3; ++i) {
    Doc& d = m_docs[i];
    if (d.options.fast_math != options[i].fast_math || d.options.lineinfo != options[i].lineinfo ||
        d.options.maxrregcount != options[i].maxrregcount || d.arch != archs[i])
      d.options_dirty = true;
    d.options = options[i];
    d.arch = archs[i];
    d.path = paths[i];
    if (sources[i] && *sources[i] != d.doc.text()) {
      d.doc.replace(*sources[i], "session");
      d.name = "session";
    }
  }
  m_target = target;
  m_auto_compile = auto_compile;
  m_compile_requested = true;
  return std::nullopt;
}

}  // namespace bs
