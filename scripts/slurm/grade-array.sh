#!/usr/bin/env bash
# Grades a class on a Slurm cluster: `cudalab grade --shard K/N` as a job array of N tasks, then
# one job (after all of them succeeded) that merges the shards (docs/instructors.md, "The cluster
# run"). SUBMISSIONS and OUT must be on a file system every node sees.
#
#   scripts/slurm/grade-array.sh SUBMISSIONS OUT [--shards N] [--lessons ID,...] [--seed S]
#       [--cpus C] [--gpu] [--wait] [-- SBATCH OPTIONS...]
#
# OUT/shards/K/ holds shard K's results, OUT/merged/ the class's (results.csv, students.csv,
# summary.json, every student's reports), OUT/slurm/ the jobs' logs. One seed (given, else drawn
# here) is used by every shard, as a merge requires. $CUDALAB names cudalab (default: the build
# next to this script). --gpu asks each task for a GPU (--gres=gpu:1) and grades on it.
set -euo pipefail
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 2 ]] || usage
subs="$(realpath "$1")"; out="$(realpath -m "$2")"; shift 2
shards=4 lessons="" seed="" cpus=2 gpu=0 wait=0 extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shards) shards="$2"; shift 2 ;;
    --lessons) lessons="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --cpus) cpus="$2"; shift 2 ;;
    --gpu) gpu=1; shift ;;
    --wait) wait=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cudalab="$(realpath "${CUDALAB:-$here/build/cudalab}")"
[[ -x "$cudalab" ]] || { echo "grade-array: no cudalab at $cudalab (build it, or set CUDALAB)" >&2; exit 2; }
[[ -d "$subs" ]] || { echo "grade-array: $subs is not a folder" >&2; exit 2; }
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "grade-array: --shards takes a positive number" >&2; exit 2; }
[[ -n "$seed" ]] || seed="$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')"
mkdir -p "$out/shards" "$out/slurm"
lesson_args=""; [[ -n "$lessons" ]] && lesson_args="--lessons $lessons"
backend="emu"; gres=()
(( gpu )) && { backend="gpu"; gres=(--gres=gpu:1); }
# The tasks grade the course this shell would load: sbatch passes the environment on (CUDALAB_ROOT,
# CUDALAB_COURSE) unless an --export after -- says otherwise.
array=$(sbatch --parsable --job-name=cudalab-grade --array="1-$shards" --cpus-per-task="$cpus" "${gres[@]}" \
  --output="$out/slurm/shard-%a.log" "${extra[@]}" \
  --wrap="'$cudalab' grade '$subs' $lesson_args --seed $seed --backend $backend --jobs \${SLURM_CPUS_PER_TASK:-1} --shard \$SLURM_ARRAY_TASK_ID/$shards --out '$out/shards/'\$SLURM_ARRAY_TASK_ID")
array="${array%%;*}"
shard_dirs=""
for ((k = 1; k <= shards; k++)); do shard_dirs+=" '$out/shards/$k'"; done
wait_args=(); (( wait )) && wait_args=(--wait)
echo "grade-array: job array $array ($shards shards, seed $seed)"
merge=$(sbatch --parsable --job-name=cudalab-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/slurm/merge.log" "${extra[@]}" "${wait_args[@]}" \
  --wrap="'$cudalab' grade --merge$shard_dirs --out '$out/merged'")
echo "grade-array: merge job ${merge%%;*}: $out/merged/ (logs in $out/slurm/)"
