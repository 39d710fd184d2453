#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/make-devbin.sh): GPU tests, compute-sanitizer, benchmarks, screenshots.
# Everything goes to one log, $OUT/gpu-check.log (or /tmp when OUT is unset); screenshots to $OUT/shots.
#   bash scripts/gpu-check.sh tests sanitize bench labs shots scenes fault tc  (default: all but scenes, tc)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out/shots"
log="$out/gpu-check.log"
[ -f .device-gl/setup.sh ] && source .device-gl/setup.sh >/dev/null
bin=$PWD/.devbin
if [ -f .devbin/pack.tar.xz ]; then
  bin=/tmp/devbin && mkdir -p $bin && tar -C $bin -xJf .devbin/pack.tar.xz
fi
export LD_LIBRARY_PATH="$bin/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# Test screenshots stay on the machine (only 8 files come back); scene screenshots go to $out/shots.
export BLOCKSCOPE_BIN="$bin/blockscope" BLOCKSCOPE_TEST_OUT=/tmp/blockscope-test-shots
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests sanitize bench labs shots fault)
say() { echo "=== $*" | tee -a "$log"; }
# Every command gets a time limit, so one hang cannot eat the GPU machine's lease.
run() { say "\$ $*"; timeout -k 5 "${LIMIT:-240}" "$@" >>"$log" 2>&1; local rc=$?; echo "rc=$rc" >>"$log"; echo "    rc=$rc"; }

