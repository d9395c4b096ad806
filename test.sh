#!/usr/bin/env bash
# Sets up cudalab with what the tests need, builds it and runs the whole test suite with ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/setup.sh" --tests
cd "$root"
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
