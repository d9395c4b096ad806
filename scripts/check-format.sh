#!/usr/bin/env bash
# Checks that the project's C++ matches .clang-format (clang-format 14, Debian 12's). With --fix it
# formats those files instead. Exit 0: formatted; 1: files differ (listed); 77: no clang-format 14
# here, so nothing was checked (ctest reports the test as skipped with this reason).
#
# Checked: the engine, the app and CLI, the lesson hosts, tests, benchmarks and fuzzers (*.cpp, *.h).
# Not checked: CUDA sources (.cu) and test inputs. Exercises, solutions, the submission corpora and
# the test programs are teaching material and data, laid out by hand, and tests name their lines.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
[[ ${1:-} == --fix ]] && fix=1

tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null && "$candidate" --version | grep -q 'version 14\.'; then
    tool=$candidate
    break
  fi
done
if [[ -z $tool ]]; then
  echo "skipped: clang-format 14 was not found (the format is what version 14 writes;" \
       "Debian 12: apt-get install clang-format)"
  exit 77
fi

mapfile -t files < <(git ls-files '*.cpp' '*.h' |
  grep -v -E '^(exercises|solutions|tests/submissions|tests/data|tests/programs)/')

if (( fix )); then
  printf '%s\0' "${files[@]}" | xargs -0 "$tool" -i
  echo "formatted ${#files[@]} files"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  "$tool" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if (( ${#bad[@]} )); then
  echo "${#bad[@]} of ${#files[@]} files differ from .clang-format:"
  printf '  %s\n' "${bad[@]}"
  echo "format them with: scripts/check-format.sh --fix"
  exit 1
fi
echo "${#files[@]} files match .clang-format"
