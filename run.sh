#!/usr/bin/env bash
# blockscope: install what is missing, build, then start the app (./run.sh [app options]) or run every test
# (./run.sh test). Works on Debian 12 / Ubuntu with the CUDA toolkit installed in /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")"

mode=app
if [ "${1:-}" = test ]; then mode=test; shift; fi

packages=(cmake ninja-build g++ pkg-config python3-glad libglfw3-dev libimgui-dev libstb-dev libcli11-dev libexpat1-dev
          nlohmann-json3-dev libgtest-dev libopenblas-dev libegl1 libegl-mesa0 libgl1-mesa-dri xvfb xauth
          fonts-dejavu-core desktop-file-utils xdotool imagemagick)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "run.sh: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "run.sh: the CUDA toolkit (nvcc) is needed to build blockscope: install it from NVIDIA, then run again" >&2
  exit 1
fi
export PATH="$PATH:/usr/local/cuda/bin"

# On a machine with an NVIDIA GPU, build device code for that GPU only; elsewhere for Turing to Hopper.
cmake_args=()
if nvidia-smi -L >/dev/null 2>&1; then cmake_args+=(-DBS_CUDA_ARCHS=native); fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" ${BS_CMAKE_ARGS:-}
cmake --build build

if [ "$mode" = test ]; then
  cd build
  exec ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@"
fi
exec ./build/blockscope "$@"
