#include "suites/presta/kernels.hpp"

namespace mpiscope::presta {

namespace {
constexpr int kTag = 0;
constexpr int kBarrierTag = 1;
}  // namespace

void unidirectional(const PairSide& s, int ops) {
  if (s.initiator)
    for (int i = 0; i < ops; ++i)
      MPI_Send(s.send, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD);
  else
    for (int i = 0; i < ops; ++i)
      MPI_Recv(s.recv, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void bidirectional(const PairSide& s, int ops) {
  for (int i = 0; i < ops; ++i)
    MPI_Sendrecv(s.send, s.bytes, MPI_BYTE, s.partner, kTag, s.recv, s.bytes, MPI_BYTE, s.partner,
                 kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void ping_pong(const PairSide& s, int ops) {
  if (s.initiator)
    for (int i = 0; i < ops; ++i) {
      MPI_Send(s.send, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD);
      MPI_Recv(s.recv, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  else
    for (int i = 0; i < ops; ++i) {
      MPI_Recv(s.recv, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(s.send, s.bytes, MPI_BYTE, s.partner, kTag, MPI_COMM_WORLD);
    }
}

namespace {
// MPI_Put and MPI_Get differ in the constness of the origin only: one signature for both.
int put(std::byte* origin, int n, MPI_Aint disp, int target, MPI_Win w) {
  return MPI_Put(origin, n, MPI_BYTE, target, disp, n, MPI_BYTE, w);
}
int get(std::byte* origin, int n, MPI_Aint disp, int target, MPI_Win w) {
  return MPI_Get(origin, n, MPI_BYTE, target, disp, n, MPI_BYTE, w);
}
}  // namespace

void rma_epochs(const RmaSide& s, RmaOp op, int ops, int epochs) {
  auto* issue = op == RmaOp::kPut ? put : get;
  for (int e = 0; e < epochs; ++e) {
    MPI_Win_fence(0, s.window);
    if (s.initiates)
      for (int i = 0; i < ops; ++i) {
        const MPI_Aint offset = static_cast<MPI_Aint>(i) * s.bytes;
        issue(s.origin + offset, s.bytes, offset, s.target, s.window);
      }
    MPI_Win_fence(0, s.window);
  }
}

void butterfly_barrier(MPI_Comm comm) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (size < 2) return;
  int pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  const int extra = size - pof2;
  if (rank >= pof2) {  // folded in: report to the partner below, wait for its release
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, rank - pof2, kBarrierTag, nullptr, 0, MPI_BYTE, rank - pof2,
                 kBarrierTag, comm, MPI_STATUS_IGNORE);
    return;
  }
  if (rank < extra)
    MPI_Recv(nullptr, 0, MPI_BYTE, rank + pof2, kBarrierTag, comm, MPI_STATUS_IGNORE);
  for (int mask = 1; mask < pof2; mask <<= 1)
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, rank ^ mask, kBarrierTag, nullptr, 0, MPI_BYTE, rank ^ mask,
                 kBarrierTag, comm, MPI_STATUS_IGNORE);
  if (rank < extra) MPI_Send(nullptr, 0, MPI_BYTE, rank + pof2, kBarrierTag, comm);
}

double compute_phase(int iterations, const double* a, const double* b) {
  // a stays below 1 in magnitude (set by the callers), so c converges and never overflows.
  double c = 1.0;
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < 4; ++k) c = c * a[k] + b[k];
  return c;
}

}  // namespace mpiscope::presta
