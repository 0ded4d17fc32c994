// osu_latency_mt (OSU 7.4's c/mpi/pt2pt/standard/osu_latency_mt.c): a ping-pong whose iterations
// rank 0's S sender threads and rank 1's R receiver threads share round robin (sender t takes
// iterations t, t + S, …; receiver t takes t, t + R, …), each thread on X bytes of its own. With
// more than one sender every iteration has its own tag, so each message meets the receiver
// thread of its iteration; with one (OSU's default 1:2) messages go out on tag 1 and back on tag
// 2, and any receiver thread takes any of them. Each sender thread times its own iterations and
// the loop's time is their sum: with the engine's factor 1/2 the mean one-way latency, OSU's
// t_total / (2 iterations / S) for S = 1. (OSU's threads share one t_start, t_end and t_total,
// so its figure for S > 1 is whatever their races leave; docs/osu.md.)
#include <numeric>
#include <thread>
#include <vector>

#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::PointContext;

int sender_threads(const PointContext& c) {
  return c.threads_of(0);
}

// Iteration i of the ping-pong, on thread t of this rank.
void threaded_iteration(const PointContext& c, int t, int i) {
  const bool own_tags = sender_threads(c) > 1;
  const int out = own_tags ? i : 1, back = own_tags ? i : 2;
  std::byte* send = c.send(0) + static_cast<std::size_t>(t) * c.message_slot();
  std::byte* recv = c.recv(0) + static_cast<std::size_t>(t) * c.message_slot();
  if (c.rank == 0) {
    MPI_Send(send, c.count, c.datatype, 1, out, c.comm);
    MPI_Recv(recv, c.count, c.datatype, 1, back, c.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(recv, c.count, c.datatype, 0, out, c.comm, MPI_STATUS_IGNORE);
    MPI_Send(send, c.count, c.datatype, 0, back, c.comm);
  }
}

// Iterations [first, end) shared among this rank's threads (the calling thread is thread 0);
// those from `timed_from` on are timed where the rank reads the timer, each into samples[i -
// timed_from] if given. Returns the sum of the timed round trips.
double share_out(const PointContext& c, int first, int end, int timed_from, double* samples) {
  const int threads = c.threads_of(c.rank);
  std::vector<double> sums(static_cast<std::size_t>(threads), 0.0);
  const auto work = [&](int t) {
    double sum = 0;
    for (int i = first + t; i < end; i += threads) {
      const bool timed = c.reads_timer && i >= timed_from;
      const double start = timed ? MPI_Wtime() : 0;
      threaded_iteration(c, t, i);
      if (!timed) continue;
      const double round_trip = MPI_Wtime() - start;
      sum += round_trip;
      if (samples) samples[i - timed_from] = round_trip;
    }
    sums[static_cast<std::size_t>(t)] = sum;
  };
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back(work, t);
  work(0);
  for (auto& thread : others) thread.join();
  return std::accumulate(sums.begin(), sums.end(), 0.0);
}

// The timed loop: OSU's skip iterations (ctx.untimed_lead) and the timed ones in one share-out.
double threaded_loop(PointContext& c, int repetitions, int barriers) {
  for (int b = 0; b < barriers; ++b) c.synchronise();
  return share_out(c, 0, c.untimed_lead + repetitions, c.untimed_lead, nullptr);
}
double threaded_sampled_loop(PointContext& c, int repetitions, int barriers, double* samples) {
  for (int b = 0; b < barriers; ++b) c.synchronise();
  return share_out(c, 0, repetitions, 0, samples);
}

// One untimed repetition (-c, warm-up): max(S, R) iterations, so that every thread of both ranks
// takes one and both ranks run the same iterations.
void threaded_round(PointContext& c, int i) {
  const int n = std::max(c.threads_of(0), c.threads_of(1));
  share_out(c, i * n, (i + 1) * n, (i + 1) * n, nullptr);
}

// -c (S = R): each thread's buffer holds the partner's same thread's message.
std::vector<core::ExpectedBlock> from_partner_thread(const PointContext& c, int) {
  std::vector<core::ExpectedBlock> blocks;
  for (int t = 0; t < c.threads_of(c.rank); ++t) {
    const std::size_t at = static_cast<std::size_t>(t) * c.message_slot();
    blocks.push_back({at, 1 - c.rank, at, c.bytes});
  }
  return blocks;
}

}  // namespace

core::Benchmark threaded_ping_pong_latency(int senders, int receivers) {
  core::Benchmark b = in_family({}, core::Family::SingleTransfer);
  b.name = "osu_latency_mt";
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.kernel = {.iterate = threaded_round,
              .complete = core::already_complete,
              .loop = threaded_loop,
              .sampled = threaded_sampled_loop};
  b.expected = from_partner_thread;
  b.time_factor = 0.5;
  b.threads_per_rank = {senders, receivers};
  return b;
}

}  // namespace mpiscope::osu
