#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/make-devbin.sh): GPU tests, compute-sanitizer, benchmarks, screenshots.
# Everything goes to one log, $OUT/gpu-check.log (or /tmp when OUT is unset); screenshots to $OUT/shots.
#   bash scripts/gpu-check.sh tests sanitize bench shots     (default: all four)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out/shots"
log="$out/gpu-check.log"
[ -f .device-gl/setup.sh ] && source .device-gl/setup.sh >/dev/null
export LD_LIBRARY_PATH="$PWD/.devbin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export BLOCKSCOPE_BIN="$PWD/.devbin/blockscope" BLOCKSCOPE_TEST_OUT="$out/shots"
bin=.devbin
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests sanitize bench shots)
say() { echo "=== $*" | tee -a "$log"; }
run() { say "\$ $*"; "$@" >>"$log" 2>&1; local rc=$?; echo "rc=$rc" >>"$log"; echo "    rc=$rc"; }

say "$(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader)"
for s in "${steps[@]}"; do
  case "$s" in
    tests)
      for t in "$bin"/*_tests; do run "$t" --gtest_brief=1; done ;;
    sanitize)
      # The sticky-error test makes an illegal access on purpose: excluded from memcheck.
      for t in "$bin"/*_tests; do
        filter=$(grep -qa "HeatGpu" "$t" && echo 'HeatGpu.*:-*Sticky*' || echo '*Gpu*:-*Sticky*')
        run compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --gtest_brief=1 "--gtest_filter=$filter"
        run compute-sanitizer --tool racecheck --error-exitcode 9 "$t" --gtest_brief=1 "--gtest_filter=$filter"
      done ;;
    bench)
      run "$bin/blockscope" info
      run "$bin/blockscope" bench heat --size 8192 --steps 100 --cpu-steps 3
      run "$bin/blockscope" bench heat --size 8192 --steps 100 --block 16x16 --device gpu
      run "$bin/blockscope" bench interop --size 2048 --frames 300 ;;
    shots)
      run "$bin/blockscope" --headless --render-path interop --frames 60 --size 2048 --screenshot "$out/shots/heat_interop.png"
      run "$bin/blockscope" --headless --render-path interop --frames 30 --size 1000x777 --grid 31x97 --screenshot "$out/shots/heat_uncovered.png" ;;
    *) "$bin/blockscope" "$@" ;;
  esac
done
grep -E "^(\[  (PASSED|FAILED|SKIPPED) |rc=|=== )" "$log" | tail -n 80
