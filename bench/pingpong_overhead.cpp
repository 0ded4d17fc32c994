// pingpong_overhead: does mpiscope's PingPong timing path add anything to what it measures?
//
// Runs, interleaved in one MPI job of exactly 2 ranks,
//   A  the real mpiscope path: "PingPong" from imb::mpi1::all_benchmarks(), its buffers from
//      core::MessageBuffers::try_create(b.shape(...)), a filled core::PointContext (setup/release
//      as the engine calls them) and b.kernel.loop(ctx, reps, 2) scaled by b.time_factor / reps —
//      what core/engine.cpp does for one measurement;
//   B  a minimal hand-written loop: 2 × MPI_Barrier, then reps × MPI_Send/MPI_Recv between two
//      MPI_Wtime calls, reported as Δt/2 per repetition;
// as A, B, A, B, … for --rounds rounds at 0 bytes and at 4 MiB. Each sample is the larger of the
// two ranks' times (PingPong's t[usec] column is t_max). Prints the median of each and the ratio.
// By default both loops move the same memory (the buffers mpiscope allocated), so that only the
// timing path differs: at 4 MiB where a buffer lies changes the time by a few percent by itself.
// The last lines tell a quiet run from a disturbed one: each rank's CPU time / wall time (both
// ranks busy-poll, so ≈ 1 when each has a core to itself) and involuntary context switches; a
// share below 0.95 prints a WARNING.
//
//   --rounds N        rounds per message length (default 30)
//   --reps-small N    repetitions per sample at 0 bytes (default 10000; IMB uses 1000)
//   --reps-large N    repetitions per sample at 4 MiB (default 100; IMB uses 10)
//   --compare ab|aa|bb  what is interleaved: mpiscope vs hand (default), or one path against
//                     itself, to see how large a ratio the noise alone produces
//   --b-first         run B before A in every round (B, A, B, A, …), to separate an effect of the
//                     position in the round from one of the path
//   --own-buffers     every loop allocates its own buffers (mpiscope's MessageBuffers for A, a
//                     page-aligned aligned_alloc for B) instead of sharing mpiscope's
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.hpp"
#include "core/buffers.hpp"
#include "hand_repetitions.hpp"
#include "machine_load.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"

namespace {

using mpiscope::core::Benchmark;
using mpiscope::core::MessageBuffers;
using mpiscope::core::OffCache;
using mpiscope::core::PointContext;

struct Options {
  int rounds = 30;
  int reps_small = 10000;
  int reps_large = 100;
  std::string compare = "ab";
  bool b_first = false;
  bool own_buffers = false;
};

[[noreturn]] void usage_exit(int rank, const char* msg) {
  if (rank == 0)
    std::fprintf(stderr,
                 "pingpong_overhead: %s\nusage: mpirun -np 2 pingpong_overhead [--rounds N] "
                 "[--reps-small N] [--reps-large N] [--compare ab|aa|bb] [--b-first] "
                 "[--own-buffers]\n",
                 msg);
  MPI_Finalize();
  std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  auto positive = [&](int& i) {
    if (i + 1 >= argc) usage_exit(rank, "missing value");
    char* end = nullptr;
    const long v = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || v < 1 || v > 100000000) usage_exit(rank, "bad number");
    return static_cast<int>(v);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds")
      o.rounds = positive(i);
    else if (a == "--reps-small")
      o.reps_small = positive(i);
    else if (a == "--reps-large")
      o.reps_large = positive(i);
    else if (a == "--b-first")
      o.b_first = true;
    else if (a == "--own-buffers")
      o.own_buffers = true;
    else if (a == "--compare" && i + 1 < argc) {
      o.compare = argv[++i];
      if (o.compare != "ab" && o.compare != "aa" && o.compare != "bb")
        usage_exit(rank, "--compare takes ab, aa or bb");
    } else {
      usage_exit(rank, ("unknown argument " + a).c_str());
    }
  }
  return o;
}

