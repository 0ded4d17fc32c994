// The IMB command line (guide 5.1.2), shared by the IMB-MPI1, IMB-EXT and IMB-IO front ends,
// plus mpiscope's own options (-check, --samples, --io-dir, --cpu-target) and the output and
// method options every suite shares (cli/suite_cli.hpp, cli/method_options.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/method_options.hpp"
#include "cli/suite_cli.hpp"

namespace mpiscope::imb {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  bool help = false;
  std::vector<std::string> benchmarks;  // canonical names, in the order given; empty = all
  int npmin = 2;
  int multi = -1;                  // -1: primary benchmarks; 0/1: Multi, outflag
  double off_cache_mb = 0;         // 0: off; -1: detect (IMB default)
  std::size_t off_cache_line = 0;  // 0: default
  int msgs_per_sample = 1000, msgs_nonaggr = 100;
  std::size_t overall_vol_mb = 40;
  double time_s = 0;                     // -time; 0 = no limit
  std::string warm_up = "on";            // -warm_up: on (current IMB), off, imb3.1
  bool root_shift = true;                // -root_shift: rooted collectives move their root (3.1)
  bool sync = false;                     // -sync: a barrier between collectives' repetitions
  std::string iter_policy = "imb3.1";    // -iter_policy: imb3.1, dynamic, multiple_np, auto, off
  bool imb_barrier = false;              // -imb_barrier: collectives sync with our own barrier
  std::string thread_level = "single";   // -thread_level: single, funneled, serialized, multiple
  int window_size = 256;                 // -window_size: Uniband/Biband messages per window
  double mem_gb = 1.0;                   // -mem; IMB's MAX_MEM_USAGE default
  std::vector<std::size_t> lengths;      // -msglen; empty = defaults
  int msglog_min = 0, msglog_max = -1;   // -msglog [min:]max; max -1: the suite's default
  bool zero_size = true;                 // -zero_size: include the length 0
  std::string aggregate_mode = "multi";  // -aggregate_mode: multi (both), aggregate, non_aggregate
  int map_rows = 0, map_cols = 0;
  bool check = false, samples = false;
  cli::OutputOptions output;                   // --json, --csv, --db, --no-db, --label, --timeout
  std::string io_dir = ".";                    // --io-dir: where IMB-IO puts its files
  std::string run_tag;                         // makes this run's file names unique (set by rank 0)
  double cpu_target_s = 0.1;                   // --cpu-target: IMB-IO's TARGET_CPU_SECS
  cli::MethodOptions method{.method = "imb"};  // --method and the accurate mode's options
};

// The hand-off to the other ranks (cli/frontend.hpp).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, help, benchmarks, npmin, multi, off_cache_mb,
                                   off_cache_line, msgs_per_sample, msgs_nonaggr, overall_vol_mb,
                                   time_s, warm_up, root_shift, sync, iter_policy, imb_barrier,
                                   thread_level, window_size, mem_gb, lengths, msglog_min,
                                   msglog_max, zero_size, aggregate_mode, map_rows, map_cols, check,
                                   samples, output, io_dir, run_tag, cpu_target_s, method)

// Parses argv[1..] (argv[0] excluded) over the suite's defaults. Reads -msglen/-input files.
// `default_list`: what runs when no benchmark is named (empty: every known one). Throws
// UsageError.
Options parse_options(const std::vector<std::string>& args,
                      const std::vector<std::string>& known_benchmarks, int world_size,
                      const Options& defaults = {},
                      const std::vector<std::string>& default_list = {});

// -msglen file: one non-negative length per line (k/K, m/M suffixes), '#' comments.
std::vector<std::size_t> read_lengths_file(const std::string& path);
// -input file: one benchmark name per line, '#' comments.
std::vector<std::string> read_selection_file(const std::string& path);

// -thread_level's value as an MPI thread level; nullopt for a word that is none.
std::optional<int> thread_level_of(const std::string& name);
// The level the command line asks MPI_Init_thread for, read before MPI starts (single when
// -thread_level is absent or its value is wrong: parse_options then rejects it).
int requested_thread_level(const std::vector<std::string>& args);

std::string help_text(const std::string& program, const std::vector<std::string>& benchmarks,
                      const Options& defaults = {});

}  // namespace mpiscope::imb
