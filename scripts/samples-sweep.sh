#!/usr/bin/env bash
# Builds and runs NVIDIA's cuda-samples, unmodified, on cudalab's emulated runtime and writes a
# table of pass / fail / waived (the sample exited with EXIT_WAIVED) / skipped with the reason (docs/runtime.md quotes it).
#
#   scripts/samples-sweep.sh CUDA_SAMPLES_DIR [CATEGORY ...]
#
# CUDA_SAMPLES_DIR is a checkout of github.com/NVIDIA/cuda-samples (the folder holding Samples/
# and Common/); nothing is downloaded. Categories default to the ones that need only the CUDA
# runtime, driver and NVRTC: 0_Introduction 1_Utilities 2_Concepts_and_Techniques 3_CUDA_Features
# 6_Performance. The samples are copied to a scratch folder first (the driver-API samples need a
# .fatbin or .ptx beside them, which their CMakeLists.txt builds with a custom command; the sweep
# builds it the same way, for compute_90), so the checkout is never written to.
#
# Each sample is built as its CMakeLists.txt says (its add_executable sources, -std=c++17
# --extended-lambda, -rdc=true where CUDA_SEPARABLE_COMPILATION is on, -lcuda / -lnvrtc for
# CUDA::cuda_driver / CUDA::nvrtc) and run with
#   cudalab run --backend emu -I Common ... SOURCES
# in its own folder, as its README runs it (no arguments). Samples that need a library the
# emulated runtime does not stand in for (cuBLAS, cuFFT, cuRAND, NPP, OpenGL/GLUT, EGL, Vulkan,
# MPI, OpenMP) are listed as skipped with the reason.
#
# Environment: CUDALAB (default build/cudalab), SWEEP_TIME_LIMIT (seconds per sample, default
# 300), SWEEP_DEVICES (emulated GPUs, default 2: the peer-to-peer samples need two), SWEEP_OUT
# (folder for the table and each sample's log, default a new folder under /tmp),
# SWEEP_ONLY (a regular expression: run only the samples whose name matches).
# Exit status: 0 when the sweep ran (whatever the samples did), 2 on a usage error.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -lt 1 || ! -d $1/Samples || ! -d $1/Common ]]; then
  echo "usage: $0 CUDA_SAMPLES_DIR [CATEGORY ...] (the folder holding Samples/ and Common/)" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
