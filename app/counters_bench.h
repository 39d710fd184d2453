// counters_bench.h: `bench ... --counters`: hardware counter columns for every bench table (app/bench.h's
// Table), collected after the timed runs (counters replay the kernel, so they are never part of a timing).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/bench.h"
#include "gpu/counters/counters.h"

namespace bs::cli {

// Adds --counters to a bench subcommand (register_all_benches does it for each).
void add_counters_flag(CLI::App& sub, BenchContext& ctx);

// With ctx.counters: collects the counters of `launch` (after the bench's timing; the launch's kernels are
// replayed) and marks the context as having shown them. Without: nullopt, nothing runs.
std::optional<counters::Result> bench_counters(BenchContext& ctx, const counters::Launch& launch);

bool has_counters(const Table& t);
// The counter columns appended to `t` ("-" where a row has none or collection failed); failure messages go
// to `notes` once each.
void add_counter_columns(Table& t, const std::vector<std::optional<counters::Result>>& per_row,
                         std::vector<std::string>& notes);
// Below the table: the replay note, `notes`, and per row the raw metric values (the names `ncu --metrics`
// takes), so a run can be compared with Nsight Compute number for number.
void print_counter_notes(std::ostream& out, const std::vector<std::optional<counters::Result>>& per_row,
                         const std::vector<std::string>& notes);

// The headers of the counter columns (tests).
std::vector<std::string> counter_headers();

}  // namespace bs::cli
