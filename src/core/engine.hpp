// The measuring engine: for each selected benchmark, each process layout and each message length
// it sets up communicators and buffers, agrees across ranks that the point can run, warms up,
// chooses the repetition count, times the kernel, verifies (-check) and collects the times into
// the result model, which it hands to the reporters.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/accurate.hpp"
#include "core/benchmark.hpp"
#include "core/buffers.hpp"
#include "core/element_layout.hpp"
#include "core/repetitions.hpp"
#include "core/reporter.hpp"
#include "core/result.hpp"

namespace mpiscope::core {

// IMB-MT's -malloc_algo: who allocates the threads' buffers, and where.
enum class ThreadBuffers {
  Serial,      // the calling thread, one allocation per thread
  Parallel,    // each thread its own: its pages first touched where they are used
  Continuous,  // the calling thread, one block per direction cut into the threads' buffers,
               // each as long as the table's longest length needs (IMB-MT's layout)
};

struct EngineSettings {
  RepetitionSettings repetitions;
  // Where suites differ from IMB, whose rules are the defaults: how many repetitions a point gets,
  // and the megabyte of the throughput column (OSU, for one, times a fixed count and prints 10^6
  // bytes per second). A suite with other rules sets these instead of forking the engine.
  std::function<int(const RepetitionSettings&, std::size_t bytes, bool aggregate)>
      repetitions_rule = [](const RepetitionSettings& s, std::size_t bytes, bool aggregate) {
        return imb_repetitions(s, bytes, aggregate);
      };
  // Untimed repetitions right before a point's timed ones (with WarmUp::EveryLength), given its
  // length and timed count; empty: current IMB's warm_up_repetitions(n). OSU: -x skip iterations.
  std::function<int(std::size_t bytes, int repetitions)> warm_up_rule;
  // With WarmUp::EveryLength: before those, run the whole point once, untimed, as current IMB
  // does for every length whatever its -warm_up (the iteration policy's probe).
  bool rehearse_each_length = false;
  // Those untimed repetitions run inside the timed loop, after its barriers and right before the
  // first timed one, as OSU's skip iterations do (not with --samples, whose loop has no lead).
  bool warm_up_in_timed_loop = false;
  double bytes_per_megabyte = 1048576.0;
  // Current IMB's time-out: the seconds a table (one benchmark, process count and mode) may run
  // before a length, given how many lengths it has; past them that length is a "time-out" row
  // and the benchmark's remaining lengths, modes and process counts are left out. Empty: none
  // (IMB 3.1, the other suites).
  std::function<double(std::size_t lengths)> table_time_budget_s;
  OffCache off_cache;          // disabled unless -off_cache
  double mem_limit_bytes = 0;  // per process; 0 = no limit
  bool check = false;          // -check: verify received data, add the defects column
  bool keep_samples = false;   // time each repetition separately, keep the samples
  // Whose samples the row keeps: world rank 0's (false), or each repetition's mean over the
  // point's active ranks (OSU's collectives' -z: the ranks' iteration times summed, / P).
  bool samples_mean_over_ranks = false;
  int npmin = 2;
  bool multi = false;
  int multi_outflag = 0;
  int map_rows = 0, map_cols = 0;  // -map PxQ; 0 = identity
  bool root_shift = true;          // collectives: -root_shift (IMB 3.1: on; current IMB: off)
  int fixed_root = 0;              // collectives' root without root_shift (OSU's -k fixed:N)
  bool sync_collectives = false;   // collectives: -sync, a barrier between repetitions (3.1: off)
  bool own_barrier_collectives = false;  // collectives: -imb_barrier, core::own_barrier instead
  bool own_barrier_everywhere = false;   // every benchmark (IMB-MT's -barrier special)
  // IMB-MPI1's -contig_type, OSU's -D: the derived datatype the sized benchmarks' calls name.
  ElementLayout element_layout;
  // OSU's -N: the topology the neighbourhood collectives run on (PointContext::neighbourhood).
  Neighbourhood neighbourhood;
  // The ranks measured, from which every benchmark's communicators are split: MPI_COMM_WORLD, or
  // under OSU's -I a session's (mpi::SessionWorld) with the same ranks.
  MPI_Comm communicator = MPI_COMM_WORLD;
  // IMB-MT: threads per process, each running every point on a communicator and buffers of its
  // own (core/thread_team.hpp), allocated as thread_buffers says. Pairs of its point-to-point
  // benchmarks: rank r with r ± pair_stride (-stride; 0: half the processes).
  int threads = 1;
  ThreadBuffers thread_buffers = ThreadBuffers::Serial;
  int pair_stride = 0;
  int window_size = 1;  // windowed kernels: messages in flight (IMB's -window_size, OSU's -W)
  // Current IMB's -msg_pause: after each length every rank sleeps a tenth of the time it took to
  // measure it, at least 0.1 s (IMB's SLEEP), so that one length's traffic has drained before the
  // next starts.
  bool pause_after_length = false;
  // IMB-P2P's -pause: every rank sleeps this long before each length, so that the last one's
  // traffic has drained.
  double pause_before_length_s = 0;
  double timeout_s = 0;        // --timeout; 0 = none
  std::string scratch_prefix;  // I/O: path prefix of the run's files (directory + name)
  double cpu_target_s = 0.1;   // I/O: TARGET_CPU_SECS of the CPU_Exploit calibration
  int overlap_probes = 0;      // OverlapMethod::WorkTimedToPure: OSU's -t, MPI_Test calls per work
  // --method accurate: each point timed repetition by repetition until its median is known to
  // the target precision (accurate.hpp); false keeps IMB's methodology.
  bool accurate = false;
  AccurateSettings accurate_settings;
};

struct SuitePlan {
  std::string suite;  // for the progress display, e.g. "imb-mpi1"
  std::vector<const Benchmark*> benchmarks;
  std::function<std::vector<std::size_t>(const Benchmark&)> lengths;
};

struct SuiteOutcome {
  bool all_ran = true;  // false: a point was skipped (-mem, MPI's count limit) or failed
  bool failed = false;  // a point failed: allocation, set-up, unusable statistics
  int benchmarks_with_defects = 0;  // -check found wrong data in this many benchmark tables
};

// Collective over MPI_COMM_WORLD; the outcome is the same on every rank. Reporters are called on
// world rank 0 only.
SuiteOutcome run_suite(const SuitePlan& plan, const EngineSettings& settings, Reporter& reporter);

}  // namespace mpiscope::core
