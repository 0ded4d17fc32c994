#!/usr/bin/env bash
# mpiscope's osu_latency and osu_bw next to hand-written loops (bench/osu_hand_loops.cpp) and,
# when given, OSU's own binaries, on the same machine (issue 18 item 8, issue 14). Every tool
# runs every length in a launch of its own; within a round the tools take turns, each going
# first in one round out of three, so that drift of the machine hits all alike. Prints per
# benchmark and length the median over rounds of each tool's figure and the ratio in time to
# the hand-written loop (latency: tool / hand; bandwidth: hand / tool; above 1: the tool
# measured more time than the hand-written loop did). Goal: at most 1.02.
#
#   bench/osu_side_by_side.sh [BUILD_DIR] [LAUNCHER] [ROUNDS] [OSU_PT2PT_DIR] [LENGTHS] [BENCHES]
#   (defaults: build, mpirun.openmpi, 7, none, "1 65536 1048576 4194304",
#    "osu_latency osu_bw"; osu_latency_mt runs with -t $THREADS, default 1:2)
#
# BUILD_DIR needs bin/mpiscope and bin/osu_hand_loops (MPISCOPE_BENCH=ON, the default).
# OSU_PT2PT_DIR holds OSU's osu_latency and osu_bw built for the same MPI library, e.g.
#   ./configure CC=mpicc.openmpi CXX=mpicxx.openmpi && make -C c/mpi/pt2pt/standard
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
rounds=${3:-7}
osu_dir=${4:-}
lengths=${5:-1 65536 1048576 4194304}
benches=${6:-osu_latency osu_bw}
threads=${THREADS:-1:2}
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"
# "again" is the hand-written loop once more: its ratio to the first shows how large a ratio the
# machine's noise alone produces.
tools="hand mpiscope again"
[[ -n $osu_dir ]] && tools="hand mpiscope again osu"

# One launch: "tool benchmark bytes value" appended to all.txt from the "BYTES VALUE" lines.
run() {
  local tool=$1 bench=$2 bytes=$3 out="$work/out.txt"
  local -a cmd
  local -a extra=()
  [[ $bench == osu_latency_mt ]] && extra=(-t "$threads")
  case $tool in
  hand | again)
    cmd=("$build/bin/osu_hand_loops" "${bench#osu_}" "$bytes")
    [[ $bench == osu_latency_mt ]] && cmd+=(--threads "$threads")
    ;;
  mpiscope) cmd=("$build/bin/mpiscope" osu "$bench" -m "$bytes:$bytes" "${extra[@]}" --json
    "$work/m.json" --no-db) ;;
  osu) cmd=("$osu_dir/$bench" -m "$bytes:$bytes" "${extra[@]}") ;;
  esac
  # shellcheck disable=SC2086
  # OSU 7.4's osu_latency_mt returns without MPI_Finalize, which Open MPI's launcher reports as
  # a failure after its table is out.
  if ! timeout 300 "$launcher" $oversubscribe -np 2 "${cmd[@]}" > "$out" 2>&1 &&
    ! [[ $tool == osu && $bench == osu_latency_mt ]]; then
    echo "failed: ${cmd[*]}" >&2
    cat "$out" >&2
    exit 1
  fi
  local value
  if [[ $tool == mpiscope && $bench != osu_bw ]]; then  # latency to the nanosecond
    value=$(json_t_avg "$work/m.json")
  else
    value=$(line_value "$bytes" "$out")
  fi
  append_figure "$tool" "$bench" "$bytes" "$value"
}

items=()
for bench in $benches; do for bytes in $lengths; do items+=("$bench $bytes"); done; done
interleave "$rounds" "$tools" run "${items[@]}"
bench_end
echo "$rounds rounds with $launcher, 2 processes; medians over rounds"
printf '%-14s %9s %12s %12s %12s %10s %10s %12s %12s %12s\n' benchmark bytes hand mpiscope \
  osu "mpiscope/h" "osu/h" "paired m/h" "paired o/h" "noise h'/h"
# all.txt keeps the order of the launches: the k-th line of a tool at a point is from round k.
# "paired m/h" is the median over rounds of mpiscope's ratio in time to the hand-written loop in
# the same round, "paired o/h" OSU's, "noise h'/h" the hand-written loop's second launch's.
# OSU's binaries print two decimals (at 0.2 us one digit is 5 %).
awk "$MEDIAN_AWK$PAIRED_AWK"'
  # Ratio in time against the hand-written loop.
  function ratio(bench, tool, hand) {
    if (tool == "" || hand == "" || tool == 0 || hand == 0) return "-"
    return sprintf("%.3f", bench == "osu_bw" ? hand / tool : tool / hand)
  }
  {
    key = $2 " " $3; v[key, $1] = v[key, $1] " " $4
    record(key, $1, $2 == "osu_bw" ? ($4 > 0 ? 1 / $4 : 0) : $4)  # bandwidth: time per byte
    if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  }
  END {
    for (i = 1; i <= k; ++i) {
      split(order[i], p, " ")
      h = median(v[order[i], "hand"]); m = median(v[order[i], "mpiscope"]); o = median(v[order[i], "osu"])
      printf "%-14s %9d %12s %12s %12s %10s %10s %12s %12s %12s\n", p[1], p[2], h, m,
        (o == "" ? "-" : o), ratio(p[1], m, h), ratio(p[1], o, h), paired_median(order[i], "mpiscope"),
        paired_median(order[i], "osu"), paired_median(order[i], "again")
    }
  }' "$work/all.txt"
