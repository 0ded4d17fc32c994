// What a benchmark is to the engine: a kernel (one repetition of its communication pattern), the
// buffers it needs, how its results are interpreted, and what a correct receive looks like.
// The methodology that times the kernel (barriers, timer, repetitions) lives in engine.cpp and
// in timed_loop below, written once for every suite.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
#include "core/neighbourhood.hpp"

namespace mpiscope::core {

class DerivedTypes;  // core/element_layout.hpp
class ThreadTeam;    // core/thread_team.hpp
struct PointContext;
void team_barrier(const PointContext& ctx);

enum class Family { SingleTransfer, ParallelTransfer, Collective };
// The element a kernel moves or reduces: MPI_BYTE, MPI_CHAR, MPI_INT, MPI_FLOAT or MPI_DOUBLE
// moves (IMB-MPI1's -data_type, OSU 7.4's -T); the same but MPI_BYTE with MPI_SUM (IMB's
// reductions: MPI_FLOAT unless -red_data_type; OSU's on its -T type). The engine hands it to the
// kernel in PointContext::datatype, so one kernel serves every element.
enum class Datatype { Byte, Char, Int, Float, Double, FloatSum, CharSum, IntSum, DoubleSum };
inline bool is_sum(Datatype d) {
  return d == Datatype::FloatSum || d == Datatype::CharSum || d == Datatype::IntSum ||
         d == Datatype::DoubleSum;
}
inline std::size_t element_bytes(Datatype d) {
  switch (d) {
    case Datatype::Int:
    case Datatype::IntSum:
      return sizeof(int);
    case Datatype::Float:
    case Datatype::FloatSum:
      return sizeof(float);
    case Datatype::Double:
    case Datatype::DoubleSum:
      return sizeof(double);
    default:
      return 1;
  }
}
inline MPI_Datatype mpi_datatype(Datatype d) {
  switch (d) {
    case Datatype::Char:
    case Datatype::CharSum:
      return MPI_CHAR;
    case Datatype::Int:
    case Datatype::IntSum:
      return MPI_INT;
    case Datatype::Float:
    case Datatype::FloatSum:
      return MPI_FLOAT;
    case Datatype::Double:
    case Datatype::DoubleSum:
      return MPI_DOUBLE;
    default:
      return MPI_BYTE;
  }
}

// An element type by its C name, as IMB-MPI1's -data_type and -red_data_type name it and OSU's -T
// with "mpi_" before it: what a transfer of it moves and what a reduction of it sums (byte:
// moves only, its `summed` is Byte).
struct ElementType {
  const char* name;  // "int"
  Datatype moved, summed;
};
const std::vector<ElementType>& element_types();              // byte, char, int, float, double
const ElementType* find_element_type(std::string_view name);  // nullptr if none
// MPI's name of the element ("MPI_INT"), as the suites' headers print it.
const char* mpi_type_name(Datatype d);

const char* family_name(Family f);

// IMB-EXT and IMB-IO writes run twice: completion assured after every transfer (non-aggregate,
// M = 1) or once after all of them (aggregate, M = n_sample); guide 4.2.2.2.
enum class Aggregation { None, NonAggregate, Aggregate };
const char* aggregation_name(Aggregation a);

// How the timed loop reads the timer (Benchmark::timer_reads).
enum class TimerReads {
  // IMB: once before the repetitions and once after them.
  AroundLoop,
  // OSU 7.4's point-to-point programs: each repetition between two reads of its own, the loop's
  // time their sum; only the ranks OSU times read it (PointContext::reads_timer).
  EachRepetition,
  // OSU 7.4's one-sided programs: the loop between two reads, and inside it two more around
  // each repetition, which OSU keeps for its per-iteration statistics (-G, -T) and whose cost
  // its figures include; only the origin reads them.
  AroundLoopAndEachRepetition,
};

// Everything one repetition of a kernel may use. Set up by the engine before timing.
struct PointContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int nprocs = 1;
  std::size_t bytes = 0;  // X, the message length in bytes
  // The bytes a message's datatype reaches from where it starts, set with the length: X, or more
  // under OSU's -D indx (core::span_bytes).
  std::size_t message_span = 0;
  int count = 0;  // X in elements of the benchmark's datatype
  // The benchmark's element (Benchmark::datatype) and its size in bytes: what a reduction kernel
  // passes to its MPI call, and what count, counts and displs count.
  MPI_Datatype datatype = MPI_BYTE;
  std::size_t element_bytes = 1;
  // A reduction's operation: MPI_SUM, or under IMB-MPI1's -contig_type IMB's own sum of the
  // derived type's elements.
  MPI_Op op = MPI_SUM;
  // -contig_type (EngineSettings::element_layout): the point's derived datatype (held here, freed
  // with the point), and the bytes from one of a message's elements to the next in the buffers
  // (0: packed; resize: two elements).
  std::shared_ptr<const DerivedTypes> derived;
  std::size_t element_spacing = 0, spaced_element = 1;
  int repetitions = 1;  // what the buffers were sized for (disjoint targets in aggregate mode)
  Aggregation aggregation = Aggregation::None;
  const MessageBuffers* buffers = nullptr;
  std::vector<int> counts, displs;  // per-rank element counts/displacements (v-variants)
  std::vector<MPI_Datatype> types;  // per-rank datatypes (MPI_Alltoallw), displs then in bytes
  // Neighbourhood collectives (OSU's -N): the topology (EngineSettings::neighbourhood), every
  // process's neighbours in it, and the distributed-graph communicator over `comm` their set-up
  // makes; MPI_Neighbor_alltoallw's byte displacements.
  const Neighbourhood* neighbourhood = nullptr;
  std::vector<Neighbours> neighbours;
  MPI_Comm neighbour_comm = MPI_COMM_NULL;
  std::vector<MPI_Aint> byte_displs;
  MPI_Win window = MPI_WIN_NULL;        // one-sided benchmarks: created in setup, freed in release
  std::vector<MPI_Request> persistent;  // persistent requests: made in setup, freed in release
  // A dynamic window (OSU's -w dynamic): the region attached, and every rank's address of it,
  // which is where a target's displacements start.
  std::byte* window_attached = nullptr;
  std::vector<MPI_Aint> window_bases;
  std::string setup_error;        // set by a setup that could not prepare the point
  MPI_File file = MPI_FILE_NULL;  // I/O benchmarks: opened in setup, closed in release
  std::string scratch_prefix;     // I/O benchmarks: path prefix of this group's files
  // Collectives. IMB 3.1 moves a rooted operation's root round robin; current IMB keeps it at 0
  // (-root_shift off, its default) and puts a barrier between repetitions (-sync on, its
  // default), timing each repetition alone so that none overlaps the next.
  bool root_shift = true;
  int fixed_root = 0;  // the root without root_shift (OSU's -k fixed:N; IMB: 0)
  bool barrier_between_repetitions = false;
  // The barrier before the timed loop and between repetitions: MPI_Barrier, or for collectives
  // under current IMB's -imb_barrier on a dissemination barrier of point-to-point messages.
  void (*barrier)(MPI_Comm) = mpi_barrier;
  // Windowed kernels (OSU's osu_bw, osu_bibw, osu_mbw_mr; current IMB's Uniband, Biband): the
  // messages in flight per repetition (OSU's -W, IMB's -window_size: EngineSettings::window_size).
  int in_flight = 1;
  // Threaded kernels (OSU's osu_latency_mt): the threads each rank runs (Benchmark::
  // threads_per_rank); thread t's messages are X bytes of their own at t·X in the buffers.
  std::vector<int> threads_per_rank;
  int threads_of(int r) const {
    if (threads_per_rank.empty()) return 1;
    return threads_per_rank[std::min(static_cast<std::size_t>(r), threads_per_rank.size() - 1)];
  }
  // IMB-MT (EngineSettings::threads): the team of this process's threads, each running the point
  // on a communicator and buffers of its own, and this one's index; -check's patterns of thread
  // t are those of rank + t·nprocs, so that a message crossing into another thread's communicator
  // counts as wrong. Pairs (IMB-MT's -stride): rank r with r ± pair_stride.
  ThreadTeam* team = nullptr;
  int thread = 0;
  int pattern_base = 0;
  int pair_stride = 0;
  // IMB-MT's pairs and rings, found once per point (its set-up) so that no repetition divides:
  // the partner (-1: this rank sits out), whether it sends first, and the ring's neighbours.
  struct Peers {
    int partner = -1;
    bool sends_first = false;
    int left = -1, right = -1;
  } peers;
  TimerReads timer_reads = TimerReads::AroundLoop;
  // False on the ranks whose time does not count (Benchmark::timed_rank): they make no
  // per-repetition timer reads, which would delay their partner's timed repetitions.
  bool reads_timer = true;
  // Untimed repetitions the timed loop runs after its barriers and before its first timer read
  // (OSU's skip iterations, in the same loop as the timed ones); set around the timed loop only.
  int untimed_lead = 0;

