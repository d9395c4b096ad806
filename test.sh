#!/usr/bin/env bash
# Sets up cudalab with what the tests need, builds it and runs the whole test suite with ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/setup.sh" --tests
cd "$root"
status=0
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@" || status=$?
# Say why a suite was skipped (the GPU suite on a machine without a GPU), not just that it was.
grep -h "^SKIPPED:" build/Testing/Temporary/LastTest.log 2>/dev/null | sort -u || true
exit "$status"
