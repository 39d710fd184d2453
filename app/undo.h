// undo.h: undo / redo of a lab's parameters, generic over the labs: the app shows the history the lab's
// save_state() snapshots, taken when a change has settled (no edit in progress and no further change for a
// moment), so dragging a slider makes one step, not one per frame. Bounded: the oldest steps are dropped.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <deque>
#include <optional>

namespace bs {

class UndoHistory {
 public:
  static constexpr double k_settle_s = 0.5;  // a change counts once nothing changed for this long
  static constexpr size_t k_default_limit = 100;

  explicit UndoHistory(size_t limit = k_default_limit) : m_limit(limit) {}

  // Once a frame: the lab's state now, whether the user is still editing (a slider held, a field being typed
  // in) and the time in seconds. The first call sets the starting point.
  void observe(const nlohmann::json& state, double now, bool editing);
  // The state to load to undo (redo) the last change, given the lab's state now; nullopt when there is
  // nothing to undo (redo). A change not yet settled is undone too. After loading, call rebase().
  std::optional<nlohmann::json> undo(const nlohmann::json& current);
  std::optional<nlohmann::json> redo(const nlohmann::json& current);
  // After the app loaded a state into the lab (undo, redo, a session): what the lab now reports is the new
  // starting point (no step is recorded for it).
  void rebase(const nlohmann::json& state);

  bool can_undo(const nlohmann::json& current) const;
  bool can_redo(const nlohmann::json& current) const;
  size_t undo_steps() const { return m_undo.size(); }
  size_t redo_steps() const { return m_redo.size(); }

 private:
  void commit(const nlohmann::json& state);

  size_t m_limit;
  std::deque<nlohmann::json> m_undo, m_redo;
  nlohmann::json m_committed;  // the state after the last recorded step
  bool m_started = false;
  std::optional<nlohmann::json> m_pending;  // a change not yet settled
  double m_pending_since = 0;
};

}  // namespace bs