  static void mpi_barrier(MPI_Comm comm) { MPI_Barrier(comm); }
  // The synchronisation before timed loops and between repetitions: `barrier`, or on a team
  // current IMB-MT's (team_barrier).
  void synchronise() const {
    if (team != nullptr)
      team_barrier(*this);
    else
      barrier(comm);
  }

  bool aggregate() const { return aggregation == Aggregation::Aggregate; }
  // Aggregate mode sends the M transfers of a sample to disjoint places (guide 4.2.2.2.2).
  std::size_t target_offset(int i) const {
    return aggregate() ? static_cast<std::size_t>(i) * bytes : 0;
  }

  MPI_Aint window_base(int target) const {
    return window_bases.empty() ? 0 : window_bases[static_cast<std::size_t>(target)];
  }
  // Where byte x of the messages lies in the buffers: x, or under -contig_type resize with every
  // element followed by a gap (the second of Exchange's sends starts at place(bytes)).
  std::size_t place(std::size_t x) const {
    if (element_spacing == 0) return x;
    return x / spaced_element * element_spacing + x % spaced_element;
  }
  // How far apart messages with X bytes of their own (a window's, a thread's) lie, so that none
  // overlaps the next.
  std::size_t message_slot() const { return std::max(bytes, message_span); }
  int root(int i) const { return root_shift ? i % nprocs : fixed_root; }  // of repetition i
  // A rooted collective in place (OSU's -l): MPI_IN_PLACE at repetition i's root, `others`
  // elsewhere.
  const void* in_place_at_root(int i, const void* others) const {
    return rank == root(i) ? MPI_IN_PLACE : others;
  }
  int left() const { return (rank - 1 + nprocs) % nprocs; }
  int right() const { return (rank + 1) % nprocs; }
  std::byte* send(int i) const { return buffers->send(i); }
  std::byte* recv(int i) const { return buffers->recv(i); }
};

