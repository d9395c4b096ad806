#!/usr/bin/env bash
# Sets up cudalab if needed, then opens lesson 01 (in a window when there is a display; in the
# terminal otherwise). Other lessons: ./run.sh 05-coalescing. Any cudalab command: build/cudalab --help
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/setup.sh"
lesson="${1:-01-threads}"
if [[ -x "$root/build/cudalab-gui" ]]; then
  exec "$root/build/cudalab" gui --lesson "$lesson"
fi
exec "$root/build/cudalab" learn "$lesson" --watch
