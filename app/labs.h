// labs.h: the registry of labs the app can open (`--scene <id>`, the lab bar). A lab folder's
// app/<id>_lab.cpp defines make_<id>_lab; labs.cpp lists it when that file is part of the build.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "app/lab.h"

namespace bs {

struct AppOptions;

struct LabEntry {
  const char* id;
  const char* title;
  const char* short_title;  // the lab bar's label when the full titles do not fit (presenter mode, 720p)
};

std::span<const LabEntry> lab_entries();
bool is_lab(std::string_view id);
// Builds lab `id`; throws bs::GpuError when the GPU cannot build it (the caller falls back to the CPU).
std::unique_ptr<Lab> make_lab(std::string_view id, LabEnv& env, const AppOptions& opt);

// Implemented by each lab's app/<id>_lab.cpp.
std::unique_ptr<Lab> make_matmul_lab(LabEnv& env);
std::unique_ptr<Lab> make_montecarlo_lab(LabEnv& env);
std::unique_ptr<Lab> make_vector_lab(LabEnv& env);

}  // namespace bs