// Message buffers as the engine creates them for a point: b.shape(max(X, 4), Q, repetitions)
// (the engine sizes for max(X, 4) so that its 4-byte warm-up fits), no -off_cache.
MessageBuffers engine_buffers(const Benchmark& b, std::size_t bytes, int rank, int repetitions) {
  const std::size_t shape_bytes = std::max<std::size_t>(bytes, sizeof(float));
  auto buffers = MessageBuffers::try_create(b.shape(shape_bytes, 2, repetitions), OffCache{}, rank);
  if (!buffers) {
    std::fprintf(stderr, "rank %d: could not allocate the mpiscope buffers\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return std::move(*buffers);
}

// Path A: exactly the engine's calls for one measurement (engine.cpp, measure_point/time_point).
class MpiscopePath {
 public:
  MpiscopePath(const Benchmark& b, const MessageBuffers& buffers, std::size_t bytes, int rank,
               int repetitions)
      : b_(b) {
    ctx_.comm = MPI_COMM_WORLD;
    ctx_.rank = rank;
    ctx_.nprocs = 2;
    ctx_.bytes = bytes;
    ctx_.count = static_cast<int>(bytes);  // PingPong moves MPI_BYTE
    ctx_.repetitions = repetitions;
    ctx_.aggregation = b.modes.front();  // PingPong: Aggregation::None, its only mode
    ctx_.buffers = &buffers;
    if (b.setup) b.setup(ctx_);
  }
  ~MpiscopePath() {
    if (b_.release) b_.release(ctx_);
  }
  MpiscopePath(const MpiscopePath&) = delete;
  MpiscopePath& operator=(const MpiscopePath&) = delete;
  // Seconds per repetition, scaled by the time factor (Δt/2 for PingPong).
  double sample(int repetitions) {
    const double elapsed = b_.kernel.loop(ctx_, repetitions, /*barriers=*/2);
    return elapsed / repetitions * b_.time_factor;
  }

 private:
  const Benchmark& b_;
  PointContext ctx_;
};

// Page-aligned bytes of B's own (--own-buffers), as mpiscope's are page-aligned.
struct OwnBytes {
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> send, recv;
  OwnBytes(std::size_t bytes, int rank) {
    const std::size_t alloc = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
    send.reset(static_cast<std::byte*>(std::aligned_alloc(4096, alloc)));
    recv.reset(static_cast<std::byte*>(std::aligned_alloc(4096, alloc)));
    if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
    std::memset(send.get(), rank + 1, alloc);
    std::memset(recv.get(), 0, alloc);
  }
};

// Path B: the smallest ping-pong one would write by hand.
class HandPath {
 public:
  HandPath(std::byte* send, std::byte* recv, std::size_t bytes, int rank)
      : rank_(rank), count_(static_cast<int>(bytes)), send_(send), recv_(recv) {}
  double sample(int repetitions) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < repetitions; ++i) bench::pingpong_repetition(send_, recv_, count_, rank_);
    const double elapsed = MPI_Wtime() - start;
    return elapsed / repetitions / 2;
  }

 private:
  int rank_;
  int count_;
  std::byte* send_;
  std::byte* recv_;
};

