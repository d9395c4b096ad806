#!/usr/bin/env bash
# Installs what cudalab needs (Debian/Ubuntu packages; skips what is present), then configures and
# builds it (CMake, Release, compile_commands.json). Called by ./run.sh and ./test.sh; safe to run
# again: a second run installs nothing and rebuilds only what changed.
#
#   scripts/setup.sh [--tests]     --tests also installs what the test suite needs (Xvfb, Mesa)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CUDALAB_BUILD_DIR:-$root/build}"
with_tests=0
[[ "${1:-}" == "--tests" ]] && with_tests=1

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# 1. The CUDA Toolkit (NVRTC and the driver API header). No GPU is needed.
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -f "$cuda/include/nvrtc.h" ]] || ! ls "$cuda"/lib64/libnvrtc.so* >/dev/null 2>&1; then
  fail "the CUDA Toolkit was not found in $cuda (it needs include/nvrtc.h and lib64/libnvrtc.so).
Install the CUDA Toolkit 12.x or 13.x (no GPU needed), or set CUDA_HOME to where it is, e.g.
  CUDA_HOME=/opt/cuda-13.0 $0"
fi

# 2. System packages, installed only when missing.
packages=(cmake ninja-build g++ pkg-config
          doctest-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
          libglfw3-dev libimgui-dev python3-glad libmd4c-dev libstb-dev fonts-dejavu-core
          libsqlite3-dev bubblewrap libseccomp-dev libzstd-dev liblz4-dev  # bubblewrap, libseccomp: the sandbox (docs/grading.md); zstd, lz4: PTX in fat binaries (docs/runtime.md)
          fonts-noto-cjk)  # the app's Chinese text (--lang zh, docs/translating.md)
if (( with_tests )); then
  packages+=(xvfb xauth libgl1-mesa-dri clang-format)  # clang-format: the formatting test
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  say "installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "need root (or sudo) to install: ${missing[*]}"
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 3. Configure once, then build what changed. With --tests (./test.sh, CI) a warning fails the
# build (CUDALAB_WERROR, cmake/cudalab.cmake) unless CUDALAB_WERROR=0 is set; without it an
# existing build folder keeps what it was configured with.
werror=OFF
if (( with_tests )) && [[ "${CUDALAB_WERROR:-1}" != 0 ]]; then werror=ON; fi
if [[ ! -f "$build/build.ninja" ]]; then
  say "configuring ($build)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDA_HOME="$cuda" \
    -DCUDALAB_WERROR="$werror" >/dev/null
elif (( with_tests )) && ! grep -qx "CUDALAB_WERROR:BOOL=$werror" "$build/CMakeCache.txt"; then
  say "configuring ($build) with CUDALAB_WERROR=$werror"
  cmake -S "$root" -B "$build" -DCUDALAB_WERROR="$werror" >/dev/null
fi
say "building"
if ! cmake --build "$build" --parallel "$(nproc)" > "$build/build.log" 2>&1; then
  grep -E -B2 -A6 "error|Error" "$build/build.log" | head -60 >&2
  if grep -q -- "\[-Werror=" "$build/build.log"; then
    echo "setup: a warning failed the build: CUDALAB_WERROR is on (./test.sh sets it; CUDALAB_WERROR=0 ./test.sh, or cmake -B $build -DCUDALAB_WERROR=OFF, turns it off)" >&2
  fi
  fail "the build failed (full log: $build/build.log)"
fi
# Editors find the compile database at the root.
ln -sf "$build/compile_commands.json" "$root/compile_commands.json" 2>/dev/null || true
