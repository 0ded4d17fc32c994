#!/usr/bin/env bash
# The false alarm rate of `mpiscope compare --fail-above 10` on identical launches (issue 14
# item 5). Each comparison launches the same tiny run (PingPong and Allreduce at 2 processes,
# 0, 4, 64 and 1024 bytes, at most 400 repetitions) 10 times, alternately into set A and set B,
# then compares A's 5 runs with B's 5: a SLOWDOWN there is a false alarm. The first run of each
# set is also compared alone (one run per side: the 5 % noise floor decides), to show what a
# single-run gate would do on the same launches; and the 5-against-5 rows that are slower beyond
# the noise with B/A above 1.1 are counted, to show what a gate without compare's test of B
# against A x 1.1 would do.
#   bench/compare_false_alarms.sh [BUILD_DIR] [LAUNCHER] [COMPARISONS]
#   (defaults: build, mpirun.openmpi, 20)
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
comparisons=${3:-20}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
oversubscribe=""
[[ $launcher == *openmpi* ]] && oversubscribe=--oversubscribe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '0\n4\n64\n1024\n' > "$work/lengths"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
alarms=0 single_alarms=0 unscaled_alarms=0
for ((c = 1; c <= comparisons; ++c)); do
  db=$work/c$c.sqlite
  for launch in 1 2 3 4 5 6 7 8 9 10; do
    timeout 300 "$launcher" $oversubscribe -np 2 "$build/bin/mpiscope" imb-mpi1 PingPong Allreduce \
      -msglen "$work/lengths" -iter 400 --db "$db" > /dev/null 2>&1
  done
  # Odd launches (runs 1, 3, ...) are A, even ones B.
  status=0
  "$build/bin/mpiscope" compare --db "$db" 1,3,5,7,9 2,4,6,8,10 --fail-above 10 \
    > "$work/c$c.txt" || status=$?
  single=0
  "$build/bin/mpiscope" compare --db "$db" 1 2 --fail-above 10 > "$work/s$c.txt" || single=$?
  [[ $status == 3 ]] && alarms=$((alarms + 1))
  [[ $single == 3 ]] && single_alarms=$((single_alarms + 1))
  # The largest B/A of the comparison, to see how close the gate came.
  worst=$(awk 'NF >= 8 && $7 ~ /^p=/ { if ($4 + 0 > w) w = $4 + 0 } END { printf "%.3f", w }' \
    "$work/c$c.txt")
  # Rows that a gate on "B/A above the limit and slower beyond the noise" would fail, without
  # compare's test of B against A x (1 + limit).
  unscaled=$(awk 'NF >= 8 && $7 ~ /^p=/ && $8 == "beyond" && $4 + 0 > 1.1' "$work/c$c.txt" | wc -l)
  [[ $unscaled -gt 0 ]] && unscaled_alarms=$((unscaled_alarms + 1))
  echo "comparison $c: 5 vs 5 exit $status (largest B/A $worst; $unscaled rows slower beyond" \
    "the noise and above 1.1), 1 vs 1 exit $single"
  [[ $status == 3 ]] && grep -E 'SLOWDOWN|^# [A-Z]' "$work/c$c.txt" | grep -B1 SLOWDOWN || true
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "false alarms, 5 vs 5 runs: $alarms of $comparisons comparisons"
echo "false alarms, 1 vs 1 run:  $single_alarms of $comparisons comparisons"
echo "false alarms, 5 vs 5 runs without the test against A x 1.1: $unscaled_alarms of $comparisons"
echo "wall time: $(( $(date +%s) - start )) s"
