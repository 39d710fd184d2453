// anatomy_window.cpp: see anatomy_window.h.
#include "app/anatomy/anatomy_window.h"

#include "app/session.h"
#include "app/layout.h"

#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "core/stats.h"
#include "ui/colormap.h"
#include "ui/widgets.h"

namespace bs {

namespace mm = matmul;

namespace {

// Key codes as the GLFW backend fills io.KeysDown (GLFW_KEY_O / GLFW_KEY_A are their ASCII capitals).
constexpr int k_key_overlay = 'O';
constexpr int k_key_window = 'A';

const std::array<uint32_t, 256>& time_ramp() {
  // viridis when embedded, else the first colormap: block time is continuous, so a perceptual ramp.
  static const std::array<uint32_t, 256> ramp = [] {
    const auto& maps = builtin_colormaps();
    for (const auto& m : maps)
      if (m.name == "viridis") return m.rgba;
    std::array<uint32_t, 256> grey{};
    for (uint32_t i = 0; i < 256; ++i)
      grey[i] = 0xff000000u | (i << 16) | (i << 8) | i;
    return maps.empty() ? grey : maps.front().rgba;
  }();
  return ramp;
}

std::string heat_kernel_label(const HeatAnatomyTarget& h) {
  return "heat stencil, block " + to_string(h.block) + ", " + std::to_string(h.cells_per_thread) +
         (h.cells_per_thread == 1 ? " cell/thread" : " cells/thread");
}

// Shared memory a matmul variant's tiles take, from its geometry (CPU path: no compiler numbers to ask).
int64_t matmul_smem_estimate(mm::Variant v) {
  const mm::TileGeometry g = mm::tile_geometry(v);
  if (!g.known || g.bk == 0) return 0;
  const int pad = g.wm > 0 ? 4 : 0;
  return int64_t{4} * (int64_t{g.bk} * (g.bm + pad) + int64_t{g.bk} * g.bn) * std::max(g.stages, 1);
}

bool same_target(const AnatomyTarget& a, const AnatomyTarget& b) {
  if (a.index() != b.index()) return false;
  if (const auto* h = std::get_if<HeatAnatomyTarget>(&a)) {
    const auto& o = std::get<HeatAnatomyTarget>(b);
    return h->params.nx == o.params.nx && h->params.ny == o.params.ny && h->block == o.block &&
           h->grid == o.grid && h->cells_per_thread == o.cells_per_thread;
  }
  if (const auto* r = std::get_if<ReduceAnatomyTarget>(&a)) {
    const reduce::Params &p = r->params, &q = std::get<ReduceAnatomyTarget>(b).params;
    return p.n == q.n && p.op == q.op && p.type == q.type && p.reduce_variant == q.reduce_variant &&
           p.scan_variant == q.scan_variant && p.scan_kind == q.scan_kind && p.block == q.block;
  }
  const auto& m = std::get<MatmulAnatomyTarget>(a);
  const auto& o = std::get<MatmulAnatomyTarget>(b);
  return m.problem == o.problem && m.variant == o.variant;
}

std::string reduce_kernel_label(const reduce::Params& p, const reduce::KernelShape& s) {
  std::string label = std::string(p.op == reduce::Op::Reduce ? "reduce " : "scan ") + reduce::variant_name(p);
  if (s.known) label += " (" + s.kernel + ", block " + std::to_string(p.block) + ")";
  return label;
}

}  // namespace

std::optional<anatomy::CellMapping> anatomy_mapping(const AnatomyTarget& t) {
  if (const auto* h = std::get_if<HeatAnatomyTarget>(&t))
    return anatomy::heat_mapping(h->block, h->grid, h->cells_per_thread);
  if (std::holds_alternative<ReduceAnatomyTarget>(t)) return std::nullopt;
  const auto& m = std::get<MatmulAnatomyTarget>(t);
  return anatomy::matmul_mapping(m.variant, m.problem);
}

std::optional<reduce::KernelShape> anatomy_array_shape(const AnatomyTarget& t, const DeviceInfo& device) {
  const auto* r = std::get_if<ReduceAnatomyTarget>(&t);
  if (!r || !anatomy::is_instrumented_reduce(r->params) || reduce::validate(r->params)) return std::nullopt;
  if (device.available && device.sm_count > 0)
    return anatomy::reduce_launch_shape(r->params, device.sm_count, device.max_threads_per_sm,
                                        device.max_blocks_per_sm,
                                        static_cast<int64_t>(device.smem_per_block_optin));
  return anatomy::reduce_launch_shape_model(r->params);
}

AnatomyRecord record_anatomy(const AnatomyTarget& t) {
  AnatomyRecord out;
  if (const auto* red = std::get_if<ReduceAnatomyTarget>(&t)) {
    const anatomy::ReduceRecord r = anatomy::record_reduce_blocks(red->params);
    out.title = "instrumented " + reduce::describe(r.params) + " on " + r.device_name;
    out.kernel_note = "SM / time colours: instrumented copy of " + r.shape.kernel +
                      " (same code), the launch over the input - instrumented run: not used for timing";
    out.grid = r.grid;
    out.blocks = r.blocks;
    out.sm_count = r.sm_count;
    out.blocks_per_sm = std::max(r.runtime_blocks_per_sm, 1);
    out.array_shape = r.shape;
  } else if (const auto* h = std::get_if<HeatAnatomyTarget>(&t)) {
    if (h->grid != covering_grid(heat::cells_of(h->block, h->cells_per_thread), {h->params.nx, h->params.ny}))
      throw InvalidRequest("the instrumented run uses the covering grid; set the grid back to automatic");
    anatomy::HeatRecordRequest req;
    req.nx = h->params.nx;
    req.ny = h->params.ny;
    req.block = h->block;
    req.cells_per_thread = h->cells_per_thread;
    const anatomy::HeatRecord r = anatomy::record_heat_blocks(req);
    out.title = "instrumented heat stencil " + to_string({r.nx, r.ny}) + ", block " + to_string(r.block) +
                ", " + std::to_string(r.cells_per_thread) + " cell(s)/thread on " + r.device_name;
    out.kernel_note = "SM / time colours: instrumented copy of the heat stencil (same code, " +
                      std::to_string(r.cells_per_thread) +
                      " cells/thread) - instrumented run: not used for timing";
    out.grid = r.grid;
    out.blocks = r.blocks;
    out.sm_count = r.sm_count;
    out.blocks_per_sm = std::max(r.runtime_blocks_per_sm, 1);
  } else {
    const auto& m = std::get<MatmulAnatomyTarget>(t);
    anatomy::MatmulRecordRequest req;
    req.m = m.problem.m;
    req.n = m.problem.n;
    req.k = m.problem.k;
    req.variant = mm::info(m.variant).name;
    const anatomy::MatmulRecord r = anatomy::record_matmul_blocks(req);
    out.title = "instrumented matmul " + r.variant + " " + mm::to_string(m.problem) + " on " + r.device_name;
    out.kernel_note = "SM / time colours: instrumented copy of " + r.variant +
                      " (same code) - instrumented run: not used for timing";
    out.grid = r.grid;
    out.blocks = r.blocks;
    out.sm_count = r.sm_count;
    out.blocks_per_sm = std::max(r.runtime_blocks_per_sm, 1);
  }
  if (static_cast<int64_t>(out.blocks.size()) != out.grid.count())
    throw InvalidRequest("the instrumented run recorded " + std::to_string(out.blocks.size()) + " of " +
                         std::to_string(out.grid.count()) + " blocks");
  out.timeline = anatomy::build_timeline(out.blocks, out.sm_count, out.blocks_per_sm);
  return out;
}

AnatomyWindow::AnatomyWindow(LabEnv& env) : m_env(env) {}

AnatomyWindow::~AnatomyWindow() {
  m_sweep.cancel();
  if (m_texture) glDeleteTextures(1, &m_texture);
}

bool AnatomyWindow::gpu() const {
  return m_env.path.path != RenderPath::Cpu && m_env.device.available;
}

bool AnatomyWindow::sweeping() const {
  return m_sweep.running();
}

void AnatomyWindow::set_mode(anatomy::OverlayMode m) {
  if (m == m_mode) return;
  m_mode = m;
  m_overlay_dirty = true;
  if (anatomy::overlay_needs_record(m) && !m_record && gpu()) m_record_requested = true;
}

void AnatomyWindow::set_target(const AnatomyTarget& t, int64_t field_nx, int64_t field_ny) {
  if (m_target && same_target(*m_target, t) && field_nx == m_nx && field_ny == m_ny) return;
  m_target = t;
  m_nx = field_nx;
  m_ny = field_ny;
  m_mapping = anatomy_mapping(t);
  m_array_shape = anatomy_array_shape(t, gpu() ? m_env.device : DeviceInfo{});
  m_record.reset();
  m_record_error.clear();
  m_timeline_view = {};
  m_overlay_dirty = true;
  m_occupancy_dirty = true;
  m_frames_unchanged = 0;
  // A new launch: the old record says nothing about it. Re-record when something shows it.
  if (gpu() && (anatomy::overlay_needs_record(m_mode) || m_open)) m_record_requested = true;
  if (gpu() && reduce_target() && anatomy::array_map_needs_record(m_array_mode)) m_record_requested = true;
}

void AnatomyWindow::set_array_mode(anatomy::ArrayMapMode m) {
  if (m == m_array_mode) return;
  m_array_mode = m;
  m_overlay_dirty = true;
  if (anatomy::array_map_needs_record(m) && !m_record && gpu()) m_record_requested = true;
}

void AnatomyWindow::check_state(StateReader& r, const char* key) {
  if (!r.has(key)) return;
  std::string name;
  r.text(key, name);
  if (r.ok() && !anatomy::parse_overlay_mode(name))
    r.fail(key, "'" + name + "' is not an overlay: " + anatomy::k_overlay_mode_names.list(", ", " or "));
}

void AnatomyWindow::save_state(nlohmann::json& j, const char* key) const {
  j[key] = anatomy::overlay_mode_name(m_mode);
}

void AnatomyWindow::load_state(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return;
  if (const auto m = anatomy::parse_overlay_mode(j[key].get<std::string>())) set_mode(*m);
}

void AnatomyWindow::check_array_state(StateReader& r, const char* map_key, const char* window_key) {
  int mode = 0;
  if (r.has(map_key)) r.choice(map_key, mode, anatomy::k_array_map_mode_names.names());
  bool open = false;
  if (r.has(window_key)) r.boolean(window_key, open);
}

void AnatomyWindow::save_array_state(nlohmann::json& j, const char* map_key, const char* window_key) const {
  j[map_key] = std::string(anatomy::k_array_map_mode_names.name_of(m_array_mode));
  j[window_key] = m_open;
}

void AnatomyWindow::load_array_state(const nlohmann::json& j, const char* map_key, const char* window_key) {
  if (j.contains(map_key) && j[map_key].is_string())
    if (const auto m = anatomy::k_array_map_mode_names.parse(j[map_key].get<std::string>()))
      set_array_mode(*m);
  if (j.contains(window_key) && j[window_key].is_boolean()) {
    m_open = j[window_key].get<bool>();
    if (m_open && !m_record && gpu()) m_record_requested = true;
  }
}

void AnatomyWindow::handle_keys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || io.KeySuper) return;
  if (ImGui::IsKeyPressed(k_key_overlay, false)) {
    if (reduce_target())
      set_array_mode(anatomy::next_array_map_mode(m_array_mode));
    else
      set_mode(anatomy::next_overlay_mode(m_mode));
  }
  if (ImGui::IsKeyPressed(k_key_window, false)) {
    m_open = !m_open;
    if (m_open && !m_record && gpu()) m_record_requested = true;
  }
}

