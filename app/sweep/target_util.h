// target_util.h: small helpers the labs' sweep targets share: reading a parameter, refusing a value with a
// message that names it, timing host calls, turning times into rates, and the constants of the conservative
// duration estimate. Knows no lab.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/sweep/target.h"
#include "core/cpu_job.h"

namespace bs::sweep {

// Throws bs::InvalidRequest "NAME = 'VALUE': WHY".
[[noreturn]] void bad(const std::string& name, const std::string& value, const std::string& why);

// The value of `name` in `v`, "" when absent.
const std::string& get(const Values& v, const std::string& name);

// A whole number in [lo, hi]; plain digits, 2^k and K/M/G suffixes accepted. Throws through bad().
int64_t get_int(const Values& v, const std::string& name, int64_t lo, int64_t hi);

// Throws JobCancelled when ctl is cancelled.
void check_cancel(const JobControl& ctl);

// The host's steady clock in milliseconds.
double now_ms();

// `warmup` untimed calls, then `reps` timed calls of `fn` (host clock), each sample divided by `per_sample`
// (steps per call, or calls per batch).
std::vector<double> time_host(int warmup, int reps, JobControl& ctl, const std::function<void()>& fn,
                              double per_sample = 1.0);

// time_host for a host call too short to time alone: one untimed call measures it, then each sample runs it
// enough times (1 to 100000) to last at least `min_sample_ms`; the samples are per call.
std::vector<double> time_host_batched(int warmup, int reps, JobControl& ctl, const std::function<void()>& once,
                                      double min_sample_ms);

// Throughput of each sample: `amount` (in the unit's scale) per second.
std::vector<double> rates(const std::vector<double>& ms, double amount);

// Conservative rates for the duration estimate taken before a sweep starts (plan_sweep): deliberately slow
// (a laptop GPU, one busy shared core), so the estimate errs long; a sweep above k_confirm_above_s asks
// first.
constexpr double k_est_call_overhead_s = 1e-3;  // per timed or warm-up call: launch, event, host bookkeeping
constexpr double k_est_setup_s = 0.05;          // per point and device: allocation, upload, first touch

// Calls per series with settings `s`: warm-up and timed.
double samples_of(const RunSettings& s);

}  // namespace bs::sweep
