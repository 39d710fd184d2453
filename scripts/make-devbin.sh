#!/usr/bin/env bash
# Prepares .devbin/ (git-ignored) for a run on the GPU machine: builds for sm_90 in build-sm90/, copies the
# executable, the test binaries and the two shared libraries that machine lacks (GLFW, stb).
# Then, with the device tool: carry .devbin and .device-gl (../shared/device/fetch-gl-debs.sh), and run
#   bash scripts/gpu-check.sh [tests] [sanitize] [bench] [shots]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-sm90}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBS_CUDA_ARCHS=90 >/dev/null
cmake --build "$build"
rm -rf .devbin && mkdir -p .devbin/lib
cp "$build/blockscope" .devbin/
# DEVBIN_TESTS="heat_tests matmul_tests ..." packs only those (the whole set outgrows one call's 64 MiB).
if [ -n "${DEVBIN_TESTS:-}" ]; then
  for t in $DEVBIN_TESTS; do cp "$build/tests/$t" .devbin/; done
else
  cp "$build"/tests/*_tests .devbin/
fi
for lib in libglfw.so.3 libstb.so.0; do cp -L "/usr/lib/x86_64-linux-gnu/$lib" .devbin/lib/; done
strip --strip-unneeded .devbin/blockscope .devbin/*_tests 2>/dev/null || true
# The binaries together outgrow what one device call carries (64 MiB): they travel as one xz archive, which
# scripts/gpu-check.sh unpacks (they share most of their code, so it packs about 5:1).
tar -C .devbin -cJf .devbin.tar.xz blockscope $(cd .devbin && ls *_tests) lib
rm -rf .devbin && mkdir .devbin && mv .devbin.tar.xz .devbin/pack.tar.xz
du -sh .devbin
