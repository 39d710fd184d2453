#!/bin/bash
# hopper-bench.sh: builds scripts/hopper_bench.cu with nvcc (sm_90a) and runs it on a Hopper GPU: correctness of
# every Hopper rung against float64 and cuBLAS, TFLOP/s per rung and cuBLAS BF16 (then the TF32 and 3xTF32 rungs
# against cuBLAS TF32 and SGEMM), then compute-sanitizer memcheck (small sizes) and racecheck (tiny sizes), both
# covering the BF16 and TF32 rungs. Run from the repository root: scripts/hopper-bench.sh [outdir]
set -euo pipefail
out=${1:-build-hopper-bench}
mkdir -p "$out"
nvcc -std=c++20 -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo -I. -o "$out/hopper_bench" \
  scripts/hopper_bench.cu gpu/common/cuda_check.cpp gpu/common/device_info.cpp -lcublas
date -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv
"$out/hopper_bench" all | tee "$out/hopper_bench.txt"
compute-sanitizer --tool memcheck --error-exitcode 1 "$out/hopper_bench" small | tail -3
compute-sanitizer --tool racecheck --error-exitcode 1 "$out/hopper_bench" tiny | tail -3
