#!/usr/bin/env bash
# mpiscope's IMB-MPI1 next to Intel's current IMB-MPI1 on the same machine, as a user would
# compare them (issue 14): the same benchmarks at their default lengths, launches interleaved
# (Intel then mpiscope, then mpiscope then Intel, ...) so that drift of the machine hits both
# alike. Prints, per benchmark and length, the median over launches of each tool's time, their
# ratio mpiscope / Intel (below 1: mpiscope measured less time), the median of the paired ratios
# (each mpiscope launch over the Intel launch next to it) and a sign test on the pairs: in how
# many pairs mpiscope measured less out of the pairs that differ (both print 2 decimals, so small
# times tie often), and the two-sided binomial p-value of that count if neither tool were faster
# (a small p: the difference is systematic, not noise). Times are compared, not Mbytes/sec:
# current IMB prints 10^6 bytes/s, mpiscope's IMB 3.1 tables 2^20 bytes/s. The time is t[usec]
# where a table has one, else t_max[usec] (IMB's headline figure for bandwidth).
#
#   bench/imb_side_by_side.sh INTEL_IMB_MPI1 [BUILD_DIR] [LAUNCHER] [LAUNCHES] [NP] [BENCHMARKS]
#                             [MPISCOPE_OPTIONS]
#   (defaults: build, mpirun.openmpi, 5, 2, "PingPong PingPing Sendrecv Exchange Allreduce Bcast",
#   none; "-root_shift off -sync on" times collectives as current IMB does by default)
#
# Intel's IMB-MPI1 must be built for the same MPI library; for Open MPI:
#   git clone https://github.com/intel/mpi-benchmarks && cd mpi-benchmarks &&
#   make CC=mpicc.openmpi CXX=mpicxx.openmpi CPPFLAGS=-DOMPI_SKIP_MPICXX=1 IMB-MPI1
set -euo pipefail
intel=${1:?usage: bench/imb_side_by_side.sh INTEL_IMB_MPI1 [BUILD_DIR] [LAUNCHER] [LAUNCHES] [NP] [BENCHMARKS]}
build=${2:-build}
launcher=${3:-mpirun.openmpi}
launches=${4:-5}
np=${5:-2}
benchmarks=${6:-PingPong PingPing Sendrecv Exchange Allreduce Bcast}
mpiscope_options=${7:-}
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"

# "tool benchmark bytes time launch" lines from one IMB-style output. Current IMB's
# Reduce_scatter gives every process X bytes of the result (a vector of np·X bytes); IMB 3.1's,
# mpiscope's, splits X among the processes. Intel's row X is therefore set beside mpiscope's row
# np·X: both reduce the same vector.
extract() {
  awk -v tool="$1" -v launch="$3" -v np="$np" '
    /^# Benchmarking / { name = $3; col = 0; scale = (tool == "intel" && name == "Reduce_scatter") ? np : 1; next }
    /#repetitions/ {
      for (i = 1; i <= NF; ++i) if ($i == "t[usec]") col = i
      if (!col) for (i = 1; i <= NF; ++i) if ($i == "t_max[usec]") col = i
      next
    }
    col && $1 ~ /^[0-9]+$/ && NF >= col && $col ~ /^[0-9.]+$/ { print tool, name, $1 * scale, $col, launch }
' "$2"
}

run_intel() {
  # shellcheck disable=SC2086
  timeout 900 "$launcher" $oversubscribe -np "$np" "$intel" $benchmarks > "$work/intel$l.txt" 2>&1
}
run_mpiscope() {
  # shellcheck disable=SC2086
  timeout 900 "$launcher" $oversubscribe -np "$np" "$build/bin/mpiscope" imb-mpi1 $benchmarks \
    $mpiscope_options --no-db > "$work/mpiscope$l.txt" 2>&1
}
for ((l = 1; l <= launches; ++l)); do
  # Each tool goes first in every other pair: neither gains from the order.
  if ((l % 2)); then run_intel && run_mpiscope; else run_mpiscope && run_intel; fi
  extract intel "$work/intel$l.txt" "$l" >> "$work/all.txt"
  extract mpiscope "$work/mpiscope$l.txt" "$l" >> "$work/all.txt"
done
bench_end
echo "Intel: $(grep -m1 -o 'Intel(R) MPI Benchmarks [^,]*' "$work/intel1.txt" || echo '?')," \
  "$launches interleaved launches of each at $np processes with $launcher"
grep -E '^# (Warm-up|Collectives)' "$work/mpiscope1.txt" || true
[[ " $benchmarks " == *" Reduce_scatter "* ]] &&
  echo "Reduce_scatter: Intel's X bytes per process shown at mpiscope's length np·X (IMB 3.1's X is the whole vector)"
printf '%-10s %9s %12s %14s %7s %7s %9s %7s\n' benchmark bytes "intel t[us]" "mpiscope t[us]" \
  ratio paired "faster" p
# Medians over launches per tool, benchmark and length; their ratio; the paired ratios and the
# sign test.
sort -k2,2 -k3,3n -k1,1 "$work/all.txt" | awk -v launches="$launches" "$MEDIAN_AWK"'
  # P(X <= k) + P(X >= n - k) for X ~ Binomial(n, 1/2), k <= n/2: two-sided sign test.
  function sign_p(k, n,   i, c, tail) {
    if (k > n - k) k = n - k
    c = 1; tail = 0
    for (i = 0; i <= k; ++i) { tail += c; c = c * (n - i) / (i + 1) }
    tail = 2 * tail / 2 ^ n
    return tail > 1 ? 1 : tail
  }
  {
    key = $2 " " $3; v[key, $1] = v[key, $1] " " $4; t[key, $1, $5] = $4
    if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  }
  END {
    worst = 0
    for (i = 1; i <= k; ++i) {
      key = order[i]; split(key, p, " ")
      if (!((key, "intel") in v) || !((key, "mpiscope") in v)) continue  # a length one tool lacks
      a = median(v[key, "intel"]); b = median(v[key, "mpiscope"])
      r = a > 0 ? b / a : 0
      if (r > worst) { worst = r; where = key }
      pairs = ""; n = 0; faster = 0; slower = 0
      for (l = 1; l <= launches; ++l) {
        if (!((key, "intel", l) in t) || !((key, "mpiscope", l) in t)) continue
        if (t[key, "intel", l] + 0 <= 0) continue
        pairs = pairs " " t[key, "mpiscope", l] / t[key, "intel", l]; ++n
        if (t[key, "mpiscope", l] + 0 < t[key, "intel", l] + 0) ++faster
        if (t[key, "mpiscope", l] + 0 > t[key, "intel", l] + 0) ++slower
      }
      printf "%-10s %9d %12.2f %14.2f %7.3f %7.3f %5d/%-3d %7.3f\n", p[1], p[2], a, b, r,
             n ? median(pairs) : 0, faster, faster + slower,
             faster + slower ? sign_p(faster, faster + slower) : 1
    }
    printf "largest ratio: %.3f (%s)\n", worst, where
  }'
