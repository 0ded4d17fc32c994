#!/usr/bin/env bash
# mpiscope's IMB-P2P PingPong and Stencil2D next to the same loops written by hand
# (bench/imb_p2p_hand_loop.cpp), on the same machine. Every tool runs every pattern and length
# in a launch of its own; within a round the tools take turns, each going first in its share of
# the rounds. Prints per pattern and length the median over rounds of each tool's t (IMB-P2P's
# t[usec]: the ranks' summed loop times over the messages they moved; mpiscope's from its JSON),
# the ratio of the medians, the median over rounds of mpiscope's t over the hand-written loop's
# in the same round (paired) and the same of the hand-written loop's second launch over its
# first (noise). Goal: at most 1.02.
#
#   bench/imb_p2p_side_by_side.sh [BUILD_DIR] [LAUNCHER] [ROUNDS] [PROCESSES] [LENGTHS] [PATTERNS]
#   (defaults: build, mpirun.openmpi, 7, 4, "4 4096 65536", "PingPong Stencil2D");
#   ITER=N sets the timed repetitions (20000)
#
# BUILD_DIR needs bin/mpiscope and bin/imb_p2p_hand_loop (MPISCOPE_BENCH=ON, the default).
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
rounds=${3:-7}
processes=${4:-4}
lengths=${5:-4 4096 65536}
patterns=${6:-PingPong Stencil2D}
iter=${ITER:-20000}
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"

# One launch: "tool pattern bytes t" appended to all.txt.
run() {
  local tool=$1 pattern=$2 bytes=$3 out="$work/out.txt"
  local -a cmd
  case $tool in
  hand | again) cmd=("$build/bin/imb_p2p_hand_loop" "${pattern,,}" "$bytes" --iter "$iter") ;;
  # -iter MAX,MB with MB large enough that every length runs MAX repetitions.
  mpiscope) cmd=("$build/bin/mpiscope" imb-p2p "$pattern" -msgsz "$bytes" -iter "$iter,1000000"
    -pause 0 --json "$work/m.json" --no-db) ;;
  esac
  launch "$processes" "$out" "${cmd[@]}"
  local value
  case $tool in
  hand | again) value=$(line_value "$bytes" "$out") ;;
  mpiscope) value=$(json_t_avg "$work/m.json") ;;
  esac
  append_figure "$tool" "$pattern" "$bytes" "$value"
}

items=()
for pattern in $patterns; do for bytes in $lengths; do items+=("$pattern $bytes"); done; done
interleave "$rounds" "hand mpiscope again" run "${items[@]}"
bench_end
echo "$rounds rounds with $launcher, $processes processes, $iter repetitions; medians of t (usec)"
printf '%-10s %9s %12s %12s %12s %12s %12s\n' pattern bytes hand mpiscope "mpiscope/h" \
  "paired m/h" "noise h'/h"
awk "$MEDIAN_AWK$PAIRED_AWK"'
  {
    key = $2 " " $3; v[key, $1] = v[key, $1] " " $4; record(key, $1, $4)
    if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  }
  END {
    for (i = 1; i <= k; ++i) {
      split(order[i], p, " ")
      h = median(v[order[i], "hand"]); m = median(v[order[i], "mpiscope"])
      printf "%-10s %9d %12s %12s %12s %12s %12s\n", p[1], p[2], h, m,
        (h > 0 ? sprintf("%.3f", m / h) : "-"), paired_median(order[i], "mpiscope"),
        paired_median(order[i], "again")
    }
  }' "$work/all.txt"
