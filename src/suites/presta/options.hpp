// The PRESTA command lines (README "Benchmark Test Descriptions"): com, laten and rma take the
// single-letter options of PRESTA 1.1 with its defaults; allred takes its three numbers; globalop
// has no PRESTA option. Every test also takes mpiscope's --json, --csv and --timeout, and the
// measurement method (--method classic|accurate and accurate mode's options).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/method_options.hpp"
#include "cli/suite_cli.hpp"
#include "suites/presta/pairing.hpp"

namespace mpiscope::presta {

enum class Test { kCom, kLaten, kRma, kAllred, kGlobalop };
const std::vector<std::string>& test_names();  // com, laten, rma, allred, globalop
Test test_named(const std::string& name);      // throws UsageError

struct Options {
  Test test = Test::kCom;
  // com, laten, rma
  long long size_start = 32;        // -b
  long long size_stop = 8388608;    // -e
  long long size_factor = 2;        // -s
  int ops = 0;                      // -o: operations between measurements (rma: per epoch)
  int epochs = 0;                   // -c: epochs between measurements (rma)
  std::string process_file;         // -f
  int procs_per_smp = 0;            // -t
  char allocation = 'b';            // -p
  bool print_pairs = false;         // -i
  bool barrier = true;              // cleared by -n
  bool nearest = false;             // -r
  std::vector<int> process_counts;  // from -f or the defaults, decided on rank 0
  // allred
  int compute_iterations = -1, inner_iterations = 0, samples = 0;  // -1, 0: not given
  // globalop (mpiscope extensions: PRESTA's globalop has no options)
  int loop_iterations = 1000, loop_compute_iterations = 1000;
  cli::OutputOptions output;
  cli::MethodOptions method;  // classic: PRESTA's own methodology; accurate: docs/accurate-mode.md
};

Pairing pairing_of(const Options& o, int world_size);

// Parses args (args[0] is the test name) on rank 0. Help gives kHelp; bad input kError.
cli::ParseResult parse(const std::vector<std::string>& args, int world_size,
                       const std::string& program);
// The hand-off to the other ranks (cli/frontend.hpp); Test and `allocation` travel as numbers.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, test, size_start, size_stop, size_factor, ops, epochs,
                                   process_file, procs_per_smp, allocation, print_pairs, barrier,
                                   nearest, process_counts, compute_iterations, inner_iterations,
                                   samples, loop_iterations, loop_compute_iterations, output,
                                   method)

}  // namespace mpiscope::presta
