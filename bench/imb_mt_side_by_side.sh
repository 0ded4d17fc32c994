#!/usr/bin/env bash
# mpiscope's IMB-MT PingPongMT next to a hand-written threaded ping-pong
# (bench/imb_mt_hand_loop.cpp) and, when given, Intel's IMB-MT, on the same machine (issue 34
# item 9). Every tool runs every length in a launch of its own; within a round the tools take
# turns, each going first in one round out of three. Prints per length the median over rounds of
# each tool's t_avg (usec, the mean over every thread of every process; mpiscope's from its JSON,
# the hand-written loop's to 4 decimals, Intel's as printed, to 2) and its ratio to the
# hand-written loop's, and the median of the two's ratio within a round. Goal: at most 1.02.
#
#   bench/imb_mt_side_by_side.sh [BUILD_DIR] [LAUNCHER] [ROUNDS] [THREADS] [INTEL_IMB_MT] [LENGTHS]
#   (defaults: build, mpirun.openmpi, 7, 2, none, "4 4096 65536"; lengths in bytes per thread,
#    multiples of 4: the messages are MPI_INT); REPEAT=N sets the timed round trips (1000)
#
# BUILD_DIR needs bin/mpiscope and bin/imb_mt_hand_loop (MPISCOPE_BENCH=ON, the default).
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
rounds=${3:-7}
threads=${4:-2}
intel=${5:-}
lengths=${6:-4 4096 65536}
export OMP_NUM_THREADS=$threads
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"
# "again" is the hand-written loop once more: its ratio to the first shows how large a ratio the
# machine's noise alone produces.
tools="hand mpiscope again"
[[ -n $intel ]] && tools="hand mpiscope again intel"
repeat=${REPEAT:-1000}  # IMB-MT's default; the warm-up a tenth of it, as its 100 of 1000
common=(-repeat "$repeat" -warmup $((repeat / 10)))

# One launch: "tool bytes t_avg" appended to all.txt.
run() {
  local tool=$1 bytes=$2 out="$work/out.txt"
  local -a cmd
  case $tool in
  hand | again) cmd=("$build/bin/imb_mt_hand_loop" "$threads" "$bytes" --repeat "$repeat" --warmup
    $((repeat / 10))) ;;
  mpiscope) cmd=("$build/bin/mpiscope" imb-mt PingPongMT -threads "$threads" -count
    $((bytes / 4)) "${common[@]}" --json "$work/m.json" --no-db) ;;
  intel) cmd=("$intel" -thread_level multiple PingPongMT -count $((bytes / 4)) "${common[@]}") ;;
  esac
  launch 2 "$out" "${cmd[@]}"
  local value
  case $tool in
  hand | again) value=$(line_value "$bytes" "$out") ;;
  mpiscope) value=$(json_t_avg "$work/m.json") ;;
  # IMB-MT's row: #bytes (X times the threads), #repetitions, t_min, t_max, t_avg, Mbytes/sec
  intel) value=$(awk -v n="$bytes" -v k="$threads" '$1 == n * k && NF == 6 { print $5 }' "$out") ;;
  esac
  append_figure "$tool" "$bytes" "$value"
}

# shellcheck disable=SC2086
interleave "$rounds" "$tools" run $lengths
bench_end
echo "$rounds rounds with $launcher, 2 processes x $threads threads, $repeat round trips;" \
  "medians of t_avg (usec)"
printf '%9s %10s %10s %10s %12s %10s %12s %12s\n' bytes hand mpiscope intel "mpiscope/h" \
  "intel/h" "paired m/h" "noise h'/h"
# all.txt keeps the order of the launches: the k-th line of a tool at a length is from round k.
# "paired m/h" is the median over rounds of mpiscope's time over the hand-written loop's in the
# same round, which leaves out the machine's drift from round to round; "noise h'/h" the same of
# the hand-written loop's second launch over its first.
awk "$MEDIAN_AWK$PAIRED_AWK"'
  function ratio(tool, hand) {
    if (tool == "" || hand == "" || tool == 0 || hand == 0) return "-"
    return sprintf("%.3f", tool / hand)
  }
  {
    record($2, $1, $3); v[$2, $1] = v[$2, $1] " " $3
    if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
  }
  END {
    for (i = 1; i <= n; ++i) {
      b = order[i]; h = median(v[b, "hand"]); m = median(v[b, "mpiscope"]); o = median(v[b, "intel"])
      printf "%9d %10s %10s %10s %12s %10s %12s %12s\n", b, h, m, (o == "" ? "-" : o), ratio(m, h),
        ratio(o, h), paired_median(b, "mpiscope"), paired_median(b, "again")
    }
  }' "$work/all.txt"
