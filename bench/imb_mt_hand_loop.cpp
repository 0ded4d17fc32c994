// The reference for `mpiscope imb-mt PingPongMT` (issue 34 item 9): IMB-MT's ping-pong written by
// hand with MPI and C++ threads alone, nothing of mpiscope in it. Each of T threads per process
// has a duplicate of MPI_COMM_WORLD and page-aligned buffers of its own; rank r pairs with
// r + P/2. Per length: W warm-up round trips, the threads meet, thread 0 calls MPI_Barrier, they
// meet again, then R timed round trips between two MPI_Wtime reads; a thread's time is the
// elapsed time / (2 R). bench/imb_mt_side_by_side.sh launches it beside mpiscope and Intel's
// IMB-MT.
//
//   mpirun -np P imb_mt_hand_loop THREADS BYTES [BYTES...] [--repeat R] [--warmup W]
//
// Prints one line per length, "BYTES T_AVG": BYTES the message length per thread, T_AVG the mean
// over every thread of every process in microseconds (IMB-MT's t_avg).
#include <mpi.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Settings {
  int threads = 1, repeat = 1000, warmup = 100;
};

double thread_seconds(const Settings& s, MPI_Comm comm, std::size_t bytes, int rank, int size,
                      std::barrier<>& meeting, int thread) {
  const std::size_t length = (bytes / 4096 + 1) * 4096;
  char* send = static_cast<char*>(std::aligned_alloc(4096, length));
  char* recv = static_cast<char*>(std::aligned_alloc(4096, length));
  std::memset(send, 'a', length);
  std::memset(recv, 'b', length);
  const int half = size / 2, count = static_cast<int>(bytes / sizeof(int));
  const bool first = rank < half;
  const int other = first ? rank + half : rank - half;
  const auto round_trip = [&] {
    if (first) {
      MPI_Send(send, count, MPI_INT, other, 0, comm);
      MPI_Recv(recv, count, MPI_INT, other, 0, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv, count, MPI_INT, other, 0, comm, MPI_STATUS_IGNORE);
      MPI_Send(send, count, MPI_INT, other, 0, comm);
    }
  };
  for (int i = 0; i < s.warmup; ++i) round_trip();
  meeting.arrive_and_wait();
  if (thread == 0) MPI_Barrier(MPI_COMM_WORLD);
  meeting.arrive_and_wait();
  const double start = MPI_Wtime();
  for (int i = 0; i < s.repeat; ++i) round_trip();
  const double seconds = (MPI_Wtime() - start) / (2.0 * s.repeat);
  std::free(send);
  std::free(recv);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Settings s;
  std::vector<std::size_t> lengths;
  s.threads = argc >= 2 ? std::atoi(argv[1]) : 0;
  for (int a = 2; a < argc; ++a) {
    if (std::strcmp(argv[a], "--repeat") == 0 && a + 1 < argc)
      s.repeat = std::atoi(argv[++a]);
    else if (std::strcmp(argv[a], "--warmup") == 0 && a + 1 < argc)
      s.warmup = std::atoi(argv[++a]);
    else
      lengths.push_back(std::strtoull(argv[a], nullptr, 10));
  }
  if (s.threads < 1 || lengths.empty() || size < 2 || size % 2 != 0 || s.repeat < 1 ||
      s.warmup < 0 || provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np P(even) %s THREADS BYTES... [--repeat R] [--warmup W] "
                   "(needs MPI_THREAD_MULTIPLE)\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  std::vector<MPI_Comm> comms(static_cast<std::size_t>(s.threads));
  for (auto& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (const std::size_t bytes : lengths) {
    std::vector<double> mine(static_cast<std::size_t>(s.threads));
    std::barrier<> meeting(s.threads);
    std::vector<std::thread> others;
    for (int t = 1; t < s.threads; ++t)
      others.emplace_back([&, t] {
        mine[static_cast<std::size_t>(t)] =
            thread_seconds(s, comms[static_cast<std::size_t>(t)], bytes, rank, size, meeting, t);
      });
    mine[0] = thread_seconds(s, comms[0], bytes, rank, size, meeting, 0);
    for (auto& thread : others) thread.join();
    double sum = 0;
    for (const double t : mine) sum += t;
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%zu %.4f\n", bytes, total * 1e6 / (s.threads * size));
  }
  for (auto& c : comms) MPI_Comm_free(&c);
  MPI_Finalize();
  return 0;
}
