// roofline_cli.h: the top-level `roofline` command (app/roofline/roofline_cli.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "app/bench.h"

namespace bs::cli {
void register_roofline_command(CLI::App& app, BenchContext& ctx);
}  // namespace bs::cli
