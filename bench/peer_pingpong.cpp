// peer_pingpong: is mpiscope's PingPong as fast as a careful hand-written ping-pong (issue 14)?
//
// In one MPI job of exactly 2 ranks, at 0 B, 1 KiB, 64 KiB, 1 MiB and 4 MiB (--lengths), pairs of
//   A  mpiscope: the whole engine path of one IMB-MPI1 PingPong point (--benchmark: PingPing or
//      Sendrecv instead), core::run_suite() with that benchmark and that one length, IMB's
//      repetition count, default settings (warm-up at every length, unless --warm-up says
//      otherwise); the sample is the row's t[usec] (t_max);
//   B  hand-written, as OSU's osu_latency does it (PingPing, Sendrecv: the same loop around
//      IMB's calls): buffers allocated and touched once per length, a barrier, then `skip`
//      untimed iterations (100 up to 8 KiB, 10 above: OSU's skip and skip_large) followed
//      directly by the timed ones, Δt/2 per iteration for PingPong (Δt for the others); the same
//      number of timed iterations as A, and the slower rank's time (as A reports t_max);
// run interleaved: each round visits every length, and within a length the pair's order
// alternates (A then B, then B then A). Per length it prints the median of A, of B, and the
// median over pairs of A_i/B_i with its quartiles. Goal: paired median ≤ 1.02 at every length.
//
//   --rounds N          pairs per length (default 40)
//   --warm-up RULE      A's -warm_up: on (default), off, imb3.1 (the rule before issue 14)
//   --fresh-buffers     B allocates and touches new buffers for every sample
//   --benchmark NAME    PingPong (default), PingPing or Sendrecv
//   --lengths X,Y,...   the message lengths in bytes (default 0,1024,65536,1048576,4194304)
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/repetitions.hpp"
#include "hand_repetitions.hpp"
#include "machine_load.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"

namespace {

using mpiscope::core::Benchmark;

struct Options {
  int rounds = 40;
  mpiscope::core::WarmUp warm_up = mpiscope::core::WarmUp::EveryLength;
  std::string warm_up_name = "on";
  bool fresh_buffers = false;
  std::string benchmark = "PingPong";
  std::vector<std::size_t> lengths = {0, 1024, 65536, 1048576, 4194304};
};

[[noreturn]] void usage_exit(int rank, const std::string& msg) {
  if (rank == 0)
    std::fprintf(stderr,
                 "peer_pingpong: %s\nusage: mpirun -np 2 peer_pingpong [--rounds N] "
                 "[--warm-up on|off|imb3.1] [--fresh-buffers]\n"
                 "       [--benchmark PingPong|PingPing|Sendrecv] [--lengths X,Y,...]\n",
                 msg.c_str());
  MPI_Finalize();
  std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 1000000) usage_exit(rank, "bad --rounds");
      o.rounds = static_cast<int>(v);
    } else if (a == "--warm-up" && i + 1 < argc) {
      o.warm_up_name = argv[++i];
      if (o.warm_up_name == "on")
        o.warm_up = mpiscope::core::WarmUp::EveryLength;
      else if (o.warm_up_name == "off")
        o.warm_up = mpiscope::core::WarmUp::Off;
      else if (o.warm_up_name == "imb3.1")
        o.warm_up = mpiscope::core::WarmUp::Imb31;
      else
        usage_exit(rank, "--warm-up takes on, off or imb3.1");
    } else if (a == "--benchmark" && i + 1 < argc) {
      o.benchmark = argv[++i];
      if (o.benchmark != "PingPong" && o.benchmark != "PingPing" && o.benchmark != "Sendrecv")
        usage_exit(rank, "--benchmark takes PingPong, PingPing or Sendrecv");
    } else if (a == "--lengths" && i + 1 < argc) {
      o.lengths.clear();
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        char* end = nullptr;
        const std::string item = list.substr(at, comma - at);
        const long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 0 || v > (1LL << 30))
          usage_exit(rank, "bad --lengths " + list);
        o.lengths.push_back(static_cast<std::size_t>(v));
        at = comma + 1;
      }
    } else if (a == "--fresh-buffers") {
      o.fresh_buffers = true;
    } else {
      usage_exit(rank, "unknown argument " + a);
    }
  }
  return o;
}

// The row of the one point run_suite() measured (rank 0 only).
class LastRow : public mpiscope::core::Reporter {
 public:
  void row(const mpiscope::core::BenchmarkRun&, const mpiscope::core::Measurement& m) override {
    t_us = m.measured ? m.t_max_us : std::nan("");
  }
  double t_us = 0;
};

// A: mpiscope's PingPong at one length, exactly as `mpiscope imb-mpi1 -msglen <X> PingPong` runs
// it (buffers, warm-up, barriers, timed loop, collection), minus the output.
double mpiscope_point(const Benchmark& benchmark, const mpiscope::core::EngineSettings& settings,
                      std::size_t bytes) {
  mpiscope::core::SuitePlan plan;
  plan.suite = "peer_pingpong";
  plan.benchmarks = {&benchmark};
  plan.lengths = [bytes](const Benchmark&) { return std::vector<std::size_t>{bytes}; };
  LastRow last;
  mpiscope::core::run_suite(plan, settings, last);
  return last.t_us;  // meaningful on rank 0
}