using IterateFn = void (*)(PointContext&, int iteration);
using CompleteFn = void (*)(PointContext&);
using LoopFn = double (*)(PointContext&, int repetitions, int barriers);
using SampledLoopFn = double (*)(PointContext&, int repetitions, int barriers, double* samples);

// "Assure completion" for benchmarks that need none (all of IMB-MPI1).
inline void already_complete(PointContext&) {}

// IMB 5.2.8: N_BARR barriers, then the repetitions between two MPI_Wtime calls, completion
// assured after each transfer or, in aggregate mode, once after all of them. A template so that
// the kernel calls are inlined: the harness adds nothing to what is timed. OSU's loops are the
// same with its skip iterations first (ctx.untimed_lead) and the timer read as ctx.timer_reads.
template <IterateFn Transfer, CompleteFn Complete>
double timed_loop(PointContext& ctx, int repetitions, int barriers) {
  for (int b = 0; b < barriers; ++b) ctx.synchronise();
  for (int i = 0; i < ctx.untimed_lead; ++i) {
    Transfer(ctx, i);
    Complete(ctx);
    if (ctx.barrier_between_repetitions) ctx.synchronise();
  }
  if (ctx.barrier_between_repetitions || ctx.timer_reads == TimerReads::EachRepetition) {
    // Current IMB's -sync on and OSU: each repetition timed alone, a barrier after it untimed.
    const bool reads = ctx.reads_timer || ctx.barrier_between_repetitions;
    double total = 0;
    for (int i = 0; i < repetitions; ++i) {
      const double start = reads ? MPI_Wtime() : 0;
      Transfer(ctx, i);
      Complete(ctx);
      if (reads) total += MPI_Wtime() - start;
      if (ctx.barrier_between_repetitions) ctx.synchronise();
    }
    return total;
  }
  const double start = MPI_Wtime();
  if (ctx.aggregate()) {
    for (int i = 0; i < repetitions; ++i) Transfer(ctx, i);
    Complete(ctx);
  } else if (ctx.timer_reads == TimerReads::AroundLoopAndEachRepetition && ctx.reads_timer) {
    for (int i = 0; i < repetitions; ++i) {
      // OSU reads these for statistics mpiscope does not print; their cost is what counts.
      [[maybe_unused]] const volatile double before = MPI_Wtime();
      Transfer(ctx, i);
      Complete(ctx);
      [[maybe_unused]] const volatile double after = MPI_Wtime();
    }
  } else {
    for (int i = 0; i < repetitions; ++i) {
      Transfer(ctx, i);
      Complete(ctx);
    }
  }
  return MPI_Wtime() - start;
}

