// bench.h: `blockscope bench <lab> ...`. Each lab's descriptor (app/labs.h) registers its own subcommand; the
// shared helpers print result rows in one table format so every lab's output reads the same.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/enum_names.h"
#include "core/text.h"
#include "gpu/counters/counters.h"

namespace bs::cli {

// Set by a bench callback: 0 on success, non-zero (with a message on stderr) on bad input or failure.
struct BenchContext {
  int exit_code = 0;
  std::string command;  // the command that runs, e.g. "bench vector" (set once parsing is complete)
  // --counters (one flag on every bench): after the timed runs, collect hardware counters for each GPU row
  // (app/counters_bench.h). counters_shown: the bench gave counter columns (else the CLI says it has none).
  bool counters = false;
  bool counters_shown = false;
};

// Prints "blockscope: <msg>" on stderr as one line, control characters escaped (printable()), and returns
// `code`: the one way the CLI reports a failure.
int print_error(const std::string& msg, int code);

// The message for a host allocation that failed (std::bad_alloc) while running `command`.
std::string out_of_memory_message(const std::string& command);

// The interop bench (app/interop/): not a lab, the frame path every lab shares.
void register_interop_bench(CLI::App& bench, BenchContext& ctx);
// `bench <lab>` for every lab whose descriptor has a bench (app/labs.h), and `bench interop`.
void register_all_benches(CLI::App& bench, BenchContext& ctx);

// Top-level `occupancy` and `anatomy` commands (app/anatomy/anatomy_cli.cpp).
void register_anatomy_commands(CLI::App& app, BenchContext& ctx);
// Top-level `sweep` and `replay` commands (app/sweep/sweep_cli.cpp).
void register_sweep_commands(CLI::App& app, BenchContext& ctx);

// Runs a command's body and turns what it throws into the CLI's message and exit code: bad input
// (bs::InvalidRequest) 2, a GPU failure, exhausted host memory (std::bad_alloc) or anything else 1. The body
// returns the exit code on success.
void run_guarded(BenchContext& ctx, const std::function<int()>& body);

// A plain text table: a header row, then rows, columns padded to the widest cell.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // With --counters: per row (by index; missing or nullopt: a row without a kernel, e.g. a CPU row) the
  // hardware counters of one launch. When any is set, print() adds counter columns and, below the table,
  // the replay note, each failure's message and the raw metric values (app/counters_bench.cpp).
  std::vector<std::optional<counters::Result>> counters;
  void print(std::ostream& out) const;
};
using ::bs::fmt_fixed;  // core/text.h

// The check of an enum option (CLI11's CheckedTransformer also accepts the mapped numbers, "--device 1", and
// its message shows the mapping): accepts exactly the names of `names` (in any case with ignore_case) and
// turns a name into the number CLI11 stores; anything else, a number included, is refused with the names.
template <class E, std::size_t N>
CLI::Validator enum_choice(const EnumNames<E, N>& names, bool ignore_case = false) {
  const auto lower = [](std::string s) {
    for (char& c : s)
      c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
  };
  return CLI::Validator(
      [names, ignore_case, lower](std::string& v) -> std::string {
        for (std::size_t i = 0; i < N; ++i) {
          const std::string name(names.names()[i]);
          if (v == name || (ignore_case && lower(v) == lower(name))) {
            v = std::to_string(static_cast<long long>(names.values()[i]));
            return {};
          }
        }
        return "'" + printable(v) + "' is not one of " + names.list(", ", " or ");
      },
      names.list("|"), "choice");
}

// A range check whose message names the range in the option's own units ("--frames: 0 is outside
// 1..100000 frames"; CLI11's Range says "Value 0 not in range 1 to 100000").
template <class T>
CLI::Validator in_range(T lo, T hi, const std::string& unit) {
  const auto text = [](T v) {
    if constexpr (std::is_integral_v<T>) {
      return std::to_string(v);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));  // 0.5, 600, 0.75
      return std::string(buf);
    }
  };
  const std::string range = text(lo) + ".." + text(hi) + (unit.empty() ? "" : " " + unit);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        const std::optional<double> x = parse_double(v);
        if (!x) return "'" + printable(v) + "' is not a number (give " + range + ")";
        if (!(*x >= static_cast<double>(lo) && *x <= static_cast<double>(hi)))
          return printable(v) + " is outside " + range;
        return {};
      },
      "[" + range + "]", "range");
}

// "--device gpu|cpu|all" shared by the benches.
enum class BenchDevice { All, Gpu, Cpu };
inline constexpr auto k_bench_device_names = enum_names<BenchDevice>(
    {{BenchDevice::Gpu, "gpu"}, {BenchDevice::Cpu, "cpu"}, {BenchDevice::All, "all"}});
void add_device_option(CLI::App& sub, BenchDevice& device);

}  // namespace bs::cli
