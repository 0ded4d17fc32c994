// One repetition of IMB-MPI1's two-process benchmarks written by hand with MPI alone, as a careful
// engineer would: the reference loops of pingpong_overhead and peer_pingpong. Ranks 0 and 1 of
// MPI_COMM_WORLD; inline, so that a loop around one adds nothing but its own calls.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace bench {

// PingPong: rank 0 sends and waits for the answer, rank 1 answers (IMB 3.1 guide 3.3.1).
inline void pingpong_repetition(std::byte* send, std::byte* recv, int count, int rank) {
  if (rank == 0) {
    MPI_Send(send, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(recv, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(recv, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(send, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }
}

// PingPing: both send at once, non-blocking, then receive (guide 3.3.2).
inline void pingping_repetition(std::byte* send, std::byte* recv, int count, int rank) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Isend(send, count, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &request);
  MPI_Recv(recv, count, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

// Sendrecv on two processes: each one's left and right neighbour is the other (guide 3.3.3).
inline void sendrecv_repetition(std::byte* send, std::byte* recv, int count, int rank) {
  MPI_Sendrecv(send, count, MPI_BYTE, 1 - rank, 1, recv, count, MPI_BYTE, 1 - rank, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

using Repetition = void (*)(std::byte* send, std::byte* recv, int count, int rank);

}  // namespace bench
