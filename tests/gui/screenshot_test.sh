#!/bin/sh
# A screenshot test: renders one view of cudalab-gui under a virtual X display (Xvfb, Mesa's
# llvmpipe) and checks the picture is sensible (many colours, all three columns drawn).
# Skips (exit 77, the reason printed) when xvfb-run is not installed.
#
#   screenshot_test.sh VIEW GUI CHECKER OUTDIR [cudalab-gui options...]
set -u
view=$1 gui=$2 check=$3 out=$4
shift 4
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: xvfb-run is not installed (Debian: xvfb), so the $view view could not be rendered"
    exit 77
fi
mkdir -p "$out"
png="$out/$view.png"
rm -f "$png"
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$gui" --view "$view" --screenshot "$png" --frames 5 "$@" || { echo "FAIL: cudalab-gui exited with $?"; exit 1; }
[ -f "$png" ] || { echo "FAIL: no screenshot written"; exit 1; }
exec "$check" "$png" --min-colors 200 --min-foreground 0.08