void AnatomyWindow::rebuild_overlay() {
  m_overlay_dirty = false;
  m_texture_stale = true;
  m_image = {};
  if (reduce_target()) {
    if (!m_array_shape) {
      m_image.error = "cub picks its own kernels and launches: there is no launch to map";
      return;
    }
    if (anatomy::array_map_needs_record(m_array_mode) && !m_record) {
      m_image.error = gpu() ? (m_record_error.empty() ? "recording the instrumented run..." : m_record_error)
                            : "needs a GPU: instrumented run (this is the CPU path)";
      return;
    }
    std::span<const anatomy::BlockRecord> rec;
    if (m_record) rec = m_record->blocks;
    m_image = anatomy::make_array_map(m_array_mode, *m_array_shape,
                                      std::get<ReduceAnatomyTarget>(*m_target).params.n, rec, time_ramp());
    return;
  }
  if (m_mode == anatomy::OverlayMode::Off || !m_target) return;
  if (!m_mapping) {
    m_image.error = "cuBLAS picks its own kernel: there is no launch shape to draw";
    return;
  }
  if (anatomy::overlay_needs_record(m_mode) && !m_record) {
    m_image.error = gpu() ? (m_record_error.empty() ? "recording the instrumented run..." : m_record_error)
                          : "needs a GPU: instrumented run (this is the CPU path)";
    return;
  }
  std::span<const anatomy::BlockRecord> rec;
  if (m_record) rec = m_record->blocks;
  m_image = anatomy::make_overlay(m_mode, *m_mapping, m_nx, m_ny, rec, time_ramp());
}

