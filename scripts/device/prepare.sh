#!/usr/bin/env bash
# Copies the header-only libraries cudalab builds with (and their CMake package files) into .devdeps/
# so that the project can be built on a machine that cannot install packages (the lent GPU machine
# of this project's development). Run here; carry .devdeps with the call.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dst="$root/.devdeps/usr"
rm -rf "$root/.devdeps"
for path in include/nlohmann include/toml++ include/CLI include/doctest \
            share/cmake/nlohmann_json share/cmake/CLI11 lib/cmake/doctest \
            include/sqlite3.h include/sqlite3ext.h include/zstd.h include/zstd_errors.h include/zdict.h \
            include/lz4.h include/lz4hc.h include/lz4frame.h; do
  mkdir -p "$dst/$(dirname "$path")"
  cp -r "/usr/$path" "$dst/$path"
done
# Libraries the engine links (SQLite for progress, Zstandard and LZ4 for fat binaries): the GPU
# machine's image may have the run-time libraries but not the files to link against.
mkdir -p "$dst/lib"
cp -a /usr/lib/x86_64-linux-gnu/libsqlite3.so* /usr/lib/x86_64-linux-gnu/libzstd.so* /usr/lib/x86_64-linux-gnu/liblz4.so* "$dst/lib/"
grep -q '^/.devdeps/' "$root/.git/info/exclude" 2>/dev/null || echo '/.devdeps/' >> "$root/.git/info/exclude"
du -sh "$root/.devdeps"
