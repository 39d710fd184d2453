// undo.cpp: see undo.h.
#include "app/undo.h"

namespace bs {

void UndoHistory::commit(const nlohmann::json& state) {
  m_undo.push_back(m_committed);
  while (m_undo.size() > m_limit)
    m_undo.pop_front();
  m_committed = state;
  m_redo.clear();
  m_pending.reset();
}

void UndoHistory::observe(const nlohmann::json& state, double now, bool editing) {
  if (!m_started) {
    m_committed = state;
    m_started = true;
    return;
  }
  if (state == m_committed) {
    m_pending.reset();  // changed and changed back before it settled: nothing happened
    return;
  }
  if (!m_pending || *m_pending != state) {
    m_pending = state;
    m_pending_since = now;
  }
  if (!editing && now - m_pending_since >= k_settle_s) commit(state);
}

std::optional<nlohmann::json> UndoHistory::undo(const nlohmann::json& current) {
  if (!m_started) return std::nullopt;
  if (current != m_committed) {
    // An unsettled change: undo goes back to the state before it, and redo can bring it back.
    m_undo.push_back(m_committed);
    m_committed = current;
  }
  if (m_undo.empty()) return std::nullopt;
  m_redo.push_back(m_committed);
  m_committed = m_undo.back();
  m_undo.pop_back();
  m_pending.reset();
  return m_committed;
}

std::optional<nlohmann::json> UndoHistory::redo(const nlohmann::json& current) {
  if (!m_started || m_redo.empty()) return std::nullopt;
  if (current != m_committed) {
    // Something changed since the undo: that is a new branch, the undone steps are gone.
    m_redo.clear();
    return std::nullopt;
  }
  m_undo.push_back(m_committed);
  m_committed = m_redo.back();
  m_redo.pop_back();
  m_pending.reset();
  return m_committed;
}

void UndoHistory::rebase(const nlohmann::json& state) {
  m_committed = state;
  m_started = true;
  m_pending.reset();
}

bool UndoHistory::can_undo(const nlohmann::json& current) const {
  return m_started && (!m_undo.empty() || current != m_committed);
}

bool UndoHistory::can_redo(const nlohmann::json& current) const {
  return m_started && !m_redo.empty() && current == m_committed;
}

}  // namespace bs
