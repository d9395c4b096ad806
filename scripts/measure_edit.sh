#!/bin/sh
# Edit -> redraw of the app: opens LESSON under a virtual X display on a copy of the course,
# appends a comment to its exercise three times, 2.5 s apart, and prints the app's own account of
# each (from the file's time stamp to the new frame on screen). The learner's files and progress
# are not touched.
#
#   scripts/measure_edit.sh LESSON [BUILD_DIR]
set -eu
lesson=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build}
command -v xvfb-run >/dev/null 2>&1 || { echo "measure_edit.sh: needs xvfb-run (Debian: xvfb)" >&2; exit 2; }
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$root/lessons" "$root/exercises" "$root/solutions" "$copy/"
CUDALAB_ROOT=$copy CUDALAB_STATE=$copy/state.json LIBGL_ALWAYS_SOFTWARE=1 \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build/cudalab" gui --lesson "$lesson" --exit-after 14 >"$copy/log" 2>&1 &
app=$!
sleep 5
for i in 1 2 3; do printf '\n// edit %s\n' "$i" >>"$copy/exercises/$lesson.cu"; sleep 2.5; done
wait "$app" || true
grep -E "opened|redraw" "$copy/log"
