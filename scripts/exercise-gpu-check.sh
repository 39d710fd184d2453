#!/usr/bin/env bash
# Every exercise's reference on the GPU: `blockscope exercise export` writes it as a standalone CUDA program
# (the reference beside itself, every test of the exercise, checked with the exercise's tolerance and timed),
# nvcc builds it, and it runs. Needs a GPU and nvcc; exit 0 when every program passes every test.
#   BLOCKSCOPE_BIN=build90/blockscope OUT=/tmp/exercise-gpu bash scripts/exercise-gpu-check.sh [NAME ...]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BLOCKSCOPE_BIN:-build90/blockscope}
out=${OUT:-/tmp/exercise-gpu}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
pack=${BLOCKSCOPE_EXERCISES:-assets/exercises}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in "$pack"/*/; do [ -f "$d/exercise.json" ] && names+=("$(basename "$d")"); done
fi
failed=0
for name in "${names[@]}"; do
  dir="$out/$name"
  if ! "$bin" exercise export "$name" "$pack/$name/reference.cu" --out "$dir" --pack "$pack" >/dev/null; then
    echo "FAIL  $name: export"; failed=$((failed + 1)); continue
  fi
  if ! "$nvcc" -O2 -lineinfo -o "$dir/prog" "$dir/$name.cu" 2>"$dir/nvcc.log"; then
    echo "FAIL  $name: nvcc (see $dir/nvcc.log)"; failed=$((failed + 1)); continue
  fi
  if "$dir/prog" >"$dir/run.log" 2>&1; then
    echo "pass  $name: $(tail -1 "$dir/run.log")"
  else
    echo "FAIL  $name: $(tail -1 "$dir/run.log")"; failed=$((failed + 1))
  fi
done
echo "${#names[@]} exercises, $failed failed"
[ "$failed" -eq 0 ]
