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
#include "core/benchmark.hpp"

namespace mpiscope::imb {

using UsageError = cli::UsageError;

// Which IMB's rules a run follows where no option says otherwise (-imb_rules): current IMB's
// (2021, the default: a drop-in for today's IMB) or IMB 3.1's exactly (the specification).
inline constexpr const char* kCurrentRules = "current";
inline constexpr const char* kImb31Rules = "3.1";

// The member defaults are current IMB-MPI1's; a suite's own defaults and IMB 3.1's are set by
// its SuiteOptions (suites/imb/suites.cpp).
struct Options {
  bool help = false;
  std::string rules = kCurrentRules;    // -imb_rules current|3.1
  std::vector<std::string> benchmarks;  // canonical names, in the order given; empty = all
  // Names that are no benchmark of the suite: current IMB says so and runs the others; under IMB
  // 3.1's rules such a name is a usage error.
  std::vector<std::string> unknown_benchmarks;
  int npmin = 2;
  int multi = -1;                  // -1: primary benchmarks; 0/1: Multi, outflag
  double off_cache_mb = 0;         // 0: off; -1: detect (IMB default)
  std::size_t off_cache_line = 0;  // 0: default
  int msgs_per_sample = 1000, msgs_nonaggr = 100;
  std::size_t overall_vol_mb = 40;
  double time_s = 0;                     // -time; 0 = no limit
  std::string warm_up = "on";            // -warm_up: on (current IMB), off, imb3.1
  bool root_shift = false;               // -root_shift: rooted collectives move their root (3.1)
  bool sync = true;                      // -sync: a barrier between collectives' repetitions
  std::string iter_policy = "dynamic";   // -iter_policy: dynamic, multiple_np, auto, off, imb3.1
  bool imb_barrier = false;              // -imb_barrier: collectives sync with our own barrier
  std::string thread_level = "single";   // -thread_level: single, funneled, serialized, multiple
  int window_size = 256;                 // -window_size: Uniband/Biband messages per window
  std::string data_type = "byte";        // -data_type: what IMB-MPI1's transfers move
  std::string red_data_type = "float";   // -red_data_type: what its reductions sum
  std::string contig_type = "base";      // -contig_type: core::LayoutKind's name
  bool msg_pause = false;                // -msg_pause: a pause after each length
  double mem_gb = 1.0;                   // -mem; IMB's MAX_MEM_USAGE default
  std::vector<std::size_t> lengths;      // -msglen; empty = defaults
  int msglog_min = 0, msglog_max = -1;   // -msglog [min:]max; max -1: max_msg_log
  int max_msg_log = 22;                  // without -msglog or -msglen, lengths up to 2^this
  bool zero_size = true;                 // -zero_size: include the length 0
  std::string aggregate_mode = "multi";  // -aggregate_mode: multi (both), aggregate, non_aggregate
  int map_rows = 0, map_cols = 0;
  bool check = false, samples = false;
  cli::OutputOptions output;                   // --json, --csv, --db, --no-db, --label, --timeout
  std::string io_dir = ".";                    // --io-dir: where IMB-IO puts its files
  std::string run_tag;                         // makes this run's file names unique (set by rank 0)
  double cpu_target_s = 0.01;                  // --cpu-target: IMB-IO's TARGET_CPU_SECS
  cli::MethodOptions method{.method = "imb"};  // --method and the accurate mode's options
};

// The hand-off to the other ranks (cli/frontend.hpp).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, help, rules, benchmarks, unknown_benchmarks, npmin,
                                   multi, off_cache_mb, off_cache_line, msgs_per_sample,
                                   msgs_nonaggr, overall_vol_mb, time_s, warm_up, root_shift, sync,
                                   iter_policy, imb_barrier, max_msg_log, thread_level, window_size,
                                   data_type, red_data_type, contig_type, msg_pause, mem_gb,
                                   lengths, msglog_min, msglog_max, zero_size, aggregate_mode,
                                   map_rows, map_cols, check, samples, output, io_dir, run_tag,
                                   cpu_target_s, method)

// IMB 3.1's rules over `current`: its repetition rule (-iter_policy imb3.1), warm-up, rooted
// collectives (-root_shift on -sync off) and megabyte (2^20 bytes).
Options imb31_rules(Options current);

// What a front end's command line is read against: the defaults of each rule set, and which of
// the options that only some IMB programs take this one takes (the others are unknown to it, as
// they are to Intel's program of that name).
struct SuiteOptions {
  Options current = {};             // current IMB's defaults for the suite
  Options imb31 = imb31_rules({});  // IMB 3.1's (-imb_rules 3.1)
  bool collective_options = true;   // -root_shift, -sync (IMB-MPI1, IMB-NBC)
  bool aggregate_modes = true;      // -aggregate_mode (IMB-EXT, IMB-IO, IMB-RMA)
  bool files = true;                // --io-dir, --cpu-target (IMB-IO)
  bool data_types = false;          // -data_type, -red_data_type (IMB-MPI1)
  bool msg_pause = false;           // -msg_pause (IMB-MPI1, IMB-EXT, IMB-RMA)
  // IMB-MPI4: each request is made once per length, on one buffer and with root 0, so that
  // -root_shift on and -off_cache cannot apply (IMB-MPI4 accepts both and ignores them).
  bool persistent_requests = false;
  const Options& defaults(const std::string& rules) const {
    return rules == kImb31Rules ? imb31 : current;
  }
};

// The rule set argv asks for (-imb_rules; current when absent). Throws UsageError for a value
// that names none.
std::string rules_of(const std::vector<std::string>& args);

// Parses argv[1..] (argv[0] excluded) over the defaults of the rule set it asks for. Reads
// -msglen/-input files. `default_list`: what runs when no benchmark is named (empty: every
// known one). Throws UsageError.
Options parse_options(const std::vector<std::string>& args,
                      const std::vector<std::string>& known_benchmarks, int world_size,
                      const SuiteOptions& suite = {},
                      const std::vector<std::string>& default_list = {});

// -msglen file: one non-negative length per line (k/K, m/M suffixes), '#' comments.
std::vector<std::size_t> read_lengths_file(const std::string& path);
// -input file: one benchmark name per line, '#' comments.
std::vector<std::string> read_selection_file(const std::string& path);

// A benchmark name as the suite spells it (any case); UsageError naming the valid ones.
std::string canonical_name(const std::string& name, const std::vector<std::string>& known);
// Current IMB's switch values: on, 1, enable, yes, true; off, 0, disable, no, false (nullopt:
// none of them). switch_value throws UsageError naming the option.
std::optional<bool> switch_word(const std::string& value);
bool switch_value(const std::string& value, const std::string& option);

// -thread_level's value as an MPI thread level; nullopt for a word that is none.
std::optional<int> thread_level_of(const std::string& name);
// The level the command line asks MPI_Init_thread for, read before MPI starts (single when
// -thread_level is absent or its value is wrong: parse_options then rejects it).
int requested_thread_level(const std::vector<std::string>& args);

// The help screen: the synopsis and every option the program takes, from one table, with each
// default under current IMB's rules and, where it differs, under IMB 3.1's.
std::string help_text(const std::string& program, const std::vector<std::string>& benchmarks,
                      const SuiteOptions& suite = {});

}  // namespace mpiscope::imb
