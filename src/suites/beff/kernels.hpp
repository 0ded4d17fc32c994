// b_eff's three communication methods (paper, sec. 4 "On communication methods"): one iteration
// of a pattern on one rank, written with MPI_Sendrecv, with one MPI_Alltoallv, and with
// MPI_Irecv/MPI_Isend/MPI_Waitall. The loop that times them is timed_loop below; what a pattern
// is (who sends to whom) is data from patterns.hpp.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/accurate.hpp"
#include "suites/beff/patterns.hpp"

namespace mpiscope::beff {

enum class Method { Sendrecv, Alltoallv, Nonblocking };
const char* method_name(Method m);   // "MPI_Sendrecv", "MPI_Alltoallv", "MPI_Irecv/Isend/Waitall"
const char* method_label(Method m);  // short column heading: "Sendrecv", "Alltoallv", "nonblk"

// One rank's part of a pattern at one message length. Step s sends from and receives into its
// own slot (s · slot_stride bytes into the buffers), so that the messages of one iteration never
// share memory. Prepared outside the timed region.
struct Transfer {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::vector<Step>* steps = nullptr;
  int bytes = 0;
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::size_t slot_stride = 0;
  // MPI_Alltoallv: per-rank counts and displacements (zero for ranks not in this rank's steps).
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  // Irecv/Isend: room for two requests per step.
  std::vector<MPI_Request> requests;

  std::byte* send_slot(std::size_t s) const { return send + s * slot_stride; }
  std::byte* recv_slot(std::size_t s) const { return recv + s * slot_stride; }
};

// Fills the Alltoallv vectors and the request array for `steps` at `bytes`.
void prepare_transfer(Transfer& t, int world_size);

// The steps one after the other; MPI_PROC_NULL stands for "no partner" on either side.
inline void sendrecv_iteration(Transfer& t) {
  const auto& steps = *t.steps;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const int dest = steps[s].dest == Step::kNone ? MPI_PROC_NULL : steps[s].dest;
    const int source = steps[s].source == Step::kNone ? MPI_PROC_NULL : steps[s].source;
    MPI_Sendrecv(t.send_slot(s), t.bytes, MPI_BYTE, dest, static_cast<int>(s), t.recv_slot(s),
                 t.bytes, MPI_BYTE, source, static_cast<int>(s), t.comm, MPI_STATUS_IGNORE);
  }
}

// Every step of the iteration in one collective call over all processes.
inline void alltoallv_iteration(Transfer& t) {
  MPI_Alltoallv(t.send, t.send_counts.data(), t.send_displs.data(), MPI_BYTE, t.recv,
                t.recv_counts.data(), t.recv_displs.data(), MPI_BYTE, t.comm);
}

// Every receive and send of the iteration started at once, then completed together.
inline void nonblocking_iteration(Transfer& t) {
  const auto& steps = *t.steps;
  int n = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].source != Step::kNone)
      MPI_Irecv(t.recv_slot(s), t.bytes, MPI_BYTE, steps[s].source, static_cast<int>(s), t.comm,
                &t.requests[static_cast<std::size_t>(n++)]);
    if (steps[s].dest != Step::kNone)
      MPI_Isend(t.send_slot(s), t.bytes, MPI_BYTE, steps[s].dest, static_cast<int>(s), t.comm,
                &t.requests[static_cast<std::size_t>(n++)]);
  }
  MPI_Waitall(n, t.requests.data(), MPI_STATUSES_IGNORE);
}

// The methodology, once for every method: optionally one untimed iteration (b_eff's pre-loop),
// a barrier over all processes, then `looplength` iterations between two MPI_Wtime calls.
// A template so that the iteration is inlined: nothing of the harness is timed.
template <void (*Iteration)(Transfer&)>
double timed_loop(Transfer& t, int looplength, bool warm_up) {
  if (warm_up) Iteration(t);
  MPI_Barrier(t.comm);
  const double start = MPI_Wtime();
  for (int i = 0; i < looplength; ++i) Iteration(t);
  return MPI_Wtime() - start;
}

// Seconds this rank spent in the loop of `method`.
double run_loop(Method method, Transfer& t, int looplength, bool warm_up);

// One untimed iteration of `method` (b_eff's pre-loop).
void run_iteration(Method method, Transfer& t);

// Accurate mode: the point of one pattern, length and method, one iteration per repetition,
// timed and repeated by the meter (over MPI_COMM_WORLD: every process takes part, those outside
// the pattern with no partner). Collective; the result is complete on rank 0.
core::AccurateResult measure_iterations(core::AccurateMeter& meter, Method method, Transfer& t);

}  // namespace mpiscope::beff