// The same loop reading the timer after every repetition; samples[i] is repetition i's time
// (in aggregate mode the final completion counts in the last sample).
template <IterateFn Transfer, CompleteFn Complete>
double sampled_loop(PointContext& ctx, int repetitions, int barriers, double* samples) {
  for (int b = 0; b < barriers; ++b) ctx.synchronise();
  double total = 0;
  double previous = MPI_Wtime();
  for (int i = 0; i < repetitions; ++i) {
    Transfer(ctx, i);
    if (!ctx.aggregate() || i + 1 == repetitions) Complete(ctx);
    const double now = MPI_Wtime();
    samples[i] = now - previous;
    total += samples[i];
    if (ctx.barrier_between_repetitions) ctx.synchronise();  // untimed, as in timed_loop
    previous = ctx.barrier_between_repetitions ? MPI_Wtime() : now;
  }
  return total;
}

// One repetition outside any timed loop (warm-up, -check): transfer, then assure completion.
// A setup that splits the point's count elements over the ranks as blocks in rank order, the
// first count mod nprocs ranks one element more (PointContext::counts and displs): IMB's
// Reduce_scatter (guide 3.3.4.2), whose recvcounts OSU 7.4's osu_reduce_scatter gives too, and
// the guidelines' Scatter + Allgather.
inline void split_evenly(PointContext& c) {
  const int r = c.count / c.nprocs, s = c.count % c.nprocs;
  int displ = 0;
  for (int rank = 0; rank < c.nprocs; ++rank) {
    c.counts.push_back(rank < s ? r + 1 : r);
    c.displs.push_back(displ);
    displ += c.counts.back();
  }
}

template <IterateFn Transfer, CompleteFn Complete>
void single_repetition(PointContext& ctx, int i) {
  Transfer(ctx, i);
  Complete(ctx);
}

