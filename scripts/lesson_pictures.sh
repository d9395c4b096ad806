#!/bin/sh
# Renders the pictures listed in docs/images/lessons/pictures.tsv, from each lesson's shipped
# exercise, its solution or another file of the course (a known-wrong variant), into
# docs/images/lessons/LESSON-VIEW-SOURCE.png (SOURCE: exercise, solution or the file's name
# without .cu): the views column of the app at 1600 x 1000 under a virtual X display (Xvfb,
# Mesa's llvmpipe).
#
#   scripts/lesson_pictures.sh [BUILD_DIR]     (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$root/docs/images/lessons
export CUDALAB_STATE="${TMPDIR:-/tmp}/cudalab-pictures-state.json"  # leave the learner's progress alone
command -v xvfb-run >/dev/null 2>&1 || { echo "lesson_pictures.sh: needs xvfb-run (Debian: xvfb)" >&2; exit 2; }
grep -v '^#' "$out/pictures.tsv" | while IFS="$(printf '\t')" read -r lesson view source expect; do
    [ -n "$lesson" ] || continue
    flag="" name=$source
    [ "$source" = solution ] && flag=--solution
    case $source in *.cu) flag="--source $root/$source" name=$(basename "$source" .cu) ;; esac
    png="$out/$lesson-$view-$name.png"
    LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
        "$build/cudalab" gui --lesson "$lesson" --view "$view" $flag --seed 20261130 --crop views --screenshot "$png" --frames 5 >/dev/null
    echo "$png  ($expect)"
done

# A program lesson's streams timeline (lesson 14's solution: the copies of each stream under the
# kernels of the others), pinned by tests/gui_streams_test.cpp through the view model.
png="$out/14-streams-timeline.png"
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$build/cudalab" gui --lesson 14-streams --view streams --solution --seed 1414 --crop views --screenshot "$png" --frames 5 >/dev/null
echo "$png  (4 streams, copies in both directions overlapping kernels)"

# Part IV's program lessons: the run in the view that shows what each lesson teaches, from the
# exercise and from the solution (LESSON-VIEW-exercise.png, LESSON-VIEW-solution.png); "window" is
# the whole window (the Checks tab: lessons 16 and 18 teach through the messages, not a picture of
# the run); a third column traces that launch of the program and opens the kernel view named on it.
# docs/gui.md says what each shows; the view model behind 17's and 20's is pinned by
# tests/gui_streams_test.cpp.
while read -r lesson view launch; do
    [ -n "$lesson" ] || continue
    for source in exercise solution; do
        flag="" crop="--crop views" open=$view
        [ "$source" = solution ] && flag=--solution
        [ "$view" = window ] && crop="" open=streams
        [ -n "$launch" ] && flag="$flag --launch $launch"
        png="$out/$lesson-$view-$source.png"
        LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
            "$build/cudalab" gui --lesson "$lesson" --view "$open" $flag --seed 20261130 $crop --screenshot "$png" --frames 5 >/dev/null
        echo "$png"
    done
done <<'LESSONS'
02b-host-program streams
13-constant-memory memory 1
14-streams streams
15-cuda-graphs streams
16-errors window
17-unified-memory pages
18-compatibility window
19-async-alloc streams
20-multi-gpu streams
LESSONS
