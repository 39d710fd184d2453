#!/usr/bin/env bash
# sanitize.sh: builds blockscope's host C++ with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/
# (CUDA device code is untouched: the flags go to the C++ compiler and the linker only) and runs the tests
# with every sanitizer report fatal, so any report fails the test that caused it.
#   scripts/sanitize.sh                      # build everything, run the whole suite (slow)
#   BS_SANITIZE_TARGETS="blockscope fuzz_tests core_tests" scripts/sanitize.sh -R 'Fuzz|Core'
#   scripts/sanitize.sh --configure-only     # configure build-asan/ and stop (the test suite's cheap check)
#   scripts/sanitize.sh --test-only -R Sim   # run tests already built there, with the same settings (no
#                                            # configure, no ninja: safe beside a build of other targets)
# Extra arguments go to ctest; BS_SANITIZE_TARGETS limits what ninja builds (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BS_SANITIZE_BUILD:-build-asan}
configure_only=0
test_only=0
if [ "${1:-}" = --configure-only ]; then configure_only=1; shift; fi
if [ "${1:-}" = --test-only ]; then test_only=1; shift; fi
[ -f /root/.ccache_env ] && source /root/.ccache_env
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# The normal build keeps -Werror. Here GCC 12's -Wmaybe-uninitialized fires inside libstdc++'s own headers
# (std::function's _M_manager/_M_invoker, as inlined into std::regex's NFA states) once the instrumentation
# changes what the optimizer sees; those warnings are about the standard library, not about our code, and
# they appear only with -fsanitize. They stay visible as warnings; every other warning is still an error.
san_warnings="-Wno-error=maybe-uninitialized"
if [ "$test_only" = 0 ]; then
  echo "sanitize.sh: -Wmaybe-uninitialized is a warning, not an error, in this build (GCC reports it inside" \
       "libstdc++'s std::function/std::regex headers only under -fsanitize); all other warnings stay errors"
  # -O2 as in a release build (the optimizer is what exposes maybe-uninitialized reads and UB), -g1 for line
  # numbers in reports. Asserts stay off as in a release build: the sanitizers look for memory errors and UB.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBS_CUDA_ARCHS="${BS_CUDA_ARCHS:-90}" \
    "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="$san $san_warnings" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -g1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
  [ "$configure_only" = 1 ] && exit 0
fi

# Every report is fatal and fails the process; CUDA needs the shadow gap unprotected to map device memory.
# Leak checking is off: at exit, Mesa, LLVM (llvmpipe), fontconfig and the CUDA runtime keep allocations
# alive on purpose, which LeakSanitizer reports as leaks that are not ours and not errors.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=0:protect_shadow_gap=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1"
# Under the sanitizers everything runs 2-5x slower: the fuzz runner gets more time per case.
export BLOCKSCOPE_FUZZ_TIMEOUT=${BLOCKSCOPE_FUZZ_TIMEOUT:-120}

jobs=${BS_SANITIZE_JOBS:-$(nproc)}
read -r -a targets <<<"${BS_SANITIZE_TARGETS:-all}"
[ "$test_only" = 0 ] && ninja -C "$build" -j"$jobs" "${targets[@]}"
cd "$build"
ctest --output-on-failure -j"$jobs" "$@"
