#!/usr/bin/env bash
# Every OSU 7.4 program mpiscope runs, next to OSU's own binary of that name, on the same machine
# (issue 30 item 3): for each program and length, the two tools take turns in launches of their
# own (each goes first in every other round), and the script prints per program and length the
# median over rounds of each tool's figure, their ratio in time (mpiscope / OSU: latency tools
# time over time, bandwidth and rate tools OSU's figure over mpiscope's; above 1: mpiscope
# measured more time), and in how many rounds mpiscope measured more time.
#
#   bench/osu_programs_side_by_side.sh OSU_BUILD_DIR [BUILD_DIR] [LAUNCHER] [ROUNDS] [NP]
#                                      [LENGTHS] [PROGRAMS]
#   (defaults: build, mpirun.openmpi, 5, 2, "8 65536", every program below found in
#   OSU_BUILD_DIR)
#
# OSU_BUILD_DIR is OSU 7.4's source tree configured and built for the same MPI library, e.g.
#   ./configure CC=mpicc.openmpi CXX=mpicxx.openmpi && make -C c
# Programs without sizes (osu_barrier, osu_ibarrier) run once per round.
set -euo pipefail
osu=${1:?usage: bench/osu_programs_side_by_side.sh OSU_BUILD_DIR [BUILD_DIR] [LAUNCHER] [ROUNDS] [NP] [LENGTHS] [PROGRAMS]}
build=${2:-build}
launcher=${3:-mpirun.openmpi}
rounds=${4:-5}
np=${5:-2}
lengths=${6:-8 65536}
programs=${7:-osu_latency osu_bw osu_bibw osu_mbw_mr osu_multi_lat
  osu_allreduce osu_bcast osu_alltoall osu_allgather osu_reduce osu_gather osu_scatter osu_barrier
  osu_alltoallv osu_allgatherv osu_gatherv osu_scatterv osu_reduce_scatter
  osu_iallreduce osu_ibcast osu_ialltoall osu_iallgather osu_ireduce osu_igather osu_iscatter
  osu_ibarrier osu_ialltoallv osu_iallgatherv osu_igatherv osu_iscatterv osu_ireduce_scatter
  osu_put_latency osu_get_latency osu_put_bw osu_get_bw osu_put_bibw osu_acc_latency
  osu_fop_latency osu_cas_latency osu_get_acc_latency osu_bw_fan_in osu_bw_fan_out}
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"

binary_of() { find "$osu/c" -type f -perm -u+x -name "$1" | head -1; }
sized() { [[ $1 != osu_barrier && $1 != osu_ibarrier && $1 != osu_fop_latency && $1 != osu_cas_latency ]]; }
# Bandwidth and rate programs: larger is faster.
faster_is_larger() { [[ $1 == *_bw || $1 == *_bibw || $1 == osu_mbw_mr || $1 == osu_bw_fan_* ]]; }

# One launch: "tool program bytes value" appended to all.txt. The value is the first figure
# after the size (OSU's latency, bandwidth or, for the non-blocking ones, the overall latency).
run() {
  local tool=$1 program=$2 bytes=$3 out="$work/out.txt"
  local -a cmd size=()
  sized "$program" && size=(-m "$bytes:$bytes")
  case $tool in
  mpiscope) cmd=("$build/bin/mpiscope" osu "$program" "${size[@]}" --no-db) ;;
  osu) cmd=("$(binary_of "$program")" "${size[@]}") ;;
  esac
  # shellcheck disable=SC2086
  if ! timeout 300 "$launcher" $oversubscribe -np "$np" "${cmd[@]}" > "$out" 2>&1; then
    echo "failed: ${cmd[*]}" >&2
    tail -5 "$out" >&2
    return
  fi
  if sized "$program"; then
    awk -v t="$tool" -v b="$program" -v n="$bytes" '$1 == n && $2 ~ /^[0-9.]+$/ { print t, b, n, $2; exit }' \
      "$out" >> "$work/all.txt"
  else
    # osu_barrier and osu_ibarrier print the latency (Overall) first; osu_fop_latency and
    # osu_cas_latency their one size, then the latency.
    awk -v t="$tool" -v b="$program" '$1 ~ /^[0-9.]+$/ && !/^#/ {
      print t, b, 0, (b ~ /_(fop|cas)_latency$/ ? $2 : $1); exit }' "$out" >> "$work/all.txt"
  fi
}

for program in $programs; do
  if [[ -z $(binary_of "$program") ]]; then
    echo "skipped: no $program in $osu" >&2
    continue
  fi
  sizes=$lengths
  sized "$program" || sizes=0
  items=()
  for bytes in $sizes; do items+=("$program $bytes"); done
  interleave "$rounds" "mpiscope osu" run "${items[@]}"
done
bench_end
echo "$rounds rounds with $launcher, $np processes; medians over rounds"
printf '%-22s %9s %12s %12s %10s %8s\n' program bytes mpiscope osu "time m/o" "m>o"
awk "$MEDIAN_AWK"'
  function larger_faster(p) { return p ~ /_bw$|_bibw$|^osu_mbw_mr$|^osu_bw_fan_/ }
  {
    key = $2 " " $3
    v[key, $1] = v[key, $1] " " $4
    n[key, $1]++
    vals[key, $1, n[key, $1]] = $4
    if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  }
  END {
    for (i = 1; i <= k; ++i) {
      split(order[i], p, " ")
      m = median(v[order[i], "mpiscope"]); o = median(v[order[i], "osu"])
      r = (m == "" || o == "" || m == 0 || o == 0) ? "-" : sprintf("%.3f", larger_faster(p[1]) ? o / m : m / o)
      more = 0; pairs = n[order[i], "mpiscope"] < n[order[i], "osu"] ? n[order[i], "mpiscope"] : n[order[i], "osu"]
      for (j = 1; j <= pairs; ++j) {
        a = vals[order[i], "mpiscope", j]; b = vals[order[i], "osu", j]
        if (larger_faster(p[1]) ? a + 0 < b + 0 : a + 0 > b + 0) more++
      }
      printf "%-22s %9d %12s %12s %10s %5d/%d\n", p[1], p[2], m, o, r, more, pairs
    }
  }' "$work/all.txt"
