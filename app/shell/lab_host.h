// lab_host.h: the open labs and the active one. A lab is built when first opened (on the CPU when the GPU
// cannot build it) and kept, paused, while another one is shown. The host draws the active lab, whose windows
// go into the layout's View and Panel slots, and records where the lab's view is on screen this frame (what
// Shift+F12 captures).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/lab.h"
#include "app/layout.h"

namespace bs {

struct AppOptions;
class GpuRecovery;

class LabHost {
 public:
  LabHost(LabEnv& env, const AppOptions& opt, GpuRecovery& gpu) : m_env(env), m_opt(opt), m_gpu(gpu) {}
  ~LabHost() { clear(); }

  // Shows lab `id`, building it first if needed. Throws std::runtime_error for an unknown id.
  void open(const std::string& id);
  // Lab `id`, built if needed but without making it the active one (*made: it was built now).
  Lab* find_or_make(const std::string& id, bool* made);
  // Forgets the labs opened after the first `count` (a session that failed half-way).
  void truncate(size_t count);
  void clear() { m_labs.clear(); }

  bool empty() const { return m_labs.empty(); }
  size_t size() const { return m_labs.size(); }
  Lab& active() { return *m_labs[m_active].second; }
  const Lab& active() const { return *m_labs[m_active].second; }
  const std::string& active_id() const { return m_labs[m_active].first; }
  // Makes the open lab `id` the active one; false when it is not open.
  bool activate(const std::string& id);
  const std::vector<std::pair<std::string, std::unique_ptr<Lab>>>& labs() const { return m_labs; }

  // Builds the active lab's windows (inside a frame) and records its view's rectangle from the layout.
  void draw_ui(const Layout& layout);
  // The active lab's view window as drawn this frame (none: collapsed, closed or the lab has no view).
  std::optional<Rect> view_rect() const { return m_view_rect; }

  // Device-reset support, for every open lab.
  void abandon_gpu() noexcept;
  void rebuild();

 private:
  LabEnv& m_env;
  const AppOptions& m_opt;
  GpuRecovery& m_gpu;
  std::vector<std::pair<std::string, std::unique_ptr<Lab>>> m_labs;
  size_t m_active = 0;
  std::optional<Rect> m_view_rect;
};

}  // namespace bs
