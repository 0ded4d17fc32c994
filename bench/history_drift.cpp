// How far a process's own history moves a short-message time: the same hand-written loop (MPI
// alone, nothing of mpiscope) timed in several phases of one launch, with optional MPI work
// between the phases. Under Open MPI 4.1 on this machine the 4-byte PingPing of one process
// alternated between 0.29 and 0.33 µs from phase to phase, with the same buffers and nothing in
// between (bench/README.md). Such a shift decides which of two tools "wins" a sub-microsecond
// row when they run the same benchmarks in a different order.
//
//   mpirun -np 2 history_drift [--benchmark PingPing|PingPong|Sendrecv] [--bytes N]
//                              [--phases P] [--between none|pingpong|bcast] [--same-buffers]
//
// A phase is 40 blocks of 1000 repetitions, each block after two barriers; a block's time is the
// slowest rank's mean per repetition (PingPong: half the round trip), and the phase's figure the
// median of its blocks. Between phases, `pingpong` and `bcast` run 2100 repetitions at each
// length 1, 2, 4 … 256 bytes (what one short IMB benchmark does). Each phase allocates its
// buffers afresh (page aligned, as a benchmark's point gets them; glibc then places the receive
// buffer 8 KiB further on in every phase), unless --same-buffers keeps the first phase's. Prints
// one line: "phases: t1 t2 … [us]", then the receive buffer's address in each phase.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hand_repetitions.hpp"

namespace {

constexpr int kBlocks = 40, kRepetitions = 1000, kWorkRepetitions = 2100;

struct Options {
  std::string benchmark = "PingPing";
  int bytes = 4;
  int phases = 4;
  std::string between = "none";
  bool same_buffers = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--same-buffers") {
      o.same_buffers = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--benchmark") {
      o.benchmark = v;
    } else if (a == "--bytes") {
      o.bytes = std::atoi(v);
    } else if (a == "--phases") {
      o.phases = std::atoi(v);
    } else if (a == "--between") {
      o.between = v;
    } else {
      return false;
    }
  }
  const bool known =
      o.benchmark == "PingPing" || o.benchmark == "PingPong" || o.benchmark == "Sendrecv";
  const bool work = o.between == "none" || o.between == "pingpong" || o.between == "bcast";
  return known && work && o.bytes >= 0 && o.phases > 0;
}

bench::Repetition repetition_of(const std::string& name) {
  if (name == "PingPong") return bench::pingpong_repetition;
  if (name == "Sendrecv") return bench::sendrecv_repetition;
  return bench::pingping_repetition;
}

struct Buffers {
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
};

Buffers allocate(const Options& o) {
  // A multiple of the alignment, as std::aligned_alloc requires.
  const std::size_t capacity = (static_cast<std::size_t>(o.bytes) / 4096 + 1) * 4096;
  Buffers b{static_cast<std::byte*>(std::aligned_alloc(4096, capacity)),
            static_cast<std::byte*>(std::aligned_alloc(4096, capacity))};
  if (b.send == nullptr || b.recv == nullptr) MPI_Abort(MPI_COMM_WORLD, 1);
  std::memset(b.send, 1, capacity);
  std::memset(b.recv, 0, capacity);
  return b;
}

void release(Buffers& b) {
  std::free(b.send);
  std::free(b.recv);
  b = {};
}

// One phase: the median block time.
double phase(bench::Repetition repeat, const Options& o, const Buffers& b, int rank) {
  const double factor = o.benchmark == "PingPong" ? 0.5 : 1.0;
  std::vector<double> mine(kBlocks), slowest(kBlocks);
  for (int k = 0; k < kBlocks; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kRepetitions; ++i) repeat(b.send, b.recv, o.bytes, rank);
    mine[k] = (MPI_Wtime() - start) / kRepetitions * factor * 1e6;
  }
  MPI_Reduce(mine.data(), slowest.data(), kBlocks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  std::sort(slowest.begin(), slowest.end());
  return slowest[kBlocks / 2];
}

void work_between(const std::string& what, int rank) {
  if (what == "none") return;
  for (int len = 1; len <= 256; len *= 2) {
    auto* buffer = static_cast<std::byte*>(std::aligned_alloc(4096, 8192));
    std::memset(buffer, 0, 8192);
    for (int i = 0; i < kWorkRepetitions; ++i) {
      if (what == "bcast")
        MPI_Bcast(buffer, len, MPI_BYTE, 0, MPI_COMM_WORLD);
      else
        bench::pingpong_repetition(buffer, buffer + 4096, len, rank);
    }
    std::free(buffer);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  if (!parse(argc, argv, o) || size != 2) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np 2 history_drift [--benchmark PingPing|PingPong|Sendrecv] "
                   "[--bytes N] [--phases P] [--between none|pingpong|bcast] "
                   "[--same-buffers]\n");
    MPI_Finalize();
    return 2;
  }
  const bench::Repetition repeat = repetition_of(o.benchmark);
  std::string times = "phases:", addresses = "receive buffer:";
  Buffers buffers;
  for (int p = 0; p < o.phases; ++p) {
    if (buffers.send == nullptr) buffers = allocate(o);
    char text[64];
    std::snprintf(text, sizeof text, " %.3f", phase(repeat, o, buffers, rank));
    times += text;
    std::snprintf(text, sizeof text, " %p", static_cast<void*>(buffers.recv));
    addresses += text;
    if (!o.same_buffers) release(buffers);
    work_between(o.between, rank);
  }
  release(buffers);
  if (rank == 0) std::printf("%s [us]\n%s\n", times.c_str(), addresses.c_str());
  MPI_Finalize();
  return 0;
}