struct Kernel {
  IterateFn iterate = nullptr;    // one complete repetition
  CompleteFn complete = nullptr;  // assure completion alone (separates -check passes)
  LoopFn loop = nullptr;
  SampledLoopFn sampled = nullptr;
};
template <IterateFn Transfer, CompleteFn Complete = already_complete>
constexpr Kernel kernel() {
  return {&single_repetition<Transfer, Complete>, Complete, &timed_loop<Transfer, Complete>,
          &sampled_loop<Transfer, Complete>};
}

// For -check: after repetition `iteration`, receive bytes [recv_offset, recv_offset+length) hold
// bytes [source_offset, …) of the pattern of group rank `source`; for the sums (FloatSum,
// CharSum; source == kAllRanks) they hold the element-wise sum of every rank's elements.
struct ExpectedBlock {
  static constexpr int kAllRanks = -1;
  static constexpr int kOwnFloats = -2;  // a sum: this rank's own elements (a local reduction)
  std::size_t recv_offset = 0;
  int source = 0;
  std::size_t source_offset = 0;
  std::size_t length = 0;
};

// How a benchmark with a blocking_twin measures overlap.
enum class OverlapMethod {
  // IMB-IO (guide 4.2.5): CPU work of the calibrated size (--cpu-target), t_CPU one call timed
  // alone next to the point; overlap over min(t_pure, t_CPU), each time the slowest rank's.
  FixedWork,
  // IMB-NBC (current IMB): CPU work sized to each rank's own t_pure, t_CPU the mean of the calls
  // inside the timed loop; overlap over max(t_pure, t_CPU), all three times of the rank with the
  // largest t_ovrl.
  WorkSizedToPure,
  // OSU 7.4's non-blocking collectives: CPU work that computes until its own time reaches each
  // rank's t_pure (cpu_exploit::work_for(), with EngineSettings::overlap_probes MPI_Test calls
  // inside), t_CPU the loop's mean less those calls; t_ovrl, t_pure and t_CPU the means over the
  // ranks, overlap over t_pure.
  WorkTimedToPure,
};