void AnatomyWindow::update() {
  poll_sweep();
  if (m_occ_actions.run_sweep) start_sweep();
  if (m_occ_actions.cancel_sweep) m_sweep.cancel();
  if (m_occ_actions.regs_changed || m_occ_actions.arch_changed) m_occupancy_dirty = true;
  m_occ_actions = {};
  // While the launch is being edited (a slider dragged), wait until it settles for a few frames (a quarter
  // of a second in a window; counted in frames so headless runs record too): a record of a large field
  // allocates and fills its own buffers.
  const bool settled = ++m_frames_unchanged > 15;
  if (m_record_requested && m_target && settled) {
    m_record_requested = false;
    if (gpu()) {
      try {
        m_record = record_anatomy(*m_target);
        m_record_error.clear();
      } catch (const InvalidRequest& e) {
        m_record.reset();
        m_record_error = e.what();
      }
      m_overlay_dirty = true;
    }
  }
  if (m_occupancy_dirty && m_target) refresh_occupancy();
  if (m_overlay_dirty) rebuild_overlay();
  if (m_texture_stale) {
    m_texture_stale = false;
    if (!m_image.rgba.empty()) {
      if (!m_texture) glGenTextures(1, &m_texture);
      glBindTexture(GL_TEXTURE_2D, m_texture);
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, m_image.w, m_image.h, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                   m_image.rgba.data());
      // Nearest: cell boundaries stay sharp however far the view zooms.
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      glBindTexture(GL_TEXTURE_2D, 0);
    }
  }
}

