// The reference for `mpiscope imb-p2p` PingPong and Stencil2D: IMB-P2P's loops written by hand
// with MPI alone, nothing of mpiscope in it. Per length every rank touches one byte of each
// 64-byte line of a send buffer before sending it and of a receive buffer after receiving it
// (IMB-P2P's -msgwr and -msgrd, both on by default); PingPong: rank r < P/2 sends to r + P/2 and
// waits for its answer; Stencil2D: on IMB's most even x × y grid (wrapping) the 4 neighbours
// x − 1, x + 1, y − 1, y + 1, each its own X bytes, 4 MPI_Irecv, 4 MPI_Isend, MPI_Waitall. A
// tenth of the repetitions (at least one) untimed, MPI_Barrier, then the timed loop on every
// rank; t = ΣT / M, the ranks' summed loop times over the messages they moved (IMB-P2P's
// t[usec]; PingPong's messages counted twice: half a round trip). bench/imb_p2p_side_by_side.sh
// launches it beside mpiscope.
//
//   mpirun -np P imb_p2p_hand_loop pingpong|stencil2d BYTES [BYTES...] [--iter N]
//
// Prints one line per length, "BYTES T" (T in microseconds, 4 decimals).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kLine = 64;
volatile unsigned touched = 0;  // what the reads add up to, so that they are not dropped

void touch_send(char* b, std::size_t offset, std::size_t bytes) {
  volatile char* p = b + offset;
  for (std::size_t i = 0; i < bytes; i += kLine) p[i] = p[i];
}
void touch_recv(const char* b, std::size_t offset, std::size_t bytes) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < bytes; i += kLine) sum += static_cast<unsigned char>(b[offset + i]);
  touched = touched + sum;
}

// IMB-P2P's 2-D grid: the most even sides of at least 2 whose product is P (empty: none).
std::vector<int> grid(int p) {
  int x = 2, y = 2;
  while (x * y < p) ++x, ++y;
  if (x * y > p) {
    while (y > 1 && p % y != 0) --y;
    x = p / y;
  }
  if (x < 2 || y < 2 || x * y != p) return {};
  return {x, y};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string pattern = argc >= 2 ? argv[1] : "";
  std::vector<std::size_t> lengths;
  int iterations = 10000;
  for (int a = 2; a < argc; ++a) {
    if (std::strcmp(argv[a], "--iter") == 0 && a + 1 < argc)
      iterations = std::atoi(argv[++a]);
    else
      lengths.push_back(std::strtoull(argv[a], nullptr, 10));
  }
  const bool stencil = pattern == "stencil2d";
  const auto sides = grid(size);
  if ((pattern != "pingpong" && !stencil) || lengths.empty() || iterations < 1 ||
      (stencil && sides.empty()) || (!stencil && (size < 2 || size % 2 != 0))) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np P %s pingpong|stencil2d BYTES... [--iter N] (pingpong: P "
                   "even; stencil2d: P = x*y, x, y >= 2)\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  std::vector<int> around;
  if (stencil) {
    const int lx = sides[0], ly = sides[1], x = rank % lx, y = rank / lx;
    const auto at = [&](int i, int j) { return lx * ((j + ly) % ly) + (i + lx) % lx; };
    around = {at(x - 1, y), at(x + 1, y), at(x, y - 1), at(x, y + 1)};
  }
  const int half = size / 2, partner = (rank + half) % size;
  for (const std::size_t bytes : lengths) {
    const std::size_t slots = stencil ? around.size() : 1;
    // Page-aligned, filled before timing, as mpiscope's and Intel's buffers are.
    const std::size_t length = (slots * bytes / 4096 + 1) * 4096;
    char* send = static_cast<char*>(std::aligned_alloc(4096, length));
    char* recv = static_cast<char*>(std::aligned_alloc(4096, length));
    std::memset(send, 'a', length);
    std::memset(recv, 'b', length);
    const int count = static_cast<int>(bytes);
    const auto repetition = [&] {
      if (!stencil) {
        if (rank < half) {
          touch_send(send, 0, bytes);
          MPI_Send(send, count, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
          MPI_Recv(recv, count, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          touch_recv(recv, 0, bytes);
        } else {
          MPI_Recv(recv, count, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          touch_recv(recv, 0, bytes);
          touch_send(send, 0, bytes);
          MPI_Send(send, count, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
        }
        return;
      }
      MPI_Request requests[8];
      for (std::size_t k = 0; k < 4; ++k) touch_send(send, k * bytes, bytes);
      for (std::size_t k = 0; k < 4; ++k)
        MPI_Irecv(recv + k * bytes, count, MPI_BYTE, around[k], 0, MPI_COMM_WORLD, &requests[k]);
      for (std::size_t k = 0; k < 4; ++k)
        MPI_Isend(send + k * bytes, count, MPI_BYTE, around[k], 0, MPI_COMM_WORLD,
                  &requests[4 + k]);
      MPI_Waitall(8, requests, MPI_STATUSES_IGNORE);
      for (std::size_t k = 0; k < 4; ++k) touch_recv(recv, k * bytes, bytes);
    };
    for (int i = 0; i < std::max(1, iterations / 10); ++i) repetition();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) repetition();
    const double mine = MPI_Wtime() - start;
    double total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    // Messages: Stencil2D 4 per rank and repetition; PingPong P (P/2 pairs, both ways), counted
    // twice as IMB-P2P does (its t is half a round trip: aggregate time / (2 n P)).
    const double messages = static_cast<double>(iterations) * size * (stencil ? 4 : 2);
    if (rank == 0) std::printf("%zu %.4f\n", bytes, total * 1e6 / messages);
    std::free(send);
    std::free(recv);
  }
  MPI_Finalize();
  return 0;
}
