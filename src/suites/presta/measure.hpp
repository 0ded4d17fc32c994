// How PRESTA's kernels are timed; the one place with MPI_Wtime.
//
// Pair tests (com, laten, rma): one time sample per point. The active ranks start together
// (MPI_Barrier on their communicator, outside the sample); each rank then times the kernel and,
// unless -n, PRESTA's butterfly barrier after it, so that the sample ends when the last pair is
// done. Rank 0 collects every active rank's sample; the figures come from the longest.
//
// Loop tests (allred, globalop): every rank times `iterations` x (operation, compute phase)
// after a butterfly barrier; the sample is the longest over the ranks (MPI_Reduce MPI_MAX).
//
// Accurate mode (--method accurate, docs/accurate-mode.md): the same kernels become the
// repetitions of core::AccurateMeter, which starts each one by its synchronisation (instead of
// the MPI_Barrier or butterfly barrier before a sample), times it, and repeats until the median
// is known. A pair test's repetition is the sample's kernel and, unless -n, the butterfly barrier
// after it, over the active ranks; a loop test's is one loop of `iterations` x (operation,
// compute phase) over MPI_COMM_WORLD.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <vector>

#include "core/accurate.hpp"
#include "core/mpi.hpp"
#include "suites/presta/kernels.hpp"
#include "suites/presta/pairing.hpp"

namespace mpiscope::presta {

// The ranks of one process count of a pair test, as this rank sees them.
struct PairStep {
  int processes = 0;
  std::vector<RankPair> pairs;
  std::vector<int> ranks;  // active world ranks, ascending
  bool active = false;
  int pair_index = -1;  // this rank's pair
  int partner = -1;
  bool initiator = false;  // the lower rank of its pair
  mpi::Comm active_comm;   // the active ranks (MPI_COMM_NULL elsewhere)
  // Accurate mode: the meter over active_comm, on the active ranks (null elsewhere and in
  // classic mode). Declared after active_comm, so destroyed before it.
  std::unique_ptr<core::AccurateMeter> meter;
};
// Collective over MPI_COMM_WORLD. `accurate`: the accurate mode's settings, or null (classic).
PairStep make_step(int processes, const Pairing& p,
                   const core::AccurateSettings* accurate = nullptr);

struct PairSample {
  std::vector<double> rank_s;  // rank 0 only: every active rank's sample, in `ranks` order
  double max_s = 0, min_s = 0, avg_s = 0;
};
// Collective over MPI_COMM_WORLD: rank 0 gets every active rank's duration.
PairSample collect_sample(const PairStep& step, double seconds);

template <class Kernel>
PairSample time_pair_sample(const PairStep& step, bool barrier, Kernel&& kernel) {
  double seconds = 0;
  if (step.active) {
    MPI_Barrier(step.active_comm.get());
    const double start = MPI_Wtime();
    kernel();
    if (barrier) butterfly_barrier(step.active_comm.get());
    seconds = MPI_Wtime() - start;
  }
  return collect_sample(step, seconds);
}

// Accurate mode: the point's repetitions, each the sample's kernel and, when `barrier`, the
// butterfly barrier after it. Collective over the active ranks; the others return nothing at
// once. The result is complete on world rank 0 (the lowest active rank of every step).
template <class Kernel>
std::optional<core::AccurateResult> measure_pair_accurately(const PairStep& step, bool barrier,
                                                            Kernel&& kernel) {
  if (!step.active) return std::nullopt;
  const MPI_Comm comm = step.active_comm.get();
  auto repetition = [&](int) {
    kernel();
    if (barrier) butterfly_barrier(comm);
  };
  return step.meter->measure(repetition);
}

// One point of a pair test by the run's method: PRESTA's sample (classic) or accurate mode's
// repetitions (`accurate`).
struct PairPoint {
  PairSample classic;
  std::optional<core::AccurateResult> accurate;
};
template <class Kernel>
PairPoint measure_pair_point(const PairStep& step, bool barrier, bool accurate, Kernel&& kernel) {
  PairPoint p;
  if (accurate)
    p.accurate = measure_pair_accurately(step, barrier, kernel);
  else
    p.classic = time_pair_sample(step, barrier, kernel);
  return p;
}

// Keeps the compute phase's result alive.
void keep(double value);

struct ComputePhase {
  int iterations = 0;  // 0: no compute phase
  const double* a = nullptr;
  const double* b = nullptr;
};

struct LoopSample {
  double max_s = 0, min_s = 0, avg_s = 0;  // over comm's ranks, at its rank 0 only
};
// Collective over comm: rank 0 gets the extremes and mean of the ranks' durations.
LoopSample collect_loop_sample(MPI_Comm comm, double seconds);

template <class Operation>
LoopSample time_loop_sample(MPI_Comm comm, int iterations, const ComputePhase& compute,
                            Operation&& operation) {
  butterfly_barrier(comm);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    operation();
    if (compute.iterations > 0) keep(compute_phase(compute.iterations, compute.a, compute.b));
  }
  return collect_loop_sample(comm, MPI_Wtime() - start);
}

// Accurate mode: one repetition is one loop of `iterations` x (operation, compute phase), run
// by every rank of the meter's communicator. Collective; the result is complete on its rank 0.
template <class Operation>
core::AccurateResult measure_loop_accurately(core::AccurateMeter& meter, int iterations,
                                             const ComputePhase& compute, Operation&& operation) {
  auto repetition = [&](int) {
    for (int i = 0; i < iterations; ++i) {
      operation();
      if (compute.iterations > 0) keep(compute_phase(compute.iterations, compute.a, compute.b));
    }
  };
  return meter.measure(repetition);
}

}  // namespace mpiscope::presta