// Page-aligned, touched message buffers of the hand-written loop.
struct HandBuffers {
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> send, recv;
  HandBuffers(std::size_t bytes, int rank) {
    const std::size_t alloc = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
    send.reset(static_cast<std::byte*>(std::aligned_alloc(4096, alloc)));
    recv.reset(static_cast<std::byte*>(std::aligned_alloc(4096, alloc)));
    if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
    std::memset(send.get(), rank + 1, alloc);
    std::memset(recv.get(), 0, alloc);
  }
};

// B: osu_latency's loop, here around one repetition of the benchmark (PingPong as osu_latency's
// own; PingPing and Sendrecv IMB's calls). OSU skips 100 iterations below its large-message size
// (8 KiB), 10 above. The time per iteration: Δt/2 for PingPong, Δt for the others, as IMB
// reports them. A template, so that the repetition is inlined as in a loop written out.
template <bench::Repetition Repetition>
double hand_point(const HandBuffers& buf, std::size_t bytes, int rank, int iterations) {
  const int skip = bytes > 8192 ? 10 : 100;
  const int count = static_cast<int>(bytes);
  std::byte* const send = buf.send.get();
  std::byte* const recv = buf.recv.get();
  MPI_Barrier(MPI_COMM_WORLD);
  double start = 0;
  for (int i = 0; i < skip + iterations; ++i) {
    if (i == skip) start = MPI_Wtime();
    Repetition(send, recv, count, rank);
  }
  double t_us = (MPI_Wtime() - start) / iterations * 1e6;
  if (Repetition == &bench::pingpong_repetition) t_us /= 2;
  MPI_Allreduce(MPI_IN_PLACE, &t_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t_us;
}

using HandPoint = double (*)(const HandBuffers&, std::size_t, int, int);
HandPoint hand_point_of(const std::string& benchmark) {
  if (benchmark == "PingPing") return &hand_point<&bench::pingping_repetition>;
  if (benchmark == "Sendrecv") return &hand_point<&bench::sendrecv_repetition>;
  return &hand_point<&bench::pingpong_repetition>;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) usage_exit(rank, "needs exactly 2 MPI processes");
  const Options opt = parse(argc, argv, rank);
  setenv("MPISCOPE_PROGRESS", "0", 1);  // no progress line between the samples

  const auto& all = mpiscope::imb::mpi1::all_benchmarks();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const Benchmark& b) { return b.name == opt.benchmark; });
  if (it == all.end()) usage_exit(rank, opt.benchmark + " not found");
  const HandPoint hand = hand_point_of(opt.benchmark);
  mpiscope::core::EngineSettings settings;  // IMB-MPI1's defaults
  settings.repetitions.warm_up = opt.warm_up;
  settings.rehearse_each_length = true;  // as IMB-MPI1 sets it (with -warm_up on)

  const std::vector<std::size_t>& lengths = opt.lengths;
  if (rank == 0) {
    std::printf(
        "# peer_pingpong: %d interleaved pairs per length; A = mpiscope %s "
        "(-warm_up %s), B = hand-written, OSU's skip (%s buffers)\n",
        opt.rounds, opt.benchmark.c_str(), opt.warm_up_name.c_str(),
        opt.fresh_buffers ? "fresh" : "persistent");
    std::printf("# load average at start: %s\n", bench::loadavg().c_str());
    std::printf("%10s %6s %12s %12s %8s %18s %6s\n", "bytes", "reps", "A_med[usec]", "B_med[usec]",
                "A/B", "A/B p25..p75", "pairs");
  }
  const bench::LoadWatch load;
  std::vector<std::unique_ptr<HandBuffers>> persistent;
  for (std::size_t bytes : lengths)
    persistent.push_back(std::make_unique<HandBuffers>(bytes, rank));
  std::vector<std::vector<double>> a(lengths.size()), b(lengths.size());
  for (int round = 0; round < opt.rounds; ++round) {
    for (std::size_t l = 0; l < lengths.size(); ++l) {
      const std::size_t bytes = lengths[l];
      const int iterations = mpiscope::core::imb_repetitions(settings.repetitions, bytes);
      std::unique_ptr<HandBuffers> fresh;
      if (opt.fresh_buffers) fresh = std::make_unique<HandBuffers>(bytes, rank);
      const HandBuffers& buf = fresh ? *fresh : *persistent[l];
      if (round % 2 == 0) {
        a[l].push_back(mpiscope_point(*it, settings, bytes));
        b[l].push_back(hand(buf, bytes, rank, iterations));
      } else {
        b[l].push_back(hand(buf, bytes, rank, iterations));
        a[l].push_back(mpiscope_point(*it, settings, bytes));
      }
    }
  }
  if (rank == 0) {
    for (std::size_t l = 0; l < lengths.size(); ++l) {
      std::vector<double> ratio;
      for (std::size_t i = 0; i < a[l].size(); ++i) ratio.push_back(a[l][i] / b[l][i]);
      char spread[48];
      std::snprintf(spread, sizeof spread, "%.3f..%.3f", bench::quantile(ratio, 0.25),
                    bench::quantile(ratio, 0.75));
      std::printf("%10zu %6d %12.3f %12.3f %8.4f %18s %6zu\n", lengths[l],
                  mpiscope::core::imb_repetitions(settings.repetitions, lengths[l]),
                  bench::quantile(a[l], 0.5), bench::quantile(b[l], 0.5),
                  bench::quantile(ratio, 0.5), spread, ratio.size());
    }
    std::fflush(stdout);
  }
  load.report(rank);
  MPI_Finalize();
  return 0;
}
