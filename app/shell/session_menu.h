// session_menu.h: the Session menu (Save..., Load..., Presets) and its Save / Load dialogs with the list of
// sessions saved before. Saving asks before replacing a file. A session chosen here is not applied at once:
// the app takes it between frames (take_pending).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "app/layout.h"
#include "app/session.h"
#include "app/shell/toasts.h"

namespace bs {

class SessionMenu {
 public:
  // Ctrl+S / Ctrl+O: the dialog opens in the next draw_popups().
  void request_save() { m_open = Popup::Save; }
  void request_load() { m_open = Popup::Load; }
  // Inside the main menu bar.
  void draw_menu(Toasts& toasts);
  // Every frame: the dialogs (kept inside the window by the layout). `current` is the session Save writes.
  void draw_popups(Layout& layout, const std::function<Session()>& current, Toasts& toasts);
  // A session loaded from a file or a preset, to apply before the next frame.
  std::optional<Session> take_pending();
  bool overwrite_asked() const { return !m_overwrite.empty(); }

 private:
  void draw_save(const std::function<Session()>& current, Toasts& toasts);
  void draw_load();

  enum class Popup { None, Save, Load } m_open = Popup::None;
  char m_path[512] = "";
  std::string m_error;      // shown in the Save / Load dialog
  std::string m_overwrite;  // Save: the existing file the user is asked to overwrite
  std::optional<Session> m_pending;
};

}  // namespace bs
