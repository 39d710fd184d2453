// lab_start_flags.h: the app's lab flags (`blockscope --size 512 --block 32x8 --overlay sm`). The parameters
// a lab's schema marks `start_flag` become flags of the app, with help, defaults and checks from it; after
// parsing, the values given make the labs' start states (AppOptions::start_states), checked as a session's
// state is checked (the schema, then the lab's check_state), with messages that name the flag. The shell
// names no lab: a lab offers flags from its own schema.
#pragma once

#include "app/param_flags.h"  // ParamFlags, CLI's forward declarations, the JSON and containers
#include "gpu/anatomy/overlay.h"

namespace bs::cli {

class LabStartFlags {
 public:
  // Adds every registered lab's start flags (its schema's `start_flag` parameters) to `app` (a flag two labs
  // offer belongs to the first in the registry's order), and --overlay for the labs whose state keeps an
  // anatomy overlay.
  explicit LabStartFlags(CLI::App& app);
  ~LabStartFlags();
  LabStartFlags(const LabStartFlags&) = delete;
  LabStartFlags& operator=(const LabStartFlags&) = delete;

  // After CLI11 parsed: each lab's start state from the flags given (labs without one are left out), or the
  // first message ("--block: ...", "--size: ...").
  std::optional<std::string> read(std::map<std::string, nlohmann::json>& states) const;

 private:
  struct LabFlags;
  std::vector<std::unique_ptr<LabFlags>> m_labs;
  anatomy::OverlayMode m_overlay = anatomy::OverlayMode::Off;
  CLI::Option* m_overlay_option = nullptr;
};

}  // namespace bs::cli
