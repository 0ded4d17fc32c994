// The reference for `mpiscope osu osu_latency` and `osu_bw` (issue 18): the two loops written by
// hand, as plainly as a person would, with OSU 7's iteration counts, skips and formulas, and
// nothing of mpiscope in them. bench/osu_side_by_side.sh launches this program, mpiscope's and
// (when given) OSU's own binaries in turn and compares what they print.
//
//   mpirun -np 2 osu_hand_loops latency|bw BYTES [BYTES...] [--window W]
//
// Prints one line per length, "BYTES VALUE": latency in microseconds (half the round trip), or
// bandwidth in MB/s (10^6 bytes per second) as OSU prints them.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kLargeMessage = 8192;  // OSU's LARGE_MESSAGE_SIZE

// Rank 0 sends, rank 1 returns the message; latency = elapsed / (2 · iterations). A send and a
// receive buffer, as OSU has (one buffer both ways stays in cache at 4 MiB: 1.3 times faster).
double latency_us(std::vector<char>& send, std::vector<char>& recv, std::size_t bytes, int rank) {
  const bool large = bytes > kLargeMessage;
  const int iterations = large ? 1000 : 10000, skip = large ? 10 : 100;
  const int count = static_cast<int>(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    if (i == skip) start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(send.data(), count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(recv.data(), count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv.data(), count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send.data(), count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) * 1e6 / (2.0 * iterations);
}

// Rank 0 posts a window of sends, rank 1 a window of receives into the same buffer; rank 1's
// one-byte reply closes each iteration. Bandwidth = bytes · window · iterations / elapsed.
double bandwidth_mbs(std::vector<char>& send, std::vector<char>& recv, std::size_t bytes,
                     int window, int rank) {
  const bool large = bytes > kLargeMessage;
  const int iterations = large ? 20 : 100, skip = large ? 2 : 10;
  const int count = static_cast<int>(bytes);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(window));
  MPI_Barrier(MPI_COMM_WORLD);
  double start = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    if (i == skip) start = MPI_Wtime();
    if (rank == 0) {
      for (auto& r : requests) MPI_Isend(send.data(), count, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Recv(recv.data(), 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (auto& r : requests) MPI_Irecv(recv.data(), count, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Send(send.data(), 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  return static_cast<double>(bytes) / 1e6 * window * iterations / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int window = 64;
  std::vector<std::size_t> lengths;
  const bool ok_mode =
      argc >= 3 && (std::strcmp(argv[1], "latency") == 0 || std::strcmp(argv[1], "bw") == 0);
  for (int a = 2; ok_mode && a < argc; ++a) {
    if (std::strcmp(argv[a], "--window") == 0 && a + 1 < argc)
      window = std::atoi(argv[++a]);
    else
      lengths.push_back(std::strtoull(argv[a], nullptr, 10));
  }
  if (!ok_mode || size != 2 || lengths.empty() || window < 1) {
    if (rank == 0)
      std::fprintf(stderr, "usage: mpirun -np 2 %s latency|bw BYTES... [--window W]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const bool latency = std::strcmp(argv[1], "latency") == 0;
  for (std::size_t bytes : lengths) {
    // One buffer per direction, touched before timing, as OSU allocates and fills its own.
    std::vector<char> send(bytes > 0 ? bytes : 1, 'a'), recv(bytes > 0 ? bytes : 1, 'b');
    const double value = latency ? latency_us(send, recv, bytes, rank)
                                 : bandwidth_mbs(send, recv, bytes, window, rank);
    if (rank == 0) std::printf("%zu %.2f\n", bytes, value);
  }
  MPI_Finalize();
  return 0;
}
