#!/usr/bin/env bash
# Gradescope runs this once when the autograder is built: as root, in /autograder/source (where
# the bundle was unpacked), on its Ubuntu base image (choose Ubuntu 24.04). It installs the
# packages (cudalab/scripts/autograder/install-ubuntu.sh) and builds the command-line cudalab (no
# app, no tests) from cudalab/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/cudalab/scripts/autograder/install-ubuntu.sh"
cmake -S "$here/cudalab" -B "$here/cudalab/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
  -DCUDALAB_BUILD_GUI=OFF -DCUDALAB_BUILD_TESTS=OFF >/dev/null
cmake --build "$here/cudalab/build" --parallel "$(nproc)" --target cudalab cudalab-compile
"$here/cudalab/build/cudalab" --version
