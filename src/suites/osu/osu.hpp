// The OSU micro-benchmarks on the measuring engine: what each program is (its title, columns,
// defaults, process count) and the engine benchmark that measures it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::osu {

// The figure a program prints, which also fixes OSU's iteration defaults (osu_util.c).
enum class Figure {
  kLatency,     // osu_latency, osu_multi_lat: Avg Latency(us), LAT_LOOP_* iterations
  kBandwidth,   // osu_bw, osu_bibw: Bandwidth (MB/s), BW_LOOP_*
  kRate,        // osu_mbw_mr: MB/s and Messages/s, BW_LOOP_*
  kCollective,  // blocking collectives: Avg Latency(us) over ranks, COLL_LOOP_*
  kOverlap,     // non-blocking collectives: Overall, Compute, Pure Comm. and Overlap, COLL_LOOP_*
  kOneSided,    // osu_put_latency, osu_acc_latency, …: Latency (us) of rank 0, LAT_LOOP_*
  kOneSidedBandwidth,  // osu_put_bw, osu_get_bw, osu_put_bibw: Bandwidth (MB/s), BW_LOOP_*
  kStartup             // osu_hello, osu_init: no loop (startup.cpp)
};

inline bool is_one_sided(Figure f) {
  return f == Figure::kOneSided || f == Figure::kOneSidedBandwidth;
}

// The collectives (blocking or not): iteration defaults, sizes up to 1 MiB, -M.
inline bool is_collective(Figure f) {
  return f == Figure::kCollective || f == Figure::kOverlap;
}

struct Program {
  std::string name;   // "osu_bw", also the alias
  std::string title;  // "OSU MPI Bandwidth Test", as the header line prints it
  Figure figure = Figure::kLatency;
  bool exactly_two = false;  // OSU refuses any other process count
  // Collectives whose memory grows with the process count (-M caps X·nprocs, not X).
  bool per_process_buffers = false;
  bool sized = true;  // false: osu_barrier
  // One-sided: only post/start/complete/wait and fence (OSU's ACTIVE_SYNC: osu_put_bibw).
  bool active_target_only = false;
  // One-sided: -w's and -s's defaults, as the program's main() sets them.
  const char* default_window = "allocate";
  const char* default_sync = "flush";
  bool prints_datatype = true;  // false: osu_get_acc_latency's header has no "# Datatype:" line
  const char* version = "7.4";  // the OMB release its title line names (7.5: partitioned)
  // Not OSU's: osu_get_mbw and osu_get_multi_lat come from a fork of OSU 7.4 (the cMPI
  // project's): every rank of the first half the origin of the rank P/2 above it, all pairs at
  // once, in -s flush only.
  bool multi_pair_one_sided = false;
  // A ping-pong measured twice, alone and overlapped with CPU work, whose table has the
  // non-blocking collectives' Overall, Compute, Pure Comm. and Overlap (osu_partitioned_latency).
  bool overlapped_ping_pong = false;
};

// The one-sided programs' -w and -s (osu_util_mpi.c's process_one_sided_options).
enum class WindowCreation { Create, Allocate, Dynamic };
enum class Sync { Lock, Pscw, Fence, Flush, FlushLocal, LockAll };
// The word -w / -s takes ("allocate", "flush_local"); the name OSU's header prints
// ("MPI_Win_allocate", "MPI_Win_flush_local"), from its win_info and sync_info.
const std::vector<std::pair<std::string, WindowCreation>>& window_creation_words();
const std::vector<std::pair<std::string, Sync>>& sync_words();
std::string window_creation_name(WindowCreation w);
std::string sync_name(Sync s);

const std::vector<Program>& programs();
inline bool is_fan(const Program& p) {  // osu_bw_fan_in, osu_bw_fan_out
  return p.name.rfind("osu_bw_fan_", 0) == 0;
}
const Program* find_program(const std::string& name);  // nullptr if unknown

