# shellcheck shell=bash
# What the bench scripts share; sourced, not run:
#   source "$(dirname "$0")/side_by_side.bash"
#
# bench_start LAUNCHER: lets Open MPI run as root, keeps the launcher for launch and sets
# $oversubscribe for it, makes $work (removed at exit, after BENCH_AT_EXIT if set), prints the
# load average and starts the clock that bench_end reads.
# shellcheck disable=SC2034
bench_start() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  bench_launcher=$1
  oversubscribe=""
  [[ $1 == *openmpi* ]] && oversubscribe=--oversubscribe
  work=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "${BENCH_AT_EXIT:-:}; rm -rf '$work'" EXIT
  bench_started=$(date +%s)
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
}

bench_end() {
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg) ($(($(date +%s) - bench_started)) s)"
}

# interleave ROUNDS "TOOL..." FUNCTION ITEM...: per round and item, FUNCTION TOOL ITEM's words for
# every tool; in round r the tools take turns starting with the (r mod n)-th, so that each goes
# first as often as the others and drift of the machine hits all alike.
interleave() {
  local rounds=$1 fn=$3 item r k
  local -a turns
  read -r -a turns <<< "$2"
  shift 3
  local n=${#turns[@]}
  for ((r = 0; r < rounds; ++r)); do
    for item in "$@"; do
      # shellcheck disable=SC2086
      for ((k = 0; k < n; ++k)); do "$fn" "${turns[(r + k) % n]}" $item; done
    done
  done
}

# An awk function, median(s), of a space-separated list of numbers ("" when it is empty); put it
# before the program: awk "$MEDIAN_AWK"' { ... }'.
# shellcheck disable=SC2034
MEDIAN_AWK='
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    if (n == 0) return ""
    for (i = 2; i <= n; ++i) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; --j) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }'

# An awk function, paired_median(key, tool), for launches recorded in round order: with
# `record(key, tool, value)` called on each line, the median over rounds of tool's value over
# "hand"'s in the same round (which leaves out the machine's drift from round to round), to 3
# decimals, "-" without pairs; latency-like figures (time: tool / hand). Needs MEDIAN_AWK before
# it: awk "$MEDIAN_AWK$PAIRED_AWK"' { record(...) } END { ... }'.
# shellcheck disable=SC2034
PAIRED_AWK='
  function record(key, tool, value) { t[key, tool, ++rounds[key, tool]] = value }
  function paired_median(key, tool,   k, r, m) {
    r = ""
    for (k = 1; k <= rounds[key, "hand"] && k <= rounds[key, tool]; ++k)
      if (t[key, "hand", k] > 0 && t[key, tool, k] > 0) r = r " " t[key, tool, k] / t[key, "hand", k]
    m = median(r)
    return m == "" ? "-" : sprintf("%.3f", m)
  }'

# json_t_avg FILE: the t_avg of the first row of mpiscope's --json FILE, to the nanosecond (its
# text rounds to two decimals).
json_t_avg() {
  python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["benchmarks"][0]["rows"][0]["t_avg_us"])' "$1"
}

# line_value BYTES FILE: the value of the hand-written loops' "BYTES VALUE" line for BYTES.
line_value() {
  awk -v n="$1" '$1 == n && NF == 2 { print $2 }' "$2"
}

# append_figure WORD... VALUE: one line of $work/all.txt; a launch whose figure was not found
# (VALUE empty) stops the bench, showing its output ($work/out.txt), rather than count as 0.
append_figure() {
  if [[ -z ${*: -1} ]]; then
    echo "no figure found for: ${*:1:$#-1}" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi
  echo "$*" >> "$work/all.txt"
}

# launch NP OUT CMD...: CMD on NP ranks through bench_start's launcher, its output in OUT; a
# launch that fails stops the bench, showing its output.
launch() {
  local np=$1 out=$2
  shift 2
  # shellcheck disable=SC2086  # $oversubscribe is empty for MPICH
  if ! timeout 300 "$bench_launcher" $oversubscribe -np "$np" "$@" > "$out" 2>&1; then
    echo "failed: $*" >&2
    cat "$out" >&2
    exit 1
  fi
}
