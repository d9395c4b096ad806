#!/bin/sh
# A screenshot test: renders one view of cudalab-gui under a virtual X display (Xvfb, Mesa's
# llvmpipe) and checks the picture is sensible (many colours, all three columns drawn).
# Skips (exit 77, the reason printed) when xvfb-run is not installed. With EXPECT set, the app's
# output must also match that pattern.
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
log="$out/$view.log"
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$gui" --view "$view" --screenshot "$png" --frames 5 "$@" >"$log" 2>&1 || { rc=$?; cat "$log"; echo "FAIL: cudalab-gui exited with $rc"; exit 1; }
cat "$log"
[ -f "$png" ] || { echo "FAIL: no screenshot written"; exit 1; }
# EXPECT (a grep -E pattern): what the app must have said (e.g. that it traced a launch).
if [ -n "${EXPECT:-}" ] && ! grep -Eq "$EXPECT" "$log"; then
    echo "FAIL: cudalab-gui did not say /$EXPECT/"
    exit 1
fi
exec "$check" "$png" --min-colors 200 --min-foreground 0.08
