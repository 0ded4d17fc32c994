// OSU's command line (osu_util.c's process_options for the programs mpiscope runs) plus the
// options every mpiscope suite takes (--json, --csv, --db, --method, --timeout).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/suite_cli.hpp"
#include "core/element_layout.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

constexpr std::size_t kLargeMessage = 8192;                      // LARGE_MESSAGE_SIZE
constexpr int kVariedWindows[] = {1, 2, 4, 8, 16, 32, 64, 128};  // WINDOW_SIZES (osu_mbw_mr -V)
constexpr long long kDefaultMemLimit = 512ll << 20;              // MAX_MEM_LIMIT
constexpr long long kLowestMemLimit = 1ll << 20;                 // MAX_MEM_LOWER_LIMIT
constexpr int kMaxThreads = 128;    // MAX_NUM_THREADS: -t's counts are below it
constexpr int kMaxProcesses = 128;  // MAX_NUM_PROCESSES: osu_latency_mp's -t counts are below it

struct Options {
  std::string program;                       // e.g. "osu_bw"
  long long min_size = 0, max_size = 0;      // -m [min:]max, the program's defaults filled in
  int iterations = 0, iterations_large = 0;  // -i sets both
  int skip = 0, skip_large = 0;              // -x sets both
  int window = 64;                           // -W
  int probes = 0;                            // -t: MPI_Test calls in the CPU work (overlap)
  bool full = false;                         // -f
  bool validate = false;                     // -c
  bool in_place = false;                     // -l: MPI_IN_PLACE (has_in_place_form)
  bool buffer_per_message = false;           // -b multiple: windowed programs
  bool vary_window = false;                  // -V (osu_mbw_mr): a table over kVariedWindows
  bool session = false;  // -I: the benchmarks' communicators from an MPI session (MPI 4.0)
  std::vector<std::string> types = {"mpi_char"};  // -T: OSU's type words, a table each in order
  std::vector<int> tail_percentiles;              // -z: percentiles of the iterations; empty: off
  long long mem_limit = kDefaultMemLimit;         // -M, bytes per process
  int root = 0;                                   // -k fixed:N (rooted collectives)
  bool root_rotates = false;                      // -k rotate: iteration i's root is i mod P
  int pairs = 0;                                  // -p (osu_mbw_mr); 0: P / 2
  int partitions = 8;                             // -q (osu_partitioned_latency)
  int sender_threads = 1, receiver_threads = 2;   // -t [S:]R (osu_latency_mt)
  int sender_processes = 2, receiver_processes = 2;  // -t [S:]R (osu_latency_mp): children forked
  bool print_rate = true;                            // -R 0 (osu_mbw_mr): no Messages/s column
  std::string window_creation = "allocate";          // -w (one-sided programs)
  std::string synchronization = "flush";             // -s (one-sided programs; osu_put_bibw: pscw)
  // -D: "" (none), "cont", "vect" (ddt_stride, ddt_block elements) or "indx" (ddt_blocks, each
  // displacement and length in elements, read from ddt_file by rank 0).
  std::string ddt;
  int ddt_stride = 8, ddt_block = 4;  // OMB_DDT_STRIDE_DEFAULT, OMB_DDT_BLOCK_LENGTH_DEFAULT
  std::string ddt_file;
  std::vector<std::array<int, 2>> ddt_blocks;
  // -N (the neighbourhood collectives): "cart:D:R" or "graph:FILE", and the graph's edges, read
  // by rank 0 (core::parse_neighbourhood).
  std::string neighbourhood = "cart:1:1";
  std::vector<std::array<int, 2>> neighbourhood_edges;
  std::vector<std::string> warnings;  // printed by rank 0 before the run, as OSU does
  cli::OutputOptions output;
  cli::MethodOptions method;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, program, min_size, max_size, iterations,
                                   iterations_large, skip, skip_large, window, probes, full,
                                   validate, in_place, buffer_per_message, vary_window, session,
                                   types, tail_percentiles, mem_limit, root, root_rotates, pairs,
                                   sender_threads, receiver_threads, sender_processes,
                                   receiver_processes, partitions, print_rate, window_creation,
                                   synchronization, ddt, ddt_stride, ddt_block, ddt_file,
                                   ddt_blocks, neighbourhood, neighbourhood_edges, warnings, output,
                                   method)

// The programs whose -z figures mpiscope prints: the point-to-point ones OSU computes from rank
// 0's iterations, and the blocking collectives, whose iterations OSU averages over the ranks.
inline bool has_tail_figures(const Program& p) {
  return p.figure == Figure::kCollective || p.figure == Figure::kOverlap ||
         p.name == "osu_latency" || p.name == "osu_latency_mt" || p.name == "osu_latency_mp" ||
         p.name == "osu_latency_persistent" || p.name == "osu_bw" ||
         p.name == "osu_bw_persistent" || p.name == "osu_bibw_persistent" || p.name == "osu_bibw";
}

// OSU 7.4's rooted collectives, which take -k (their root from omb_get_root_rank; osu_bcast's
// is always 0).
bool takes_root(const std::string& program);
// -N's topology as the engine takes it (EngineSettings::neighbourhood).
core::Neighbourhood neighbourhood_of(const Options& o);

// OSU 7.4's programs whose option strings have -D: every sized one but the reductions and the
// one-sided ones.
bool takes_derived_datatype(const Program& p);
// -D as the engine's element layout (packed without -D).
core::ElementLayout element_layout_of(const Options& o);
// -D as the run's settings and the header say it: "vect:8:4", "indx:FILE (3 blocks)".
std::string derived_datatype_text(const Options& o);

// -w's and -s's words as the enums (validated by parse).
WindowCreation window_creation_of(const Options& o);
Sync sync_of(const Options& o);

// args[0] is the program name. Help (-h) and -v give kHelp; bad input kError.
cli::ParseResult parse(const std::vector<std::string>& args, int world_size,
                       const std::string& shown);

}  // namespace mpiscope::osu
