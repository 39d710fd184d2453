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

namespace {

// Key codes as the GLFW backend fills io.KeysDown (GLFW_KEY_O / GLFW_KEY_A are their ASCII capitals).
constexpr int k_key_overlay = 'O';
constexpr int k_key_window = 'A';
constexpr const char* k_anatomy_button = "Anatomy... (A)";

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

}  // namespace

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
  if (m_target && m_target->same_as(t) && field_nx == m_nx && field_ny == m_ny) return;
  m_target = t.clone();
  m_nx = field_nx;
  m_ny = field_ny;
  m_mapping = t.mapping();
  m_array_shape = t.array_launch(gpu() ? m_env.device : DeviceInfo{});
  m_record.reset();
  m_record_error.clear();
  m_timeline_view = {};
  m_overlay_dirty = true;
  m_occupancy_dirty = true;
  m_frames_unchanged = 0;
  // A new launch: the old record says nothing about it. Re-record when something shows it.
  if (gpu() && (anatomy::overlay_needs_record(m_mode) || m_open)) m_record_requested = true;
  if (gpu() && array_target() && anatomy::array_map_needs_record(m_array_mode)) m_record_requested = true;
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
    if (array_target())
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
  if (array_target()) {
    if (!m_array_shape) {
      m_image.error = m_target->no_launch_reason();
      return;
    }
    if (anatomy::array_map_needs_record(m_array_mode) && !m_record) {
      m_image.error = gpu() ? (m_record_error.empty() ? "recording the instrumented run..." : m_record_error)
                            : "needs a GPU: instrumented run (this is the CPU path)";
      return;
    }
    std::span<const anatomy::BlockRecord> rec;
    if (m_record) rec = m_record->blocks;
    m_image = anatomy::make_array_map(m_array_mode, *m_array_shape, m_target->array_elements(), rec,
                                      time_ramp());
    return;
  }
  if (m_mode == anatomy::OverlayMode::Off || !m_target) return;
  if (!m_mapping) {
    m_image.error = m_target->no_launch_reason();
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
        m_record = m_target->record();
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
  const anatomy::ArrayLayout l = anatomy::array_layout(*m_array_shape, m_target->array_elements());
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const auto col = static_cast<int64_t>((mouse.x - p0.x) / size.x * static_cast<float>(m_image.w));
  const auto row = static_cast<int64_t>((mouse.y - p0.y) / size.y * static_cast<float>(m_image.h));
  const int64_t chunk = anatomy::chunk_at(l, col, row);
  if (chunk < 0) return;
  const anatomy::ElementRange e = anatomy::chunk_elements(*m_array_shape, l, chunk);
  const int64_t b = anatomy::block_of_element(*m_array_shape, e.first);
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
  if (ImGui::Button(k_anatomy_button)) {
    m_open = !m_open;
    if (m_open && !m_record && gpu()) m_record_requested = true;
  }
}

void AnatomyWindow::draw_legend(bool categorical, int period, bool needs_record) {
  ui::OverlayLegend l;
  l.categorical = categorical;
  l.period = period;
  l.palette = anatomy::categorical_palette();
  l.ramp = time_ramp();
  l.lo = m_image.lo_us;
  l.hi = m_image.hi_us;
  l.text = m_image.legend;
  if (needs_record && m_record) l.source = m_record->kernel_note;
  ui::draw_overlay_legend(l);
}

void AnatomyWindow::draw_array_controls() {
  ui::section_title("Anatomy: which block takes which elements");
  array_mode_combo("colour by (O)");
  ui::same_line_if_fits(ui::button_width(k_anatomy_button));
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
  const bool categorical =
      m_array_mode == anatomy::ArrayMapMode::Block || m_array_mode == anatomy::ArrayMapMode::Sm;
  draw_legend(categorical, m_array_mode == anatomy::ArrayMapMode::Sm ? 12 : m_image.period,
              anatomy::array_map_needs_record(m_array_mode));
}

void AnatomyWindow::draw_controls() {
  if (array_target()) return draw_array_controls();
  ui::section_title("Anatomy: who computes which cell");
  int mode = static_cast<int>(m_mode);
  const char* names[anatomy::k_overlay_mode_count];
  for (int i = 0; i < anatomy::k_overlay_mode_count; ++i)
    names[i] = anatomy::overlay_mode_label(static_cast<anatomy::OverlayMode>(i));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  if (ImGui::Combo("overlay (O)", &mode, names, anatomy::k_overlay_mode_count))
    set_mode(static_cast<anatomy::OverlayMode>(mode));
  ui::same_line_if_fits(ui::button_width(k_anatomy_button));  // presenter mode at 1280 px: the next line
  anatomy_button();
  if (m_mode == anatomy::OverlayMode::Off) return;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  ImGui::SliderFloat("overlay opacity", &m_alpha, 0.1f, 1.0f, "%.2f");
  if (m_mapping) ImGui::TextDisabled("mapping: %s", m_mapping->kernel.c_str());
  if (!m_image.error.empty()) {
    ui::advice_text(m_image.error);
    return;
  }
  draw_legend(m_mode != anatomy::OverlayMode::BlockTime,
              m_mode == anatomy::OverlayMode::Sm || m_mode == anatomy::OverlayMode::Warp ? 12 : m_image.period,
              anatomy::overlay_needs_record(m_mode));
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
  OccupancyQuery q;
  q.gpu = gpu();
  if (q.gpu) q.device = m_env.device;
  q.array_launch = m_array_shape;
  m_target->describe_occupancy(o, q);
  try {
    if (this_gpu) {
      arch = anatomy::device_arch();
      m_target->measure_occupancy(o, arch, q);
    }
  } catch (const GpuError& e) {
    o.source = std::string("GPU query failed: ") + e.what();
  } catch (const InvalidRequest& e) {
    o.source = std::string("GPU query refused: ") + e.what();
  }
  if (!o.measured_regs) {
    o.regs_per_thread = keep_assumed && keep_regs > 0 ? keep_regs : 32;
    o.source = "model, not a measurement: " + arch.name + " (" + arch.family +
               ") from the table; registers assumed, shared memory " + m_target->model_smem_source();
  }
  ui::compute_occupancy_model(o, arch);
  m_target->adjust_model_curve(o, arch, q);
}

void AnatomyWindow::start_sweep() {
  if (!m_target || !gpu() || m_sweep.running()) return;
  auto result = std::make_shared<BlockSizeTimes>();
  m_sweep_result = result;
  m_sweep_collected = false;
  m_occ.sweep_status.clear();
  const std::shared_ptr<const AnatomyTarget> t = m_target;
  m_sweep.start("block-size sweep", [t, result](JobControl& ctl) { *result = t->measure_block_sizes(ctl); });
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
          ui::same_line_if_fits(ui::button_width("Save timeline PNG"));
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
      if (array_target() && ImGui::BeginTabItem("Array map")) {
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
