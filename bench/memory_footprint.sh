#!/usr/bin/env bash
# memory_footprint.sh: peak resident memory of every rank of an `mpiscope imb-mpi1` run, next to
# the message-buffer demand of the IMB guide's memory table (guide 7.1, standard mode, per
# process): Alltoall Q x 8 MB, Allgather(v) (Q+1) x 4 MB, Exchange 12 MB, every other IMB-MPI1
# benchmark 8 MB (Q = number of processes; the largest message is 4 MB).
#
# Each rank runs under GNU time (/usr/bin/time -f %M: the rank's maximum resident set size). A
# baseline run of Barrier alone (no message buffers) gives what MPI and the program hold anyway;
# peak - baseline is what the benchmarks added.
#
# Usage: bench/memory_footprint.sh [options] [-- mpiscope imb-mpi1 arguments]
#   --build DIR       build directory holding bin/mpiscope (default: $BUILD_DIR or build)
#   --launcher CMD    MPI launcher, word-split (default: $LAUNCHER or
#                     "mpirun.openmpi --oversubscribe")
#   --np N            number of processes (default: $NP or 2)
#   --each            one run per benchmark (every IMB-MPI1 benchmark, or those given after --)
#                     instead of one run of the whole selection
#   --no-baseline     skip the Barrier-only baseline run
#   --keep DIR        keep the logs in DIR (default: a temporary directory, removed at the end)
#   --env VAR=VALUE   set VAR in every rank's environment (repeatable), e.g.
#                     --env MALLOC_MMAP_THRESHOLD_=131072 to see glibc's share of the peak
# Arguments after -- go to `mpiscope imb-mpi1` (a benchmark selection such as "Alltoall,Bcast",
# -msglen FILE, -iter ...). With --each, the names given after -- are run one at a time and any
# other argument is passed to each run.
#
# Examples:
#   bench/memory_footprint.sh                              # the default run, as a user would
#   bench/memory_footprint.sh --each                       # 17 runs, one per benchmark
#   bench/memory_footprint.sh -- Alltoall                  # one benchmark
#   LAUNCHER=mpirun.mpich bench/memory_footprint.sh --build build-mpich   # a build against MPICH
set -euo pipefail

# Internal mode: the wrapper every rank runs,
# `memory_footprint.sh --rank-wrapper DIR TAG [VAR=VALUE...] -- prog...`.
if [[ "${1:-}" == "--rank-wrapper" ]]; then
  dir=$2 tag=$3
  shift 3
  while [[ "$1" != "--" ]]; do export "${1?}"; shift; done
  shift
  rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-$$}}}
  exec /usr/bin/time -o "$dir/$tag.rank$rank" -f "%M %e" -- "$@"
fi

BUILD_DIR=${BUILD_DIR:-build}
LAUNCHER=${LAUNCHER:-mpirun.openmpi --oversubscribe}
NP=${NP:-2}
each=0 baseline=1 keep="" rank_env=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD_DIR=$2; shift 2 ;;
    --launcher) LAUNCHER=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --each) each=1; shift ;;
    --no-baseline) baseline=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    --env) [[ "$2" == *=* ]] || { echo "memory_footprint.sh: --env takes VAR=VALUE" >&2; exit 2; }
      rank_env+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "memory_footprint.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
extra=("$@")

prog=$BUILD_DIR/bin/mpiscope
[[ -x "$prog" ]] || { echo "memory_footprint.sh: no $prog; build first or pass --build DIR" >&2; exit 2; }
if [[ ! -x /usr/bin/time ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get > /dev/null; then
    echo "# installing GNU time (apt-get install time)" >&2
    apt-get update -qq > /dev/null && apt-get install -y -qq time > /dev/null
  fi
  [[ -x /usr/bin/time ]] || { echo "memory_footprint.sh: needs GNU time: apt-get update && apt-get install -y time" >&2; exit 2; }
fi
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

if [[ -n "$keep" ]]; then
  mkdir -p "$keep"; out=$(cd "$keep" && pwd)
else
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fi
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

all_benchmarks=(PingPong PingPing Sendrecv Exchange Allreduce Reduce Reduce_scatter Allgather
  Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv Bcast Barrier)

# The guide's message-buffer demand in MB at Q processes (7.1, standard mode).
guide_mb() {
  case "${1,,}" in
    alltoall) echo $((NP * 8)) ;;
    allgather|allgatherv) echo $(((NP + 1) * 4)) ;;
    exchange) echo 12 ;;
    barrier) echo 0 ;;
    *) echo 8 ;;
  esac
}
# What mpiscope's own buffer shapes allocate at X = 4 MB (send + receive; src/suites/imb/mpi1).
shape_mb() {
  case "${1,,}" in
    alltoall|alltoallv) echo $((NP * 8)) ;;
    allgather|allgatherv|gather|gatherv|scatter|scatterv) echo $(((NP + 1) * 4)) ;;
    exchange) echo 12 ;;
    barrier) echo 0 ;;
    *) echo 8 ;;
  esac
}

