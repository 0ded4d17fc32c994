// PRESTA's kernels: the MPI calls each test times, and nothing else. The methodology that times
// them (synchronisation, the barrier inside the sample, the maximum over ranks) is in measure.cpp.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace mpiscope::presta {

// One side of a communicating pair in MPI_COMM_WORLD.
struct PairSide {
  int partner = -1;
  bool initiator = false;  // the lower rank of the pair: sends first / issues the RMA operations
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
  int bytes = 0;
};

// com, unidirectional: the initiator sends `ops` messages with MPI_Send, its partner receives
// them with MPI_Recv.
void unidirectional(const PairSide& s, int ops);
// com, bidirectional: both sides exchange `ops` messages with MPI_Sendrecv.
void bidirectional(const PairSide& s, int ops);
// laten: `ops` round trips of MPI_Send/MPI_Recv (the initiator sends first).
void ping_pong(const PairSide& s, int ops);

// rma: `epochs` fence epochs on the pair's window; in each, an initiating side issues `ops`
// MPI_Put (or MPI_Get) of `bytes` each, operation i at displacement i x bytes of the partner's
// window (so an epoch touches ops x bytes of distinct memory on both sides).
enum class RmaOp { kPut, kGet };
struct RmaSide {
  MPI_Win window = MPI_WIN_NULL;
  int target = -1;              // the partner's rank in the pair's communicator
  bool initiates = false;       // unidirectional: the lower rank only; bidirectional: both
  std::byte* origin = nullptr;  // ops x bytes
  int bytes = 0;
};
void rma_epochs(const RmaSide& s, RmaOp op, int ops, int epochs);

// PRESTA's barrier inside every time sample of com, laten and rma: a butterfly (recursive
// doubling) of zero-byte messages, with the ranks beyond the largest power of two folded in
// first, so that it costs the same on every MPI library.
void butterfly_barrier(MPI_Comm comm);

// The simulated compute phase of allred and globalop: `iterations` dependent multiply-adds over
// the 4 doubles of the Allreduce buffers (the result feeds a sink, so it cannot be dropped).
double compute_phase(int iterations, const double* a, const double* b);

}  // namespace mpiscope::presta