// The larger of the two ranks' times, in microseconds (what PingPong's t[usec] shows).
double slowest_us(double seconds) {
  double t = seconds * 1e6;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) usage_exit(rank, "needs exactly 2 MPI processes");
  const Options opt = parse(argc, argv, rank);

  const auto& all = mpiscope::imb::mpi1::all_benchmarks();
  const auto it =
      std::find_if(all.begin(), all.end(), [](const Benchmark& b) { return b.name == "PingPong"; });
  if (it == all.end()) usage_exit(rank, "PingPong not found in imb::mpi1::all_benchmarks()");
  const Benchmark& pingpong = *it;

  const char* label_a = opt.compare == "bb" ? "hand" : "mpiscope";
  const char* label_b = opt.compare == "aa" ? "mpiscope" : "hand";
  if (rank == 0) {
    std::printf("# pingpong_overhead: %d rounds, interleaved %s, median of t_max over ranks\n",
                opt.rounds, opt.b_first ? "B, A, B, A, ..." : "A, B, A, B, ...");
    std::printf(
        "# reps: %d at 0 bytes, %d at 4194304 bytes; %s buffers; load average at start: %s\n",
        opt.reps_small, opt.reps_large, opt.own_buffers ? "own" : "shared",
        bench::loadavg().c_str());
    std::printf(
        "# A = %s, B = %s; ratio = median(A)/median(B); paired = median over rounds of "
        "A_i/B_i\n",
        label_a, label_b);
    std::printf("%10s %6s %12s %12s %8s %8s %22s %22s\n", "bytes", "reps", "A_med[usec]",
                "B_med[usec]", "ratio", "paired", "A_p25..p75", "B_p25..p75");
  }

  const bench::LoadWatch load;
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{4194304}}) {
    const int reps = bytes == 0 ? opt.reps_small : opt.reps_large;
    // Two instances of each path, for --compare aa/bb. Shared buffers: every loop moves the
    // memory of `shared`; --own-buffers: each instance has memory of its own.
    const MessageBuffers shared = engine_buffers(pingpong, bytes, rank, reps);
    std::optional<MessageBuffers> own_a, own_a2;
    std::optional<OwnBytes> own_h, own_h2;
    if (opt.own_buffers) {
      own_a.emplace(engine_buffers(pingpong, bytes, rank, reps));
      own_h.emplace(bytes, rank);
      own_a2.emplace(engine_buffers(pingpong, bytes, rank, reps));
      own_h2.emplace(bytes, rank);
    }
    auto hand = [&](std::optional<OwnBytes>& own) {
      return own ? HandPath(own->send.get(), own->recv.get(), bytes, rank)
                 : HandPath(shared.send(0), shared.recv(0), bytes, rank);
    };
    MpiscopePath a(pingpong, own_a ? *own_a : shared, bytes, rank, reps);
    HandPath h = hand(own_h);
    MpiscopePath a2(pingpong, own_a2 ? *own_a2 : shared, bytes, rank, reps);
    HandPath h2 = hand(own_h2);
    auto run_first = [&](int r) { return opt.compare == "bb" ? h2.sample(r) : a.sample(r); };
    auto run_second = [&](int r) { return opt.compare == "aa" ? a2.sample(r) : h.sample(r); };
    // Warm up both (connection set-up, page faults on first touch of the buffers).
    for (int w = 0; w < 3; ++w) {
      run_first(reps);
      run_second(reps);
    }
    std::vector<double> ta, tb;
    for (int round = 0; round < opt.rounds; ++round) {
      if (opt.b_first) tb.push_back(slowest_us(run_second(reps)));
      ta.push_back(slowest_us(run_first(reps)));
      if (!opt.b_first) tb.push_back(slowest_us(run_second(reps)));
    }
    if (rank == 0) {
      const double ma = bench::quantile(ta, 0.5), mb = bench::quantile(tb, 0.5);
      std::vector<double> paired;
      for (std::size_t i = 0; i < ta.size(); ++i) paired.push_back(ta[i] / tb[i]);
      char ra[64], rb[64];
      std::snprintf(ra, sizeof ra, "%.3f..%.3f", bench::quantile(ta, 0.25),
                    bench::quantile(ta, 0.75));
      std::snprintf(rb, sizeof rb, "%.3f..%.3f", bench::quantile(tb, 0.25),
                    bench::quantile(tb, 0.75));
      std::printf("%10zu %6d %12.3f %12.3f %8.4f %8.4f %22s %22s\n", bytes, reps, ma, mb, ma / mb,
                  bench::quantile(paired, 0.5), ra, rb);
      std::fflush(stdout);
    }
  }
  load.report(rank);
  MPI_Finalize();
  return 0;
}