void AnatomyWindow::abandon_gpu() noexcept {
  m_sweep.cancel();
  m_record.reset();
  m_overlay_dirty = true;
  m_occupancy_dirty = true;
}

void AnatomyWindow::draw_on_field(ImVec2 image_min, ImVec2 image_size, std::optional<double> cell_x,
                                  std::optional<double> cell_y) {
  if (m_mode == anatomy::OverlayMode::Off) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 image_max(image_min.x + image_size.x, image_min.y + image_size.y);
  if (!m_image.rgba.empty() && m_texture && !m_texture_stale) {
    const auto a = static_cast<int>(std::clamp(m_alpha, 0.0f, 1.0f) * 255.0f);
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_texture)), image_min, image_max,
                 ImVec2(0, 0), ImVec2(1, 1), IM_COL32(255, 255, 255, a));
  } else if (!m_image.error.empty()) {
    // Bottom left: the path read-out covers the top-left corner.
    const ImVec2 ts = ImGui::CalcTextSize(m_image.error.c_str());
    const ImVec2 p(image_min.x + 8, image_max.y - ts.y - 8);
    dl->AddRectFilled(ImVec2(p.x - 4, p.y - 2), ImVec2(p.x + ts.x + 4, p.y + ts.y + 2),
                      IM_COL32(0, 0, 0, 200));
    dl->AddText(p, IM_COL32(255, 200, 80, 255), m_image.error.c_str());
  }
  if (!cell_x || !cell_y || !m_mapping) return;
  const auto x = static_cast<int64_t>(*cell_x), y = static_cast<int64_t>(*cell_y);
  if (x < 0 || y < 0 || x >= m_nx || y >= m_ny) return;
  const anatomy::CellOwner o = anatomy::cell_owner(*m_mapping, x, y);
  ImGui::BeginTooltip();
  if (!o.covered) {
    ImGui::TextUnformatted("no thread owns this cell (the grid does not cover it)");
  } else {
    ImGui::Text("blockIdx (%lld, %lld) = block %lld", static_cast<long long>(o.bx),
                static_cast<long long>(o.by), static_cast<long long>(o.block_linear));
    if (m_mapping->threads_known)
      ImGui::Text("threadIdx (%lld, %lld), warp %lld of the block", static_cast<long long>(o.tx),
                  static_cast<long long>(o.ty), static_cast<long long>(o.warp));
    if (m_record) {
      const anatomy::BlockLookup look(m_record->blocks, m_record->grid);
      if (const anatomy::BlockRecord* r = look.find(o.bx, o.by))
        ImGui::Text("ran on SM %u for %.2f us (instrumented run)", r->sm,
                    static_cast<double>(r->end_ns - r->start_ns) * 1e-3);
    }
  }
  ImGui::EndTooltip();
}

void AnatomyWindow::draw_array_map(ImVec2 size) {
  if (!m_array_shape || m_image.rgba.empty() || !m_texture || m_texture_stale) {
    if (!m_image.error.empty()) ui::advice_text(m_image.error);
    return;
  }
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_texture)), size);
  ImGui::GetWindowDrawList()->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y),
                                      ImGui::GetColorU32(ImGuiCol_Border));
  if (!ImGui::IsItemHovered() || size.x <= 0 || size.y <= 0) return;
  const reduce::Params& p = std::get<ReduceAnatomyTarget>(*m_target).params;
  const anatomy::ArrayLayout l = anatomy::array_layout(*m_array_shape, p.n);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const auto col = static_cast<int64_t>((mouse.x - p0.x) / size.x * static_cast<float>(m_image.w));
  const auto row = static_cast<int64_t>((mouse.y - p0.y) / size.y * static_cast<float>(m_image.h));
  const int64_t chunk = anatomy::chunk_at(l, col, row);
  if (chunk < 0) return;
  const anatomy::ElementRange e = anatomy::chunk_elements(*m_array_shape, l, chunk);
  const int64_t b = reduce::block_of_element(*m_array_shape, e.first);
  ImGui::BeginTooltip();
  ImGui::Text("elements %lld .. %lld", static_cast<long long>(e.first), static_cast<long long>(e.last - 1));
  ImGui::Text("taken by block %lld of %lld", static_cast<long long>(b),
              static_cast<long long>(m_array_shape->grid));
  if (m_record && b >= 0) {
    for (const anatomy::BlockRecord& r : m_record->blocks)
      if (r.block_x == static_cast<uint64_t>(b)) {
        ImGui::Text("ran on SM %u for %.2f us, started %.2f us after the first block (instrumented run)",
                    r.sm, static_cast<double>(r.end_ns - r.start_ns) * 1e-3,
                    static_cast<double>(r.start_ns - m_record->timeline.t0_ns) * 1e-3);
        break;
      }
  }
  ImGui::EndTooltip();
}

