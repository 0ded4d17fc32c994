// What a benchmark is to the engine: a kernel (one repetition of its communication pattern), the
// buffers it needs, how its results are interpreted, and what a correct receive looks like.
// The methodology that times the kernel (barriers, timer, repetitions) lives in measure.cpp and
// in timed_loop below, written once for every suite.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/buffers.hpp"

namespace mpiscope::core {

enum class Family { SingleTransfer, ParallelTransfer, Collective };
enum class Datatype { Byte, FloatSum };  // MPI_BYTE moves; MPI_FLOAT with MPI_SUM reductions

const char* family_name(Family f);

// Everything one repetition of a kernel may use. Set up by the engine before timing.
struct PointContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int nprocs = 1;
  std::size_t bytes = 0;  // X, the message length in bytes
  int count = 0;          // X in elements of the benchmark's datatype
  const MessageBuffers* buffers = nullptr;
  std::vector<int> counts, displs;  // per-rank element counts/displacements (v-variants)

  int left() const { return (rank - 1 + nprocs) % nprocs; }
  int right() const { return (rank + 1) % nprocs; }
  std::byte* send(int i) const { return buffers->send(i); }
  std::byte* recv(int i) const { return buffers->recv(i); }
};

using IterateFn = void (*)(PointContext&, int iteration);
using LoopFn = double (*)(PointContext&, int repetitions, int barriers);
using SampledLoopFn = double (*)(PointContext&, int repetitions, int barriers, double* samples);

// IMB 5.2.8.1: N_BARR barriers, then the repetitions between two MPI_Wtime calls. A template so
// that the kernel call is inlined: the harness adds nothing to what is timed.
template <IterateFn Iterate>
double timed_loop(PointContext& ctx, int repetitions, int barriers) {
  for (int b = 0; b < barriers; ++b) MPI_Barrier(ctx.comm);
  const double start = MPI_Wtime();
  for (int i = 0; i < repetitions; ++i) Iterate(ctx, i);
  return MPI_Wtime() - start;
}

// The same loop reading the timer after every repetition; samples[i] is repetition i's time.
template <IterateFn Iterate>
double sampled_loop(PointContext& ctx, int repetitions, int barriers, double* samples) {
  for (int b = 0; b < barriers; ++b) MPI_Barrier(ctx.comm);
  const double start = MPI_Wtime();
  double previous = start;
  for (int i = 0; i < repetitions; ++i) {
    Iterate(ctx, i);
    const double now = MPI_Wtime();
    samples[i] = now - previous;
    previous = now;
  }
  return previous - start;
}

struct Kernel {
  IterateFn iterate = nullptr;
  LoopFn loop = nullptr;
  SampledLoopFn sampled = nullptr;
};
template <IterateFn F>
constexpr Kernel kernel() {
  return {F, &timed_loop<F>, &sampled_loop<F>};
}

// For -check: after repetition `iteration`, receive bytes [recv_offset, recv_offset+length) hold
// bytes [source_offset, …) of the pattern of group rank `source`; for FloatSum benchmarks
// (source == kAllRanks) they hold the element-wise sum of every rank's pattern.
struct ExpectedBlock {
  static constexpr int kAllRanks = -1;
  std::size_t recv_offset = 0;
  int source = 0;
  std::size_t source_offset = 0;
  std::size_t length = 0;
};

struct Benchmark {
  std::string name;
  Family family = Family::Collective;
  Datatype datatype = Datatype::Byte;
  double turnover = 0;         // messages per repetition in the throughput (nmsg); 0: none shown
  double time_factor = 1.0;    // reported time = factor · measured time (PingPong: Δt/2)
  bool two_processes = false;  // single transfer: exactly two active processes
  bool rooted = false;         // root moves round robin: i % nprocs in repetition i
  bool sized = true;           // false: no message length (Barrier)
  BufferShape (*shape)(std::size_t bytes, int nprocs) = nullptr;
  void (*prepare)(PointContext&) = nullptr;  // counts/displacements, called before timing
  Kernel kernel;
  std::vector<ExpectedBlock> (*expected)(const PointContext&, int iteration) = nullptr;
};

}  // namespace mpiscope::core
