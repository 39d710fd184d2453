// lab_hook_util.h: what the labs' user-kernel tests share (kernel_lab_hooks_test.cpp, kernel_sim_labs_test.cpp):
// a headless app on one lab, a session of one lab's state, a read-out by its label.
#pragma once

#include <string>
#include <vector>

#include "app/app.h"
#include "app/session.h"

namespace bs::test {

inline AppOptions headless_lab(const char* scene, PathRequest path) {
  AppOptions o;
  o.headless = true;
  o.render_path = path;
  o.width = 1280;
  o.height = 720;
  o.scene = scene;
  return o;
}

inline Session lab_session(const std::string& lab, const nlohmann::json& state) {
  Session s;
  s.active_lab = lab;
  s.open_labs = {lab};
  s.labs[lab] = state;
  return s;
}

inline const ui::Readout* readout(const std::vector<ui::Readout>& r, const std::string& name) {
  for (const ui::Readout& x : r)
    if (x.label == name) return &x;
  return nullptr;
}

}  // namespace bs::test