void AnatomyWindow::array_mode_combo(const char* label) {
  int mode = static_cast<int>(m_array_mode);
  const char* names[anatomy::k_array_map_mode_count];
  for (int i = 0; i < anatomy::k_array_map_mode_count; ++i)
    names[i] = anatomy::array_map_mode_label(static_cast<anatomy::ArrayMapMode>(i));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  if (ImGui::Combo(label, &mode, names, anatomy::k_array_map_mode_count))
    set_array_mode(static_cast<anatomy::ArrayMapMode>(mode));
}

void AnatomyWindow::anatomy_button() {
  if (ImGui::Button("Anatomy... (A)")) {
    m_open = !m_open;
    if (m_open && !m_record && gpu()) m_record_requested = true;
  }
}

void AnatomyWindow::draw_controls() {
  if (reduce_target()) {
    ui::section_title("Anatomy: which block takes which elements");
    array_mode_combo("colour by (O)");
    ImGui::SameLine();
    anatomy_button();
    if (m_array_shape) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", m_array_shape->note.c_str());
      ImGui::PopStyleColor();
    }
    const float w = ImGui::GetContentRegionAvail().x;
    if (m_image.w > 0 && m_image.h > 0) {
      const float h = std::clamp(w * static_cast<float>(m_image.h) / static_cast<float>(m_image.w),
                                 ImGui::GetFontSize(), ImGui::GetFontSize() * 6);
      draw_array_map(ImVec2(w, h));
    } else if (!m_image.error.empty()) {
      ui::advice_text(m_image.error);
    }
    if (m_image.rgba.empty()) return;
    ui::OverlayLegend l;
    l.categorical = m_array_mode == anatomy::ArrayMapMode::Block || m_array_mode == anatomy::ArrayMapMode::Sm;
    l.period = m_array_mode == anatomy::ArrayMapMode::Sm ? 12 : m_image.period;
    l.palette = anatomy::categorical_palette();
    l.ramp = time_ramp();
    l.lo = m_image.lo_us;
    l.hi = m_image.hi_us;
    l.text = m_image.legend;
    if (anatomy::array_map_needs_record(m_array_mode) && m_record) l.source = m_record->kernel_note;
    ui::draw_overlay_legend(l);
    return;
  }
  ui::section_title("Anatomy: who computes which cell");
  int mode = static_cast<int>(m_mode);
  const char* names[anatomy::k_overlay_mode_count];
  for (int i = 0; i < anatomy::k_overlay_mode_count; ++i)
    names[i] = anatomy::overlay_mode_label(static_cast<anatomy::OverlayMode>(i));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  if (ImGui::Combo("overlay (O)", &mode, names, anatomy::k_overlay_mode_count))
    set_mode(static_cast<anatomy::OverlayMode>(mode));
  ImGui::SameLine();
  anatomy_button();
  if (m_mode == anatomy::OverlayMode::Off) return;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  ImGui::SliderFloat("overlay opacity", &m_alpha, 0.1f, 1.0f, "%.2f");
  if (m_mapping) ImGui::TextDisabled("mapping: %s", m_mapping->kernel.c_str());
  if (!m_image.error.empty()) {
    ui::advice_text(m_image.error);
    return;
  }
  ui::OverlayLegend l;
  l.categorical = m_mode != anatomy::OverlayMode::BlockTime;
  l.period = m_mode == anatomy::OverlayMode::Sm || m_mode == anatomy::OverlayMode::Warp ? 12 : m_image.period;
  l.palette = anatomy::categorical_palette();
  l.ramp = time_ramp();
  l.lo = m_image.lo_us;
  l.hi = m_image.hi_us;
  l.text = m_image.legend;
  if (anatomy::overlay_needs_record(m_mode) && m_record) l.source = m_record->kernel_note;
  ui::draw_overlay_legend(l);
}

