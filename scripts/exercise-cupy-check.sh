#!/usr/bin/env bash
# Every exercise's CuPy snippet on the GPU: `blockscope exercise export` writes NAME_cupy.py (the submission and
# the reference as cupy.RawModule, launched on the first visible test and compared with the exercise's
# tolerance); here the submission is the exercise's reference.cu (must print pass for every output and exit 0)
# and then its starter.cu (reported: a starter that fails only a hidden test or only by a simulator diagnostic
# may pass the snippet's one test). Needs a GPU, python3, numpy and cupy; exit 0 when every reference passes.
#   BLOCKSCOPE_BIN=build90/blockscope OUT=/tmp/exercise-cupy bash scripts/exercise-cupy-check.sh [NAME ...]
# CUPY_SYNTAX_ONLY=1 only byte-compiles every snippet (python3 -m py_compile): no GPU, no cupy needed.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BLOCKSCOPE_BIN:-build90/blockscope}
out=${OUT:-/tmp/exercise-cupy}
py=${PYTHON:-python3}
pack=${BLOCKSCOPE_EXERCISES:-assets/exercises}
syntax_only=${CUPY_SYNTAX_ONLY:-0}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in "$pack"/*/; do [ -f "$d/exercise.json" ] && names+=("$(basename "$d")"); done
fi
if [ "$syntax_only" != 1 ] && ! "$py" -c 'import cupy, numpy; cupy.cuda.runtime.getDeviceCount()' 2>/dev/null; then
  echo "no GPU or no cupy for $py: run on the GPU machine, or CUPY_SYNTAX_ONLY=1 to check the snippets' syntax" >&2
  exit 2
fi
failed=0
for name in "${names[@]}"; do
  for which in reference starter; do
    dir="$out/$name/$which"
    if ! "$bin" exercise export "$name" "$pack/$name/$which.cu" --out "$dir" --pack "$pack" >/dev/null; then
      echo "FAIL  $name ($which): export"; failed=$((failed + 1)); continue
    fi
    snippet="$dir/${name}_cupy.py"
    if [ "$syntax_only" = 1 ]; then
      if "$py" -m py_compile "$snippet" 2>"$dir/py.log"; then echo "ok    $name ($which): $snippet compiles"
      else echo "FAIL  $name ($which): $(tail -1 "$dir/py.log")"; failed=$((failed + 1)); fi
      continue
    fi
    "$py" "$snippet" >"$dir/run.log" 2>&1
    rc=$?
    result=$(tr '\n' ' ' <"$dir/run.log" | tail -c 300)
    if [ "$which" = reference ]; then
      if [ $rc -eq 0 ]; then echo "pass  $name (reference): $result"
      else echo "FAIL  $name (reference, exit $rc): $result"; failed=$((failed + 1)); fi
    else
      echo "info  $name (starter, exit $rc): $result"
    fi
  done
done
echo "${#names[@]} exercises, $failed failed"
[ "$failed" -eq 0 ]