# Like run, but a process still alive after LIMIT seconds gets its threads' stacks logged before it is killed.
watch() {
  say "\$ $*"; "$@" >>"$log" 2>&1 &
  local pid=$! i
  for i in $(seq "${LIMIT:-240}"); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "HANG after ${LIMIT:-240} s; threads:" >>"$log"
    for t in /proc/$pid/task/*; do echo "$t $(cat $t/comm) wchan=$(cat $t/wchan)"; done >>"$log" 2>&1
    command -v gdb >/dev/null && timeout 60 gdb -p $pid -batch -ex "thread apply all bt 12" >>"$log" 2>&1
    kill -9 $pid
  fi
  wait $pid; local rc=$?; echo "rc=$rc" >>"$log"; echo "    rc=$rc"
}

say "$(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader)"
for s in "${steps[@]}"; do
  case "$s" in
    tests)
      # packaging_tests install from the build tree, which stays on the build machine.
      # heat_tests last: its sticky-fault test leaves this driver refusing GL to new processes for a while, so
      # every test that starts the binary with a headless GL context (the labs' scene tests) runs before it.
      for t in "$bin"/*_tests; do
        case "$(basename "$t")" in
          packaging_tests | heat_tests | kernel_run_tests | kernel_hook_app_tests | kernel_recovery_tests) continue ;;
        esac
        run "$t" --gtest_brief=1 '--gtest_filter=-SmokeFault.*'
      done
      # The user-kernel fault tests (an illegal address, a hang) leave the device unusable for the rest of
      # their process and for GL in later ones: they run in the fault step.
      run "$bin/kernel_run_tests" --gtest_brief=1 '--gtest_filter=-*OutOfBounds*:*Hanging*'
      run "$bin/kernel_hook_app_tests" --gtest_brief=1 '--gtest_filter=-*FaultGpu*'
      run "$bin/heat_tests" --gtest_brief=1 '--gtest_filter=-SmokeFault.*' ;;
    fault)
      # The deliberate-fault test: after it this driver keeps the GPU from new processes (GL included) for a
      # while, so it runs after every other step whatever order they were asked in (see below).
      ;;
    sanitize)
      # The sticky-error test makes an illegal access on purpose: excluded from memcheck.
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/heat_tests" --gtest_brief=1 '--gtest_filter=HeatGpu.*:HeatSolverGpu.*:-*Sticky*'
      run compute-sanitizer --tool racecheck --error-exitcode 9 "$bin/heat_tests" --gtest_brief=1 '--gtest_filter=HeatGpu.*:HeatSolverGpu.*:-*Sticky*'
      run compute-sanitizer --tool racecheck --error-exitcode 9 "$bin/matmul_tests" --gtest_brief=1 '--gtest_filter=*Gpu*:-*Large*:*Bench*'
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/matmul_tests" --gtest_brief=1 '--gtest_filter=*Gpu*:-*Large*:*Bench*'
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/vector_tests" --gtest_brief=1 '--gtest_filter=*Gpu*'
      run compute-sanitizer --tool racecheck --error-exitcode 9 "$bin/montecarlo_tests" --gtest_brief=1 '--gtest_filter=*Histogram*'
      for tool in memcheck racecheck; do
        run env BS_REDUCE_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 "$bin/reduce_tests" --gtest_brief=1 '--gtest_filter=ReduceGpu.*'
        run compute-sanitizer --tool $tool --error-exitcode 9 "$bin/memory_tests" --gtest_brief=1 '--gtest_filter=*Gpu*'
      done
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kernel_run_tests" --gtest_brief=1 '--gtest_filter=KernelRunGpu.VectorTemplate*:KernelRunGpu.TheHeatSolver*:KernelRunGpu.Matmul*'
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kernel_hook_app_tests" --gtest_brief=1 '--gtest_filter=UserKernelSweepGpu.*:VectorUserOpGpu.*:MatmulUserRungGpu.*' ;;
    bench)
      run "$bin/blockscope" info
      run "$bin/blockscope" bench interop --size 2048 --frames 300
      run "$bin/blockscope" bench heat --size 8192 --steps 100 --cpu-steps 3
      run "$bin/blockscope" bench heat --size 8192 --steps 100 --block 128x2 --device gpu
      run "$bin/blockscope" bench heat --size 8192 --steps 100 --block 32x8 --device gpu ;;
    labs)
      run "$bin/blockscope" bench matmul --m 4096 --n 4096 --k 4096 --device gpu
      run "$bin/blockscope" bench montecarlo --device gpu
      run "$bin/blockscope" bench montecarlo --paths 1000000 --steps 256 --device all
      run "$bin/blockscope" bench vector --n 256M --pinned
      run "$bin/blockscope" bench vector --n 256M --op formula --pinned --streams 8
      run "$bin/blockscope" occupancy --arch device --curve
      run "$bin/blockscope" anatomy heat --size 1024 --block 32x8 --out "$out/anatomy" ;;
    newlabs)
      # The memory, reduction/scan and kernel labs (issues 14, 15, 12).
      run "$bin/blockscope" bench memory --kernel transpose --size 8192x8192 --device all
      run "$bin/blockscope" bench memory --kernel stride
      run "$bin/blockscope" bench memory --kernel banks
      run "$bin/blockscope" bench memory --kernel aos
      run "$bin/blockscope" bench reduce --n 256M --type float --variant all --device all
      run "$bin/blockscope" bench reduce --n 256M --type int --variant all --device gpu
      run "$bin/blockscope" bench scan --n 256M --type float --variant all --device gpu
      "$bin/blockscope" kernel template heat > /tmp/heat_user.cu
      run "$bin/blockscope" kernel compile /tmp/heat_user.cu --target heat
      run "$bin/blockscope" bench kernel --target heat --source /tmp/heat_user.cu --size 8192 ;;
    shots)
      export BLOCKSCOPE_TRACE=1
      watch "$bin/blockscope" --headless --render-path interop --frames 60 --size 2048 --screenshot "$out/shots/heat_interop.png"
      watch "$bin/blockscope" --headless --render-path interop --frames 30 --size 1000x777 --grid 31x25 --screenshot "$out/shots/heat_uncovered.png"
      BLOCKSCOPE_INTEROP=map watch "$bin/blockscope" --headless --render-path interop --frames 30 --screenshot "$out/shots/heat_map.png"
      unset BLOCKSCOPE_TRACE ;;
    scenes)
      for lab in heat matmul montecarlo vector memory reduce multigpu; do
        watch "$bin/blockscope" --headless --scene $lab --frames 60 --screenshot "$out/shots/$lab.png"
      done ;;
    looks)
      # (Screenshot steps go before the sanitizer steps: on the H100 machine, headless EGL frames read back
      # white in processes started after compute-sanitizer runs, 2026-11-21; the same commands were fine on
      # a fresh machine.)
      # Presenter mode and an anatomy overlay (SM that ran each block) on the GPU, for a look by eye.
      watch "$bin/blockscope" --headless --presenter --frames 60 --screenshot "$out/shots/presenter.png"
      watch "$bin/blockscope" --headless --overlay sm --size 512 --block 32x8 --frames 30 --screenshot "$out/shots/overlay_sm.png" ;;
    mmsan)
      for tool in racecheck memcheck; do
        run compute-sanitizer --tool $tool --error-exitcode 9 "$bin/blockscope" bench matmul --m 131 --n 67 --k 259 \
          --variant async_pipe,async_pipe_16x8,warptile_db_16x8 --device gpu
      done ;;
    mmbench)
      run "$bin/blockscope" bench matmul --m 4096 --n 4096 --k 4096 --device gpu ;;
    mmtable)
      # The README's lecture table: the whole ladder, GPU and CPU rows, one run.
      run "$bin/blockscope" bench matmul --m 4096 --n 4096 --k 4096 --device all ;;
    sweeps)
      # One headless sweep per lab, all files (CSV, JSON, SVG, PNG, record) under $out/sweeps/<lab>.
      run "$bin/blockscope" sweep heat --param block.x=16,32,64,128,256 --param block.y=1,2,4,8 --fixed size=4096 --device gpu --out "$out/sweeps/heat"
      run "$bin/blockscope" sweep matmul --param variant=naive_uncoalesced,naive_coalesced,smem_tile32,reg_2d,async_pipe,cublas --fixed size=2048 --device gpu --out "$out/sweeps/matmul"
      run "$bin/blockscope" sweep vector --param size=4K,64K,1M,16M,64M --fixed pinned=1 --device all --out "$out/sweeps/vector"
      run "$bin/blockscope" sweep montecarlo --param paths=4096,65536,1048576 --device all --out "$out/sweeps/montecarlo"
      run "$bin/blockscope" replay "$out/sweeps/heat/record.json" --out /tmp/replay-heat ;;
    ansan)
      # The instrumented kernels (heat with coarsening, the matmul copies) under every sanitizer tool.
      for tool in memcheck racecheck synccheck; do
        run compute-sanitizer --tool $tool --error-exitcode 9 "$bin/anatomy_tests" --gtest_brief=1 '--gtest_filter=AnatomyGpu.*Record*'
      done ;;
    anatomy)
      run "$bin/blockscope" anatomy heat --size 1024 --block 32x8 --out "$out/anatomy/heat"
      run "$bin/blockscope" anatomy matmul --size 2048 --variant smem_tile32 --out "$out/anatomy/matmul"
      run "$bin/blockscope" anatomy matmul --m 1000 --n 777 --k 333 --variant naive_uncoalesced --out "$out/anatomy/matmul_odd" ;;
    tc)
      # Every figure and check of the tensor-core issue (28) in one call: the ladder at 4096^3 and 8192^3, the
      # BF16 and FP32 shape suites, the rung tests, and the Hopper rungs under memcheck and racecheck.
      run "$bin/matmul_hopper_tests" --gtest_brief=1
      run "$bin/matmul_tests" --gtest_brief=1 '--gtest_filter=Tc*:Precision*:Matmul*:-*Large*'
      run "$bin/blockscope" bench matmul --tensor-cores --size 4096
      run "$bin/blockscope" bench matmul --tensor-cores --size 8192 --variant ws_tma_store,wgmma_tf32,wgmma_tf32x3
      run "$bin/blockscope" bench matmul --tensor-cores --suite
      run "$bin/blockscope" bench matmul --suite
      run compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/matmul_hopper_tests" --gtest_brief=1 '--gtest_filter=*PartialTiles*'
      run compute-sanitizer --tool racecheck --error-exitcode 9 "$bin/matmul_hopper_tests" --gtest_brief=1 '--gtest_filter=*HopperGpu.MatchesFloat64OnPartialTiles/w*' ;;
    *) "$bin/blockscope" "$@" ;;
  esac
done
for s in "${steps[@]}"; do
  if [ "$s" = fault ]; then
    run "$bin/app_tests" --gtest_brief=1 '--gtest_filter=SmokeFault.*'
    # Each in its own process: after an illegal address the device is unusable for the rest of the process.
    run "$bin/kernel_run_tests" --gtest_brief=1 '--gtest_filter=*OutOfBounds*'
    run "$bin/kernel_run_tests" --gtest_brief=1 '--gtest_filter=*Hanging*'
    # The labs' user-kernel faults through the app's recovery, and the in-process recovery experiments.
    for f in '*FaultGpu*HeatStep*' '*FaultGpu*VectorOp*'; do run "$bin/kernel_hook_app_tests" "--gtest_filter=$f"; done
    for f in '*AbandonEverything*' '*UnloadTheLibrary*' '*FreeEverything*'; do run "$bin/kernel_recovery_tests" "--gtest_filter=$f"; done
  fi
done
grep -E "^(\[  (PASSED|FAILED|SKIPPED) |rc=|=== )" "$log" | tail -n 80