// What the tables of a program are in the result model, whether measured or imported from OSU's
// own output (db/import.cpp): their family (core::family_name) and their process count where
// the program fixes it (0: the launch's, which OSU's output does not print).
struct TableKind {
  std::string family;
  int nprocs = 0;
};
TableKind table_kind(const Program& p);

// OSU 7.4's -T types (osu_util.c): char (the default), int and float, its words "mpi_" and the
// element's name.
using OsuType = core::ElementType;
const std::vector<OsuType>& osu_types();
const OsuType* find_osu_type(const std::string& word);  // "MPI_INT", case-insensitive; or nullptr
std::string osu_type_word(const OsuType& t);            // "mpi_int"

// The engine benchmark measuring `p` with `window` messages in flight on `world_size` ranks, on
// OSU's -T type (the one-sided programs move bytes whatever it is). Bandwidth benchmarks report
// the time per message (the window's time divided by the messages it moves), so that the
// engine's throughput nmsg·X / t is OSU's figure with nmsg = 1.
struct BenchmarkChoices {
  int window = 64;                                     // -W
  int world_size = 2;                                  // the ranks taking part
  WindowCreation creation = WindowCreation::Allocate;  // -w
  Sync sync = Sync::Flush;                             // -s
  OsuType type = osu_types().front();                  // -T
  bool in_place = false;                               // -l (has_in_place_form programs)
  bool buffer_per_message = false;                     // -b multiple (the windowed programs)
  int sender_threads = 1, receiver_threads = 2;        // -t S:R (osu_latency_mt)
  int partitions = 8;                                  // -q (osu_partitioned_latency)
  int fan_edges = 0;  // osu_bw_fan_*: parent-child pairs, ppn x (nodes - 1) (FanLayout)
};
core::Benchmark benchmark_for(const Program& p, const BenchmarkChoices& c);

// point_to_point.cpp
// OSU 7.4 times each iteration between two MPI_Wtime reads of its own and sums them, on the
// ranks that send first (rank 0; every pair's first rank in osu_mbw_mr and osu_multi_lat); their
// partners read no timer: `b` in `family`, timed so.
core::Benchmark in_family(core::Benchmark b, core::Family family);
// buffer_per_message: -b multiple, every message of a window in X bytes of its own.
core::Benchmark windowed_bandwidth(bool buffer_per_message);    // osu_bw
core::Benchmark windowed_bibandwidth(bool buffer_per_message);  // osu_bibw
core::Benchmark multi_pair_bandwidth(bool buffer_per_message);  // osu_mbw_mr
core::Benchmark multi_pair_latency();                           // osu_multi_lat
core::Benchmark ping_pong_latency();             // osu_latency (IMB's PingPong kernel)
core::Benchmark persistent_ping_pong_latency();  // osu_latency_persistent
// partitioned.cpp: osu_partitioned_latency, the ping-pong through MPI 4.0's partitioned requests
// of `partitions` partitions of `type`, overlapped with CPU work, its pure pass the twin (a
// library without them says "not run" at every size).
bool library_has_partitioned_communication();
core::Benchmark partitioned_latency(int partitions, const OsuType& type);
// threads.cpp: osu_latency_mt, rank 0's `senders` threads and rank 1's `receivers` sharing the
// ping-pong's iterations.
core::Benchmark threaded_ping_pong_latency(int senders, int receivers);
// processes.cpp: osu_latency_mp, the ping-pong with a barrier before each iteration, run while
// the ranks have ForkedChildren.
core::Benchmark forked_ping_pong_latency();
// `count` children of this process that sleep kChildSleepSeconds and leave (_exit); waited for
// on destruction. Made before the run and kept through it.
inline constexpr int kChildSleepSeconds = 2;  // CHILD_SLEEP_SECONDS
class ForkedChildren {
 public:
  explicit ForkedChildren(int count);
  ~ForkedChildren();
  ForkedChildren(const ForkedChildren&) = delete;
  ForkedChildren& operator=(const ForkedChildren&) = delete;