void AnatomyWindow::refresh_occupancy() {
  m_occupancy_dirty = false;
  ui::OccupancyPanelModel& o = m_occ;
  const int keep_regs = o.regs_per_thread;
  const bool keep_assumed = !o.measured_regs;
  o.runtime_blocks_per_sm.reset();
  o.runtime_threads.clear();
  o.runtime_occupancy.clear();
  o.measured_regs = false;
  o.dynamic_smem = 0;
  // The architecture picker: "this GPU" first where one exists, then the table; without a GPU sm_90 first.
  if (o.arch_choices.empty()) {
    o.arch_choices = ui::occupancy_arch_choices(gpu() ? m_env.device.name : std::string());
    o.arch_choice = 0;
    if (!gpu())
      for (size_t i = 0; i < anatomy::arch_table().size(); ++i)
        if (anatomy::arch_table()[i].name == "sm_90") o.arch_choice = static_cast<int>(i);
  }
  const std::optional<anatomy::ArchSpec> picked = ui::occupancy_arch(o.arch_choice, gpu());
  const bool this_gpu = gpu() && !picked;  // the device itself: measured registers and the CUDA API
  anatomy::ArchSpec arch = picked ? *picked : *anatomy::find_arch("sm_90");
  std::string device_kernel;  // a kernel anatomy can query on the device
  std::optional<mm::KernelAttributes> mm_attr;
  const auto* red = std::get_if<ReduceAnatomyTarget>(&*m_target);
  if (red) {
    const reduce::KernelShape s =
        m_array_shape ? *m_array_shape : reduce::KernelShape{.note = "cub picks its own kernels"};
    o.kernel = reduce_kernel_label(red->params, s);
    o.threads = red->params.block;
    o.static_smem = s.static_smem;
    o.dynamic_smem = s.dynamic_smem;
    o.can_sweep = gpu() && s.known;
    o.sweep_unavailable = s.known ? "needs a GPU" : "CUB: no block size to choose";
    if (!s.known) o.kernel += " (the library picks its kernels: no launch shape)";
  } else if (const auto* h = std::get_if<HeatAnatomyTarget>(&*m_target)) {
    o.kernel = heat_kernel_label(*h);
    o.threads = static_cast<int>(h->block.count());
    o.static_smem = 0;
    device_kernel = anatomy::heat_kernel_name(h->cells_per_thread);
    o.can_sweep = gpu();
    o.sweep_unavailable = "needs a GPU";
  } else {
    const auto& m = std::get<MatmulAnatomyTarget>(*m_target);
    o.kernel = std::string("matmul ") + mm::info(m.variant).name;
    const mm::LaunchShape s = mm::launch_shape(m.variant, m.problem);
    o.threads = static_cast<int>(std::max<int64_t>(s.block.count(), 1));
    o.static_smem = matmul_smem_estimate(m.variant);
    o.can_sweep = gpu();
    o.sweep_unavailable = "needs a GPU";
    if (m.variant == mm::Variant::Cublas) {
      o.kernel += " (the library picks its kernel: no launch shape)";
      o.can_sweep = false;
      o.sweep_unavailable = "cuBLAS: no block size to choose";
    }
    if (gpu() && m.variant != mm::Variant::Cublas) {
      try {
        // A small runner whose K and N share the lab's divisibility by 4, so it picks the same (float4 or
        // scalar) kernel flavour as the lab's runner.
        mm::GpuRunner probe(mm::Problem{64, m.problem.n % 4 == 0 ? 64 : 65, m.problem.k % 4 == 0 ? 64 : 65});
        mm_attr = probe.attributes(m.variant);
      } catch (const InvalidRequest&) {
      }
    }
  }
  try {
    if (this_gpu) {
      arch = anatomy::device_arch();
      if (std::holds_alternative<HeatAnatomyTarget>(*m_target)) {
        const anatomy::KernelAttributes ka = anatomy::kernel_attributes(device_kernel);
        o.regs_per_thread = ka.regs_per_thread;
        o.static_smem = ka.static_smem;
        o.measured_regs = true;
        o.runtime_blocks_per_sm = anatomy::runtime_blocks_per_sm(device_kernel, o.threads, 0);
        for (int t = 32; t <= std::min(arch.max_threads_per_block, ka.max_threads_per_block); t += 32) {
          const int b = anatomy::runtime_blocks_per_sm(device_kernel, t, 0);
          o.runtime_threads.push_back(t);
          o.runtime_occupancy.push_back(100.0 * b * ((t + arch.warp_size - 1) / arch.warp_size) /
                                        arch.max_warps_per_sm);
        }
        o.source = "GPU: " + m_env.device.name +
                   " (registers from cudaFuncGetAttributes of this lab's copy of the "
                   "stencil; cudaOccupancyMaxActiveBlocksPerMultiprocessor)";
      } else if (red && m_array_shape) {
        const anatomy::DeviceOccupancy d = anatomy::reduce_device_occupancy(red->params);
        o.regs_per_thread = d.attrs.regs_per_thread;
        o.static_smem = d.attrs.static_smem;
        o.measured_regs = true;
        o.runtime_blocks_per_sm = d.runtime_blocks_per_sm;
        // The lab's block sizes (powers of two the variant takes), each with its own shared memory.
        for (int t = reduce::k_min_block; t <= reduce::k_max_block; t *= 2) {
          reduce::Params q = red->params;
          q.block = t;
          if (reduce::validate(q)) continue;
          const anatomy::DeviceOccupancy dq = anatomy::reduce_device_occupancy(q);
          o.runtime_threads.push_back(t);
          o.runtime_occupancy.push_back(100.0 * dq.runtime_blocks_per_sm *
                                        ((t + arch.warp_size - 1) / arch.warp_size) / arch.max_warps_per_sm);
        }
        o.source = "GPU: " + m_env.device.name +
                   " (the lab's own kernel: cudaFuncGetAttributes, "
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor with the launch's dynamic shared memory)";
      } else if (mm_attr && mm_attr->known) {
        o.regs_per_thread = mm_attr->regs_per_thread;
        o.static_smem = static_cast<int64_t>(mm_attr->static_smem_bytes);
        o.measured_regs = true;
        o.runtime_blocks_per_sm = mm_attr->blocks_per_sm;
        o.source =
            "GPU: " + m_env.device.name +
            " (the variant's own kernel: cudaFuncGetAttributes, "
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor). Its block size is compiled in: the curve is "
            "the model's what-if";
      }
    }
  } catch (const GpuError& e) {
    o.source = std::string("GPU query failed: ") + e.what();
  } catch (const InvalidRequest& e) {
    o.source = std::string("GPU query refused: ") + e.what();
  }
  if (!o.measured_regs) {
    o.regs_per_thread = keep_assumed && keep_regs > 0 ? keep_regs : 32;
    o.source = "model, not a measurement: " + arch.name + " (" + arch.family +
               ") from the table; registers assumed, shared memory " +
               (red ? "as the kernel declares it and the launch passes" : "estimated from the tiles");
  }
  ui::compute_occupancy_model(o, arch);
  if (red && m_array_shape) {
    // The reduce kernels' shared memory follows the block (one value per thread, the tile scans' buffer): the
    // curve takes each block size the variant allows with its own, not this block's.
    o.curve_threads.clear();
    o.curve_occupancy.clear();
    for (int t = reduce::k_min_block; t <= reduce::k_max_block; t *= 2) {
      reduce::Params q = red->params;
      q.block = t;
      if (reduce::validate(q)) continue;
      const reduce::KernelShape qs = gpu() ? *anatomy_array_shape(ReduceAnatomyTarget{q}, m_env.device)
                                           : anatomy::reduce_launch_shape_model(q);
      anatomy::KernelUsage u;
      u.threads_per_block = t;
      u.regs_per_thread = std::clamp(o.regs_per_thread, 0, arch.max_regs_per_thread);
      u.static_smem = qs.static_smem;
      u.dynamic_smem = qs.dynamic_smem;
      try {
        const anatomy::Occupancy occ = anatomy::compute_occupancy(arch, u);
        o.curve_threads.push_back(t);
        o.curve_occupancy.push_back(100.0 * occ.occupancy);
      } catch (const InvalidRequest&) {
        // Beyond this architecture's limits: no point.
      }
    }
  }
}