struct Benchmark {
  std::string name;
  Family family = Family::Collective;
  Datatype datatype = Datatype::Byte;
  double turnover = 0;       // messages per repetition in the throughput (nmsg); 0: none shown
  double time_factor = 1.0;  // reported time = factor · measured time (PingPong: Δt/2)
  int fixed_processes = 0;   // single transfer: exactly this many active processes (0: the series)
  bool turnover_per_process = false;  // throughput counts every process's X (parallel I/O)
  bool rooted = false;                // root moves round robin unless -root_shift off
  bool sized = true;                  // false: no message length (Barrier)
  std::size_t unit = 1;  // lengths are multiples of this (sizeof(float) for reductions)
  // The modes it runs in, each a table of its own; None: a single, unnamed mode.
  std::vector<Aggregation> modes = {Aggregation::None};
  bool nonaggregate_repetitions = false;  // None mode counted with MSGS_NONAGGR (IMB-EXT Window)
  // Bytes per process for length X on nprocs processes, n_sample repetitions.
  BufferShape (*shape)(std::size_t bytes, int nprocs, int repetitions) = nullptr;
  void (*setup)(PointContext&) = nullptr;    // counts, displacements, windows: before timing
  void (*release)(PointContext&) = nullptr;  // undoes setup; must accept a context twice
  // Persistent collectives (IMB-MPI4, OSU's *_persistent): the point's request, made once per
  // length after setup on repetition 0's buffers, into PointContext::persistent[0]; the engine
  // frees it with the point, and the kernel only starts and completes it (start_persistent).
  void (*make_request)(PointContext&, MPI_Request*) = nullptr;
  Kernel kernel;
  std::vector<ExpectedBlock> (*expected)(const PointContext&, int iteration) = nullptr;
  // -check of data that does not arrive in the receive buffer (file writes): fetch it there.
  void (*fetch_for_check)(PointContext&) = nullptr;
  // -check of a call that takes its input from the receive buffer (OSU's -l, MPI_IN_PLACE): puts
  // it there, after the buffer is cleared and before the call.
  void (*prepare_check)(PointContext&, int iteration) = nullptr;
  // Non-blocking benchmarks with CPU overlap (IMB-IO I-variants, IMB-NBC): the equivalent without
  // CPU work that gives t_pure; the kernel itself calls cpu_exploit::run() between starting and
  // finishing a transfer.
  const Benchmark* blocking_twin = nullptr;
  OverlapMethod overlap_method = OverlapMethod::FixedWork;
  bool uses_files = false;  // the engine names a scratch-file prefix for it
  // false: runs only when named (or -include'd): benchmarks of later IMB versions, so that the
  // default list stays IMB 3.1's.
  bool in_default_list = true;
  bool warm_up = true;  // N_WARMUP runs before the first length (IMB-MPI1 and IMB-EXT)
  // An untimed barrier after each repetition whatever the family (OSU's multi-pair benchmarks).
  bool barrier_between_repetitions = false;
  // Throughput from the ranks' mean time rather than t_max (OSU's multi-pair figures average
  // the pairs).
  bool throughput_from_mean = false;
  // Each of the PointContext::in_flight messages of a repetition has X bytes of its own in the
  // buffers, message j at j·X (OSU's one-sided bandwidth, and its -b multiple); the buffers are
  // sized for the window.
  bool window_slots = false;
  // Threads the kernel runs on rank r (the last entry for the ranks past the end), each with X
  // bytes of its own in the buffers; empty: the calling thread alone. The kernel makes them.
  std::vector<int> threads_per_rank = {};
  // Messages in flight per repetition of this benchmark (OSU's -V: a table per window size);
  // 0: the run's EngineSettings::window_size.
  int window = 0;
  // A repetition moves a window of messages (IMB's Uniband and Biband, OSU's bandwidth programs):
  // its time is not one message's, and no latency curve is modelled from it (core/curve_model).
  bool windowed = false;
  // How its timed loop reads the timer (OSU's programs: as OSU 7.4's loops do).
  TimerReads timer_reads = TimerReads::AroundLoop;
  // Windowed bandwidth (current IMB's Uniband, Biband): a repetition moves a window of
  // PointContext::in_flight messages per turnover unit; rows also give messages per second.
  bool message_rate = false;
  // The reported time is one message's (IMB-MT's UniBandMT, BiBandMT: time_factor divides by the
  // window), so the message rate and throughput do not count the window again.
  bool time_per_message = false;
  // The message rate from the mean time over the ranks (IMB-MT) rather than t_max.
  bool message_rate_from_mean = false;
  // The first half of the processes paired with the second: even process counts only.
  bool pairs = false;
  // Passive-target one-sided benchmarks (IMB-RMA): only the origins' times make the row, as
  // Intel's IMB leaves the targets' out (nullptr: every active rank's time counts).
  bool (*timed_rank)(const PointContext&) = nullptr;
  // The throughput counts X once for each of the Q - 1 other processes (IMB-RMA's One_put_all,
  // One_get_all, Put_all_local, Get_all_local: one origin addresses every other process).
  bool turnover_per_peer = false;
  // A single unnamed mode whose completion (a flush) comes once after the sample's transfers,
  // as in the aggregate mode (IMB-RMA's One_/All_put_all, One_/All_get_all, *_all_local).
  bool complete_once_per_sample = false;
  // Runs at this one length only, whatever the length options (IMB-RMA's Fetch_and_op and
  // Compare_and_swap: one element); 0: the suite's lengths.
  std::size_t only_length = 0;
  // Overlap tables print t_pure and t_ovrl only (IMB-RMA's Truly_passive_put, where the target
  // computes while the origin puts).
  bool pure_and_ovrl_only = false;
  // The table's parameters as its suite names them, copied into every BenchmarkRun (OSU's
  // datatype, which two tables of one benchmark differ by under -T all).
  std::map<std::string, std::string> parameters = {};
};

}  // namespace mpiscope::core
