// The reference for `mpiscope osu osu_latency` and `osu_bw` (issue 18): the two loops written by
// hand, as plainly as a person would, with OSU 7's iteration counts, skips and formulas, and
// nothing of mpiscope in them. bench/osu_side_by_side.sh launches this program, mpiscope's and
// (when given) OSU's own binaries in turn and compares what they print.
//
//   mpirun -np 2 osu_hand_loops latency|bw|latency_mt BYTES [BYTES...] [--window W]
//                                                            [--threads [S:]R]
//
// Prints one line per length, "BYTES VALUE": latency in microseconds (half the round trip), or
// bandwidth in MB/s (10^6 bytes per second) as OSU prints them.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kLargeMessage = 8192;  // OSU's LARGE_MESSAGE_SIZE

// Rank 0 sends, rank 1 returns the message; latency = the timed iterations' sum / (2 ·
// iterations). A send and a receive buffer, as OSU has (one buffer both ways stays in cache at
// 4 MiB: 1.3 times faster).
double latency_us(char* send, char* recv, std::size_t bytes, int rank) {
  const bool large = bytes > kLargeMessage;
  const int iterations = large ? 1000 : 10000, skip = large ? 10 : 100;
  const int count = static_cast<int>(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double total = 0;  // OSU 7: each timed iteration between two MPI_Wtime reads, summed
  for (int i = 0; i < iterations + skip; ++i) {
    const double start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(send, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(recv, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
    if (i >= skip) total += MPI_Wtime() - start;
  }
  return total * 1e6 / (2.0 * iterations);
}

// Rank 0 posts a window of sends, rank 1 a window of receives into the same buffer; rank 1's
// one-byte reply closes each iteration. Bandwidth = bytes · window · iterations / the timed
// iterations' sum.
double bandwidth_mbs(char* send, char* recv, std::size_t bytes, int window, int rank) {
  const bool large = bytes > kLargeMessage;
  const int iterations = large ? 20 : 100, skip = large ? 2 : 10;
  const int count = static_cast<int>(bytes);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(window));
  MPI_Barrier(MPI_COMM_WORLD);
  double total = 0;  // OSU 7: each timed iteration between two MPI_Wtime reads, summed
  for (int i = 0; i < iterations + skip; ++i) {
    const double start = MPI_Wtime();
    if (rank == 0) {
      for (auto& r : requests) MPI_Isend(send, count, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Recv(recv, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (auto& r : requests) MPI_Irecv(recv, count, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Send(send, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
    if (i >= skip) total += MPI_Wtime() - start;
  }
  return static_cast<double>(bytes) / 1e6 * window * iterations / total;
}

// osu_latency_mt's loop (issue 34 item 9): rank 0's S threads and rank 1's R threads share the
// iterations round robin, each thread with buffers of its own; tags 1 out and 2 back with one
// sender, the iteration number with more. Each sender thread sums its own timed round trips;
// latency = their sum / (2 · iterations), OSU's figure for one sender.
double latency_mt_us(std::size_t bytes, int rank, int senders, int receivers) {
  const bool large = bytes > kLargeMessage;
  const int iterations = large ? 1000 : 10000, skip = large ? 10 : 100;
  const int count = static_cast<int>(bytes);
  const int threads = rank == 0 ? senders : receivers;
  std::vector<double> sums(static_cast<std::size_t>(threads), 0.0);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      // Page-aligned buffers of the thread's own, filled, as OSU's allocate_memory_pt2pt.
      const std::size_t length = (bytes / 4096 + 1) * 4096;
      char* send = static_cast<char*>(std::aligned_alloc(4096, length));
      char* recv = static_cast<char*>(std::aligned_alloc(4096, length));
      std::memset(send, 'a', length);
      std::memset(recv, 'b', length);
      double sum = 0;
      for (int i = t; i < iterations + skip; i += threads) {
        const int out = senders > 1 ? i : 1, back = senders > 1 ? i : 2;
        if (rank == 0) {  // only the senders time, as OSU's
          const double start = MPI_Wtime();
          MPI_Send(send, count, MPI_CHAR, 1, out, MPI_COMM_WORLD);
          MPI_Recv(recv, count, MPI_CHAR, 1, back, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (i >= skip) sum += MPI_Wtime() - start;
        } else {
          MPI_Recv(recv, count, MPI_CHAR, 0, out, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(send, count, MPI_CHAR, 0, back, MPI_COMM_WORLD);
        }
      }
      sums[static_cast<std::size_t>(t)] = sum;
      std::free(send);
      std::free(recv);
    });
  for (auto& thread : pool) thread.join();
  return std::accumulate(sums.begin(), sums.end(), 0.0) * 1e6 / (2.0 * iterations);
}

}  // namespace

int main(int argc, char** argv) {
  const bool threaded = argc >= 2 && std::strcmp(argv[1], "latency_mt") == 0;
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int window = 64, senders = 1, receivers = 2;
  std::vector<std::size_t> lengths;
  const bool ok_mode = argc >= 3 && (std::strcmp(argv[1], "latency") == 0 ||
                                     std::strcmp(argv[1], "bw") == 0 || threaded);
  for (int a = 2; ok_mode && a < argc; ++a) {
    if (std::strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
      window = std::atoi(argv[++a]);
    } else if (std::strcmp(argv[a], "--threads") == 0 && a + 1 < argc) {
      const std::string t = argv[++a];
      const auto colon = t.find(':');
      if (colon != std::string::npos) senders = std::atoi(t.substr(0, colon).c_str());
      receivers = std::atoi(t.substr(colon == std::string::npos ? 0 : colon + 1).c_str());
    } else {
      lengths.push_back(std::strtoull(argv[a], nullptr, 10));
    }
  }
  if (!ok_mode || size != 2 || lengths.empty() || window < 1 || senders < 1 || receivers < 1 ||
      (threaded && provided < MPI_THREAD_MULTIPLE)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np 2 %s latency|bw|latency_mt BYTES... [--window W] "
                   "[--threads [S:]R] (latency_mt needs MPI_THREAD_MULTIPLE)\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  const bool latency = std::strcmp(argv[1], "latency") == 0;
  for (std::size_t bytes : lengths) {
    // One page-aligned buffer per direction, filled before timing, as OSU allocates and fills
    // its own (allocate_memory_pt2pt).
    const std::size_t length = (bytes / 4096 + 1) * 4096;
    char* send = static_cast<char*>(std::aligned_alloc(4096, length));
    char* recv = static_cast<char*>(std::aligned_alloc(4096, length));
    std::memset(send, 'a', length);
    std::memset(recv, 'b', length);
    const double value = threaded  ? latency_mt_us(bytes, rank, senders, receivers)
                         : latency ? latency_us(send, recv, bytes, rank)
                                   : bandwidth_mbs(send, recv, bytes, window, rank);
    std::free(send);
    std::free(recv);
    if (rank == 0) std::printf("%zu %.4f\n", bytes, value);  // two more decimals than OSU's
  }
  MPI_Finalize();
  return 0;
}