# run TAG ARGS...: one mpiscope run, every rank under GNU time; sets peaks_kb to the per-rank
# peaks in KB.
# --no-db: a measurement of mpiscope itself is no result for the user's database.
run() {
  local tag=$1; shift
  # shellcheck disable=SC2086 # the launcher is a command line
  if ! $LAUNCHER -np "$NP" "$self" --rank-wrapper "$out" "$tag" "${rank_env[@]+"${rank_env[@]}"}" -- \
      "$prog" imb-mpi1 "$@" --no-db \
      > "$out/$tag.log" 2>&1; then
    echo "memory_footprint.sh: run '$tag' failed; its output:" >&2
    tail -20 "$out/$tag.log" >&2
    exit 1
  fi
  local r
  peaks_kb=()
  for ((r = 0; r < NP; r++)); do
    [[ -f "$out/$tag.rank$r" ]] || { echo "memory_footprint.sh: no GNU time report for rank $r" >&2; exit 1; }
    # GNU time's last line is "%M %e"; earlier lines may say "Command exited with non-zero status".
    peaks_kb+=("$(tail -1 "$out/$tag.rank$r" | cut -d' ' -f1)")
  done
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "# memory_footprint: $(date -u '+%Y-%m-%d %H:%M UTC'), $NP processes, launcher: $LAUNCHER"
echo "# program: $prog ($("$prog" --version 2>/dev/null | head -1))"
echo "# peak = maximum resident set size of the rank (GNU time %M), MB = 2^20 bytes"
[[ ${#rank_env[@]} -gt 0 ]] && echo "# rank environment: ${rank_env[*]}"

declare -a base_kb
if [[ $baseline == 1 ]]; then
  run baseline Barrier
  base_kb=("${peaks_kb[@]}")
  echo "# baseline (Barrier only, no message buffers): $(for k in "${base_kb[@]}"; do printf '%s MB  ' "$(mb "$k")"; done)"
fi

# Benchmarks named in the arguments (for the expectation), and the other arguments.
selected=() options=()
takes_value=" -npmin -multi -off_cache -iter -time -mem -msglen -map -input --json --csv --timeout "
for ((i = 0; i < ${#extra[@]}; i++)); do
  a=${extra[$i]}
  if [[ "$a" == -* ]]; then
    options+=("$a")
    if [[ "$takes_value" == *" $a "* && $((i + 1)) -lt ${#extra[@]} ]]; then
      i=$((i + 1)); options+=("${extra[$i]}")
    fi
  else
    IFS=, read -ra names <<< "$a"
    for n in "${names[@]}"; do [[ -n "$n" ]] && selected+=("$n"); done
  fi
done

report_header() {
  printf '%-16s %4s %10s %10s %14s %12s %12s\n' benchmark rank peak_MB base_MB peak-base_MB \
    guide_MB shape_MB
}
report() {  # NAME EXPECT_GUIDE EXPECT_SHAPE KB...
  local name=$1 guide=$2 shape=$3; shift 3
  local r=0 k
  for k in "$@"; do
    local base=${base_kb[$r]:-0}
    printf '%-16s %4d %10s %10s %14s %12s %12s\n' "$name" "$r" "$(mb "$k")" \
      "$([[ $baseline == 1 ]] && mb "$base" || echo -)" \
      "$([[ $baseline == 1 ]] && mb $((k - base)) || echo -)" "$guide" "$shape"
    r=$((r + 1))
  done
}

if [[ $each == 1 ]]; then
  list=("${selected[@]+"${selected[@]}"}")
  [[ ${#list[@]} -gt 0 ]] || list=("${all_benchmarks[@]}")
  report_header
  for b in "${list[@]}"; do
    run "each-$b" "${options[@]+"${options[@]}"}" "$b"
    report "$b" "$(guide_mb "$b")" "$(shape_mb "$b")" "${peaks_kb[@]}"
  done
else
  list=("${selected[@]+"${selected[@]}"}")
  [[ ${#list[@]} -gt 0 ]] || list=("${all_benchmarks[@]}")
  guide=0 shape=0 worst=""
  for b in "${list[@]}"; do
    g=$(guide_mb "$b") s=$(shape_mb "$b")
    if ((g > guide)); then guide=$g worst=$b; fi
    if ((s > shape)); then shape=$s; fi
  done
  start=$(date +%s)
  run whole "${extra[@]+"${extra[@]}"}"
  echo "# one run of: $prog imb-mpi1 ${extra[*]+"${extra[*]}"} ($(($(date +%s) - start)) s)"
  echo "# expectation = the largest demand of the selection ($worst in the guide's table)"
  report_header
  report "${#list[@]} benchmarks" "$guide" "$shape" "${peaks_kb[@]}"
fi
[[ -n "$keep" ]] && echo "# logs and GNU time reports in $out"
exit 0
