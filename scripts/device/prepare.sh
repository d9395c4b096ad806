#!/usr/bin/env bash
# Copies the header-only libraries cudalab builds with (and their CMake package files) into .devdeps/
# so that the project can be built on a machine that cannot install packages (the lent GPU machine
# of this project's development). Run here; carry .devdeps with the call.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dst="$root/.devdeps/usr"
rm -rf "$root/.devdeps"
for path in include/nlohmann include/toml++ include/CLI include/doctest \
            share/cmake/nlohmann_json share/cmake/CLI11 lib/cmake/doctest; do
  mkdir -p "$dst/$(dirname "$path")"
  cp -r "/usr/$path" "$dst/$path"
done
grep -q '^/.devdeps/' "$root/.git/info/exclude" 2>/dev/null || echo '/.devdeps/' >> "$root/.git/info/exclude"
du -sh "$root/.devdeps"