shift
categories=("$@")
[[ ${#categories[@]} -eq 0 ]] &&
  categories=(0_Introduction 1_Utilities 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance)
cudalab=${CUDALAB:-$root/build/cudalab}
limit=${SWEEP_TIME_LIMIT:-300}
devices=${SWEEP_DEVICES:-2}
out=${SWEEP_OUT:-$(mktemp -d /tmp/samples-sweep.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ ! -x $cudalab ]]; then
  echo "$0: $cudalab not found: build it first (cmake --build build -j2 --target cudalab)" >&2
  exit 2
fi

work=$(mktemp -d /tmp/samples-work.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$src/Common" "$work/"
mkdir -p "$work/Samples"
for c in "${categories[@]}"; do cp -r "$src/Samples/$c" "$work/Samples/"; done

nvcc=${CUDALAB_NVCC:-}
for candidate in "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc)"; do
  [[ -z $nvcc && -x $candidate ]] && nvcc=$candidate
done

cuda_include=$(cd "$(dirname "$nvcc")/../include" 2>/dev/null && pwd)

# describe DIR: what the sample's CMakeLists.txt asks for, one "key value" per line:
#   skip REASON | source FILE | flag FLAG | fatbin KERNEL_SOURCE OUTPUT_NAME | ptx ... |
#   copy FILE FOLDER | copydir FOLDER FOLDER
describe() {
  python3 - "$1" <<'EOF'
import os, re, sys
d = sys.argv[1]
text = open(os.path.join(d, "CMakeLists.txt")).read()
text = re.sub(r"#[^\n]*", "", text)
needs = [("CUDA::cublas", "cuBLAS"), ("CUDA::cufft", "cuFFT"), ("CUDA::curand", "cuRAND"),
         ("CUDA::npp", "NPP"), ("CUDA::cusolver", "cuSOLVER"), ("CUDA::cusparse", "cuSPARSE"),
         ("CUDA::nvjpeg", "nvJPEG"), ("OpenGL", "OpenGL"), ("GLUT", "GLUT"), ("EGL", "EGL"),
         ("Vulkan", "Vulkan"), ("MPI_", "MPI"), ("OpenMP", "OpenMP"), ("NVSCI", "NvSci")]
missing = [name for key, name in needs if key in text]
if missing:
    print("skip needs " + ", ".join(dict.fromkeys(missing)))
    sys.exit()
m = re.search(r"add_executable\(\s*(\S+)([^)]*)\)", text)
if not m:
    print("skip no add_executable in CMakeLists.txt")
    sys.exit()
for f in m.group(2).split():
    if "$" in f:
        print("skip sources from a CMake variable: " + f)
        sys.exit()
    print("source " + f)
print("flag -std=c++17")
if "--extended-lambda" in text:
    print("flag --extended-lambda")
if re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text):
    print("flag -rdc=true")
if "CUDA::cuda_driver" in text:
    print("flag -lcuda")
if "CUDA::nvrtc" in text:
    print("flag -lnvrtc")
# Files a POST_BUILD command copies next to the executable from the toolkit's headers (the NVRTC
# samples compile cooperative_groups.h and libcu++ at run time and look for them there).
for m in re.finditer(r"-E\s+(copy_if_different|copy_directory)\s+([^)]*)\)", text):
    args = m.group(2).split()
    if m.group(1) == "copy_directory" and len(args) == 2:
        print("copydir %s %s" % (args[0], args[1]))
    else:
        for a in args[:-1]:
            print("copy %s %s" % (a, args[-1]))
# Driver-API samples: a custom command builds the kernel file the program loads at run time.
for kind in ("FATBIN", "PTX"):
    for var in re.finditer(r"set\(\s*CUDA_%s_FILE\s+\"?\$\{CMAKE_CURRENT_BINARY_DIR\}/([^\s\"]+)\"?\s*\)" % kind, text):
        kernel = re.search(r"set\(\s*CUDA_KERNEL_SOURCE\s+\"?\$\{CMAKE_CURRENT_SOURCE_DIR\}/([^\s\"]+)\"?\s*\)", text)
        if kernel:
            print("%s %s %s" % (kind.lower(), kernel.group(1), var.group(1)))
EOF
}

table=$out/table.md
printf '| sample | result | seconds | why |\n|---|---|---|---|\n' >"$table"
pass=0 fail=0 skip=0 waived=0
for c in "${categories[@]}"; do
  for dir in "$work/Samples/$c"/*/; do
    name=$(basename "$dir")
    [[ -f $dir/CMakeLists.txt ]] || continue
    [[ -n ${SWEEP_ONLY:-} && ! $name =~ $SWEEP_ONLY ]] && continue
    sources=() flags=() why="" result=""
    while read -r key rest; do
      case $key in
      skip) result=skipped why=$rest ;;
      source) sources+=("$rest") ;;
      flag) flags+=("$rest") ;;
      copy | copydir)
        # ${CUDA_INCLUDE_DIR}/x -> the sample's folder (where it runs: CMake's binary folder)
        read -r from to <<<"$rest"
        from=${from//\$\{CUDA_INCLUDE_DIR\}/$cuda_include}
        from=${from//\$\{CMAKE_CURRENT_SOURCE_DIR\}/$dir}
        to=${to//\$\{CMAKE_CURRENT_BINARY_DIR\}/$dir}
        if [[ $key == copydir ]]; then
          [[ -d $from && ! -e $to ]] && cp -r "$from" "$to"
        elif [[ -f $from && ! -e $to/$(basename "$from") ]]; then
          cp "$from" "$to/"
        fi
        ;;
      fatbin | ptx)
        read -r kernel output <<<"$rest"
        (cd "$dir" && "$nvcc" -I../../../Common -arch=compute_90 -code=compute_90 \
          "-$key" -o "$output" "$kernel") >>"$out/$name.log" 2>&1 ||
          { result=fail why="nvcc -$key of $kernel failed"; }
        ;;
      esac
    done < <(describe "$dir")
    if [[ $result == skipped ]]; then
      skip=$((skip + 1))
      printf '| %s/%s | skipped | | %s |\n' "$c" "$name" "$why" >>"$table"
      echo "$c/$name: skipped ($why)"
      continue
    fi
    start=$(date +%s.%N)
    if [[ -z $result ]]; then
      (cd "$dir" && "$cudalab" run --backend emu --devices "$devices" --time-limit "$limit" \
        -I ../../../Common \
        "${flags[@]}" "${sources[@]}") >>"$out/$name.log" 2>&1 </dev/null
      rc=$?
    else
      rc=1
    fi
    seconds=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
    if [[ -z $result ]]; then
      # (A sample that ignores its kernels' errors exits 0 after cudalab said it cannot run one.
      # Kernel faults such as simpleAssert's assert are the program's own doing.)
      if [[ $rc -eq 0 ]] && ! grep -q -E 'FAILED|[Tt]est failed|Result = FAIL' "$out/$name.log" &&
        ! grep -q -E '^cudalab: cannot run kernel|unsupported instruction in kernel' "$out/$name.log"; then
        result=pass
      elif [[ $rc -eq 2 ]] && grep -q -i 'waiv' "$out/$name.log"; then
        result=waived  # EXIT_WAIVED: the sample found the device lacks what it needs
        why=$(grep -i -m1 'waiv' "$out/$name.log" | cut -c1-160 | tr '|' '/')
      else
        result=fail
        if [[ $rc -eq 0 ]]; then
          why="exit 0, but $(grep -m1 -E '^cudalab: cannot run kernel|unsupported instruction in kernel' \
            "$out/$name.log" | cut -c1-160 | tr '|' '/')"
        elif [[ $rc -eq 124 ]]; then
          why="over the time limit ($limit s)"
        elif [[ $rc -eq 2 ]] && grep -q -E 'error:|error :' "$out/$name.log"; then
          why="build: $(grep -m1 -E 'error:|error :' "$out/$name.log" | cut -c1-160)"
        else
          why="exit $rc"
          nosupport=$(grep -o -E '[A-Za-z0-9_]+ is not implemented by cudalab' "$out/$name.log" |
            cut -d' ' -f1 | sort -u | tr '\n' ' ')
          [[ -n $nosupport ]] && why="$why; not implemented: $nosupport"
          last=$(grep -v -E '^\s*$' "$out/$name.log" | tail -1 | cut -c1-160 | tr '|' '/')
          why="$why; last line: $last"
        fi
      fi
    fi
    case $result in
    pass) pass=$((pass + 1)) ;;
    waived) waived=$((waived + 1)) ;;
    *) fail=$((fail + 1)) ;;
    esac
    printf '| %s/%s | %s | %s | %s |\n' "$c" "$name" "$result" "$seconds" "$why" >>"$table"
    echo "$c/$name: $result ${seconds}s $why"
  done
done
echo "passed $pass, failed $fail, waived $waived, skipped $skip; table: $table, logs: $out/NAME.log"
