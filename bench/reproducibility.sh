#!/usr/bin/env bash
# Five separate launches of PingPong (0 B, 4 MiB) and Allreduce (4 B, 1 MiB) at 2 processes, in
# IMB mode and in accurate mode. For each point and mode: the five results, their max/min ratio
# (the run-to-run spread a user sees), and the wall time of the five launches.
#   bench/reproducibility.sh [BUILD_DIR] [LAUNCHER]      (defaults: build, mpirun.openmpi)
#   ACCURATE_ARGS="--budget 0.2 --target-ci 5" bench/reproducibility.sh   (accurate mode's options)
# The result of a launch is t_max (PingPong: t) in IMB mode and the median in accurate mode.
set -euo pipefail
build=${1:-build}
launcher=${2:-mpirun.openmpi}
# shellcheck source=bench/side_by_side.bash
source "$(dirname "$0")/side_by_side.bash"
bench_start "$launcher"
printf '0\n4194304\n' > "$work/pingpong"
printf '4\n1048576\n' > "$work/allreduce"

for mode in imb accurate; do
  extra=()
  if [[ $mode == accurate && -n ${ACCURATE_ARGS:-} ]]; then read -ra extra <<< "$ACCURATE_ARGS"; fi
  start=$(date +%s.%N)
  for launch in 1 2 3 4 5; do
    for bench in PingPong Allreduce; do
      lengths=$work/pingpong
      [[ $bench == Allreduce ]] && lengths=$work/allreduce
      timeout 600 "$launcher" $oversubscribe -np 2 "$build/bin/mpiscope" imb-mpi1 "$bench" \
        -msglen "$lengths" --method "$mode" ${extra[@]+"${extra[@]}"} --no-db --json "$work/$mode-$bench-$launch.json" > /dev/null
    done
  done
  end=$(date +%s.%N)
  echo "$mode $(echo "$end - $start" | bc)" >> "$work/wall"
done

bench_end
python3 - "$work" <<'PY'
import json, sys, glob, os
work = sys.argv[1]
wall = dict(line.split() for line in open(os.path.join(work, "wall")))
print(f"{'benchmark':<10} {'bytes':>8} {'mode':<9} {'max/min':>8}  results [usec]")
notes = []
for bench in ("PingPong", "Allreduce"):
    for mode in ("imb", "accurate"):
        values = {}
        for launch in range(1, 6):
            doc = json.load(open(os.path.join(work, f"{mode}-{bench}-{launch}.json")))
            for row in doc["benchmarks"][0]["rows"]:
                t = row["accurate"]["median_us"] if mode == "accurate" else row["t_max_us"]
                values.setdefault(row["bytes"], []).append(t)
                a = row.get("accurate")
                if a:
                    what = [f"{a['valid']} samples of {a['repetitions_per_sample']}",
                            a["sync"], a["stop_reason"],
                            f"ci95 +-{100 * a['ci_relative_half_width']:.1f}%"]
                    if a["fell_back"]: what.append("window sync fell back")
                    if a["level_shift"]:
                        what.append(f"level shift {a['first_half_median_us']:.2f} -> "
                                    f"{a['second_half_median_us']:.2f}")
                    notes.append(f"  {bench} {row['bytes']} launch {launch}: " + ", ".join(what))
        for size, ts in values.items():
            print(f"{bench:<10} {size:>8} {mode:<9} {max(ts)/min(ts):>8.3f}  "
                  + " ".join(f"{t:.2f}" for t in ts))
for mode in ("imb", "accurate"):
    print(f"wall time of the 10 launches, {mode} mode: {float(wall[mode]):.1f} s")
print("accurate mode, per launch:")
print("\n".join(notes))
PY