 private:
  std::vector<int> children_;  // their process ids
};
// osu_bw_persistent (both_ways: osu_bibw_persistent): osu_bw's (osu_bibw's) window through
// persistent requests.
core::Benchmark persistent_windowed_bandwidth(bool both_ways, bool buffer_per_message);
// congestion.cpp: osu_bw_fan_in and osu_bw_fan_out. fan_layout (collective over `comm`) finds
// the nodes by MPI_Get_processor_name: the fan's graph of parent → child edges, or why the
// processes make no fan (one node; nodes with different process counts), alike on every rank.
struct FanLayout {
  std::string error;          // empty: a fan
  int nodes = 0, ppn = 0;     // nodes, and processes on each
  std::string parent_node;    // the first node in name order, whose processes are the parents
  core::Neighbourhood graph;  // parent → child edges (EngineSettings::neighbourhood)
};
FanLayout fan_layout(MPI_Comm comm);
core::Benchmark fan_bandwidth(bool fan_in, bool buffer_per_message);
// collectives.cpp: the IMB-MPI1 kernel making the same MPI call, renamed.
// one_sided.cpp: the one-sided program `p` with window `w` and synchronisation `s`, on IMB-RMA's
// calls.
core::Benchmark one_sided(const Program& p, WindowCreation w, Sync s);
core::Benchmark collective(const std::string& osu_name);
// osu_<op>_persistent (is_persistent_collective): the blocking program's benchmark through a
// persistent request made once per size (IMB-MPI4's, imb::mpi4::request_maker), each iteration
// started and completed.
bool is_persistent_collective(const Program& p);
// neighbourhood.cpp: osu_neighbor_* and osu_ineighbor_* on -N's topology
// (EngineSettings::neighbourhood): the blocking program's benchmark, and the non-blocking one's
// overlapped benchmark with its _pure twin (no twin pointer set).
bool is_neighbourhood_collective(const std::string& program);
core::Benchmark neighbourhood_collective(const std::string& program);
std::pair<core::Benchmark, core::Benchmark> neighbourhood_nonblocking_pair(
    const std::string& program);
// The lines OSU 7.4 prints before their title, valid on rank 0 of `comm`: the Cartesian shape
// ("Dimensions size = 3 ") and the mean over the ranks of one MPI_Dist_graph_create_adjacent
// of the topology, timed ("Time took to create topology graph:12.34 us."). Collective.
std::string topology_lines(const core::Neighbourhood& n, MPI_Comm comm);
core::Benchmark persistent_collective(const std::string& osu_name, bool in_place = false);
// `b` on OSU's type `t`, size / sizeof(element) elements at each size, sizes of no whole element
// left out: a reduction (IMB's MPI_FLOAT sum) sums t's element, a transfer moves it; a benchmark
// of no length is returned unchanged.
core::Benchmark on_osu_datatype(core::Benchmark b, const OsuType& t);
// nonblocking.cpp: the IMB-NBC benchmark making the same MPI call (and its _pure twin), renamed,
// with OSU's overlap rule.
core::Benchmark nonblocking_collective(const std::string& osu_name, const OsuType& type,
                                       bool in_place = false);
// in_place.cpp: -l, the collectives OSU 7.4 calls with MPI_IN_PLACE: whether `program` (blocking
// or not) has that form; the blocking program's benchmark in it; the non-blocking program's
// overlapped benchmark and its _pure twin in it (no twin pointer set).
bool has_in_place_form(const std::string& program);
core::Benchmark in_place_collective(const std::string& program);
std::pair<core::Benchmark, core::Benchmark> in_place_nonblocking_pair(const std::string& program);
// startup.cpp: osu_hello's line, or osu_init's MPI_Init times over the ranks (a table of one
// row); returns the exit code.
struct Options;
int run_startup(const Program& p, const Options& o, int thread_level,
                const std::vector<std::string>& command_line);

}  // namespace mpiscope::osu