BlockSizeTimes measure_block_sizes(const AnatomyTarget& t, JobControl& ctl) {
  BlockSizeTimes result;
  if (const auto* red = std::get_if<ReduceAnatomyTarget>(&t)) {
    // The lab's block sizes the variant takes, each a warm-up and 5 timed runs (median), unchecked.
    std::vector<int> sizes;
    for (int b = reduce::k_min_block; b <= reduce::k_max_block; b *= 2) {
      reduce::Params q = red->params;
      q.block = b;
      if (!reduce::validate(q)) sizes.push_back(b);
    }
    result.label = reduce::describe(red->params) + ": ms per run against threads per block";
    reduce::GpuRunner runner;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (ctl.cancelled()) throw JobCancelled{};
      reduce::Params q = red->params;
      q.block = sizes[i];
      const reduce::Row r = runner.run(q, 5, false);
      result.threads.push_back(sizes[i]);
      result.ms.push_back(r.ms.median);
      ctl.set_progress(static_cast<double>(i + 1) / static_cast<double>(sizes.size()));
    }
    return result;
  }
  if (const auto* h = std::get_if<HeatAnatomyTarget>(&t)) {
    // Block shapes 32 x (threads / 32): whole warps along x, as the heat lab's default shapes.
    std::vector<int> sizes = {32};
    for (int s = 64; s <= 1024; s += 64)
      sizes.push_back(s);
    result.label = "heat stencil, " + std::to_string(h->cells_per_thread) +
                   " cells/thread, blocks 32 x (threads/32): ms per step";
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (ctl.cancelled()) throw JobCancelled{};
      const Dim2 block{32, sizes[i] / 32};
      const heat::GpuBench b = heat::bench_gpu(h->params, block, 10, 5, h->cells_per_thread);
      result.threads.push_back(sizes[i]);
      result.ms.push_back(b.stencil.ms_per_step);
      ctl.set_progress(static_cast<double>(i + 1) / static_cast<double>(sizes.size()));
    }
    return result;
  }
  // Matmul kernels compile their block size in: the shared-memory tile kernels are the same algorithm at 64,
  // 256 and 1024 threads.
  const auto& m = std::get<MatmulAnatomyTarget>(t);
  result.label = "matmul smem_tile8 / 16 / 32 (T x T threads): ms per launch";
  mm::GpuRunner runner(m.problem);
  runner.set_inputs(mm::make_matrix(m.problem.m, m.problem.k, 1),
                    mm::make_matrix(m.problem.k, m.problem.n, 2));
  const mm::Variant vs[] = {mm::Variant::SmemTile8, mm::Variant::SmemTile16, mm::Variant::SmemTile32};
  for (size_t i = 0; i < 3; ++i) {
    if (ctl.cancelled()) throw JobCancelled{};
    const Summary s = summarize(runner.time_runs(vs[i], 2, 5));
    const int tile = mm::tile_geometry(vs[i]).bm;
    result.threads.push_back(tile * tile);
    result.ms.push_back(s.median);
    ctl.set_progress(static_cast<double>(i + 1) / 3.0);
  }
  return result;
}

