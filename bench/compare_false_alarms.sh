#!/usr/bin/env bash
# How often `mpiscope compare --fail-above 10` is wrong, and how often it says it cannot tell
# (issues 14 and 36). Each comparison launches the same tiny run (PingPong and Allreduce at 2
# processes, 4, 64, 1024 and 4096 bytes, at most 400 repetitions) 15 times, in turn into set A, set
# B (identical) and set D (every MPI_Send delayed by DELAY_US microseconds through the project's
# PMPI library), then compares:
#   A's 5 runs with B's 5: exit 3 is a false alarm, 6 "cannot tell", 0 a pass;
#   A's 5 runs with D's 5: anything but exit 3 is a miss;
#   the first run of A with the first of B and of D (one run per side): the same, and the largest
#   B/A (or A/B) of identical single launches, which the single-run bound (3x) must exceed.
# With HOGS=N, N busy loops run beside every launch (a machine shared with other jobs); LENGTHS
# sets the message lengths. With sqlite3 at hand, each identical single pair also shows the most a
# rank of each run waited for a CPU (max_cpu_wait_percent), and the largest ratio is given apart
# for the pairs that kept their cores (both at most 10 %: the single-run bound's premise).
#   [HOGS=N] [DELAY_US=20] [LENGTHS="4 64 1024 4096"] bench/compare_false_alarms.sh [BUILD_DIR]
#     [LAUNCHER] [COMPARISONS]
#   (defaults: build, mpirun.openmpi, 20)
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
comparisons=${3:-20}
hogs=${HOGS:-0}
delay=${DELAY_US:-20}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
oversubscribe=""
[[ $launcher == *openmpi* ]] && oversubscribe=--oversubscribe
work=$(mktemp -d)
hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  hog_pids=()
}
trap 'stop_hogs; rm -rf "$work"' EXIT
printf '%s\n' ${LENGTHS:-4 64 1024 4096} > "$work/lengths"
preload=$(cd "$build/bin" && pwd)/libmpiscope_delay.so
[[ -f $preload ]] || { echo "no $preload: build the tests first" >&2; exit 2; }
for ((h = 0; h < hogs; ++h)); do
  (while :; do :; done) &
  hog_pids+=($!)
done

launch() {  # launch DB [DELAY]
  local env=()
  [[ -n ${2:-} ]] && env=(env LD_PRELOAD="$preload" MPISCOPE_DELAY="MPI_Send=$2")
  timeout 300 "${env[@]}" "$launcher" $oversubscribe -np 2 "$build/bin/mpiscope" imb-mpi1 \
    PingPong Allreduce -msglen "$work/lengths" -iter 400 --db "$1" > /dev/null 2>&1
}
verdict() {  # verdict DB A B: compare's exit status
  local status=0
  "$build/bin/mpiscope" compare --db "$1" "$2" "$3" --fail-above 10 > "$work/last.txt" || status=$?
  echo "$status"
}
declare -A count
tally() { count[$1]=$((${count[$1]:-0} + 1)); }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $hogs busy loops beside the launches"
start=$(date +%s)
widest=1
widest_kept=1  # of the pairs in which no rank waited for a CPU more than 10 % of the time
wait_of() {  # wait_of DB RUN: the most a rank waited for a CPU, percent of the run (? if not known)
  command -v sqlite3 > /dev/null || { echo "?"; return; }
  local w
  w=$(sqlite3 "$1" "SELECT value FROM run_settings WHERE run_id = $2 AND name = 'max_cpu_wait_percent'")
  echo "${w:-?}"
}
for ((c = 1; c <= comparisons; ++c)); do
  db=$work/c$c.sqlite
  for round in 1 2 3 4 5; do
    launch "$db"             # A: runs 1, 4, 7, 10, 13
    launch "$db"             # B: runs 2, 5, 8, 11, 14
    launch "$db" "$delay"    # D: runs 3, 6, 9, 12, 15
  done
  same=$(verdict "$db" 1,4,7,10,13 2,5,8,11,14)
  cp "$work/last.txt" "$work/same$c.txt"
  slow=$(verdict "$db" 1,4,7,10,13 3,6,9,12,15)
  single_same=$(verdict "$db" 1 2)
  # The largest ratio either way between two identical single launches, over every row.
  read -r ratio ratio_row < <(awk '/^# [A-Z]/ { table = $2 }
      $7 == "bound" { r = $4 + 0; if (r > 0 && 1 / r > r) r = 1 / r
                      if (r > w) { w = r; row = table "@" $1 "B" } }
      END { printf "%.3f %s\n", w, row }' "$work/last.txt")
  widest=$(awk -v a="$widest" -v b="$ratio" 'BEGIN { print (b > a ? b : a) }')
  wait1=$(wait_of "$db" 1)
  wait2=$(wait_of "$db" 2)
  if awk -v x="$wait1" -v y="$wait2" 'BEGIN { exit !(x != "?" && y != "?" && x <= 10 && y <= 10) }'; then
    widest_kept=$(awk -v a="$widest_kept" -v b="$ratio" 'BEGIN { print (b > a ? b : a) }')
  fi
  single_slow=$(verdict "$db" 1 3)
  tally "same:$same"; tally "slow:$slow"; tally "single_same:$single_same"
  tally "single_slow:$single_slow"
  echo "comparison $c: identical 5 vs 5 exit $same, delayed 5 vs 5 exit $slow;" \
    "identical 1 vs 1 exit $single_same (largest ratio $ratio at $ratio_row; a rank waited for a CPU" \
    "$wait1 % and $wait2 %), delayed 1 vs 1 exit $single_slow"
  [[ $same == 3 ]] && grep -E 'SLOWDOWN|^# [A-Z]' "$work/same$c.txt" | grep -B1 SLOWDOWN || true
done
stop_hogs
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
identical() {  # identical KIND LABEL
  echo "identical launches, $2: false alarms (exit 3) ${count[$1:3]:-0}, cannot tell (6)" \
    "${count[$1:6]:-0}, passed (0) ${count[$1:0]:-0} of $comparisons"
}
delayed() {  # delayed KIND LABEL
  echo "+$delay us per MPI_Send, $2: caught (exit 3) ${count[$1:3]:-0}, missed" \
    "$((comparisons - ${count[$1:3]:-0})) (of which cannot tell ${count[$1:6]:-0}) of $comparisons"
}
identical same "5 vs 5"
identical single_same "1 vs 1"
delayed slow "5 vs 5"
delayed single_slow "1 vs 1"
echo "largest ratio of identical single launches, any row: $widest; of those that kept their" \
  "cores (no rank waited for a CPU more than 10 %): $widest_kept"
echo "wall time: $(( $(date +%s) - start )) s"
