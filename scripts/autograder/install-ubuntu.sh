#!/usr/bin/env bash
# Installs what building the command-line cudalab needs on a bare Ubuntu (24.04; 22.04 lacks
# libtomlplusplus-dev) as root: Ubuntu's packages, and NVRTC, its headers and nvcc from NVIDIA's
# CUDA repository for this release when no toolkit is in $CUDA_HOME (/usr/local/cuda).
# Used by the Gradescope bundle's setup.sh and the GitHub Classroom workflow (docs/instructors.md).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  ca-certificates wget python3 cmake ninja-build g++ pkg-config \
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libsqlite3-dev libzstd-dev liblz4-dev bubblewrap libseccomp-dev >/dev/null
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -f "$cuda/include/nvrtc.h" ]]; then
  . /etc/os-release
  repo="ubuntu${VERSION_ID//./}"
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/$repo/x86_64/cuda-keyring_1.1-1_all.deb" -O /tmp/cuda-keyring.deb
  dpkg -i /tmp/cuda-keyring.deb >/dev/null
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends cuda-nvrtc-dev-13-0 cuda-cudart-dev-13-0 cuda-driver-dev-13-0 \
    cuda-nvcc-13-0 >/dev/null
  [[ -e "$cuda" ]] || ln -s /usr/local/cuda-13.0 "$cuda"
fi