void AnatomyWindow::start_sweep() {
  if (!m_target || !gpu() || m_sweep.running()) return;
  auto result = std::make_shared<BlockSizeTimes>();
  m_sweep_result = result;
  m_sweep_collected = false;
  m_occ.sweep_status.clear();
  const AnatomyTarget t = *m_target;
  m_sweep.start("block-size sweep", [t, result](JobControl& ctl) { *result = measure_block_sizes(t, ctl); });
}

void AnatomyWindow::poll_sweep() {
  m_occ.sweep_running = m_sweep.running();
  m_occ.sweep_progress = m_sweep.progress();
  if (m_sweep_collected) return;
  switch (m_sweep.state()) {
    case CpuJob::State::Done:
      m_sweep_collected = true;
      m_occ.measured_threads = m_sweep_result->threads;
      m_occ.measured_ms = m_sweep_result->ms;
      m_occ.measured_label = m_sweep_result->label;
      m_occ.sweep_status = "measured with CUDA events (median); the live view paused meanwhile";
      break;
    case CpuJob::State::Cancelled:
      m_sweep_collected = true;
      m_occ.sweep_status = "cancelled";
      break;
    case CpuJob::State::Failed:
      m_sweep_collected = true;
      m_occ.sweep_status = m_sweep.error();
      break;
    default:
      break;
  }
}

void AnatomyWindow::draw_window() {
  if (!m_open) return;
  // The lower part of the view: the field's top rows stay visible.
  if (begin_window("Anatomy", Slot::Anatomy, &m_open)) {
    if (ImGui::BeginTabBar("anatomy_tabs")) {
      if (ImGui::BeginTabItem("Block scheduling timeline")) {
        if (!gpu()) {
          ui::advice_text(
              "needs a GPU: instrumented run (this is the CPU path). The arithmetic without one:");
          const int64_t blocks = m_mapping       ? m_mapping->grid.count()
                                 : m_array_shape ? m_array_shape->grid
                                                 : 0;
          if (m_occ.model.blocks_per_sm > 0 && blocks > 0) {
            ImGui::Text("on an H100 SXM (132 SMs, model): %s",
                        ui::waves_text(blocks, 132, m_occ.model.blocks_per_sm).c_str());
          }
        } else if (m_record) {
          if (ImGui::Button("Record again")) m_record_requested = true;
          ImGui::SameLine();
          if (ImGui::Button("Save timeline PNG")) {
            std::string err;
            const std::string path = "blockscope_timeline.png";
            m_png_status = ui::export_timeline_png(m_record->timeline, m_record->title, path, &err)
                               ? "wrote " + path + " (in the working directory)"
                               : err;
          }
          if (!m_png_status.empty()) {
            ImGui::SameLine();
            ImGui::TextDisabled("%s", m_png_status.c_str());
          }
          ui::draw_timeline_panel(m_record->timeline, m_record->title, m_timeline_view);
        } else {
          if (!m_record_error.empty()) ui::advice_text(m_record_error);
          if (ImGui::Button("Record an instrumented run")) m_record_requested = true;
        }
        ImGui::EndTabItem();
      }
      if (reduce_target() && ImGui::BeginTabItem("Array map")) {
        ImGui::TextWrapped(
            "The input array as a strip, read left to right and top to bottom: one texel per chunk of "
            "elements a block takes (%s). Hover for the elements, the block and where and when it ran.",
            m_array_shape ? m_array_shape->note.c_str() : "no launch");
        array_mode_combo("colour by##map");
        if (!m_image.legend.empty()) ImGui::TextDisabled("%s", m_image.legend.c_str());
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        if (m_image.w > 0 && m_image.h > 0) {
          // Keep texels square where the window allows.
          const float aspect = static_cast<float>(m_image.h) / static_cast<float>(m_image.w);
          float w = avail.x, h = w * aspect;
          if (h > avail.y - 4) {
            h = std::max(avail.y - 4, ImGui::GetFontSize());
            w = std::min(avail.x, h / std::max(aspect, 1e-6f));
          }
          // Rows at least 6 pixels high where there is room (texels then are not square): a few rows
          // (the trips of a grid-stride loop) stay visible.
          h = std::max(h, std::min(avail.y - 4, 6.0f * static_cast<float>(m_image.h)));
          draw_array_map(ImVec2(w, h));
        } else if (!m_image.error.empty()) {
          ui::advice_text(m_image.error);
        }
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Occupancy")) {
        ui::draw_occupancy_panel(m_occ, m_occ_actions);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

}  // namespace bs
