// A SKaMPI run: the suites of a configuration measured one after another on all processes,
// written to the output file (one block per finished suite), the log file and the reporters;
// restart after a crash; the post-processor.
#pragma once
#include <string>
#include <vector>

#include "cli/method_options.hpp"
#include "cli/suite_cli.hpp"
#include "suites/skampi/config.hpp"
#include "suites/skampi/output_file.hpp"

namespace mpiscope::skampi {

struct RunOptions {
  Config config;
  cli::OutputOptions output;
  cli::MethodOptions method;  // --method accurate: the core's repetitions replace SKaMPI's rule
  std::vector<std::string> command_line;
};

// Every rank; returns the exit code.
int run_skampi(const RunOptions& o, int thread_level);

// Merges output files into medians and writes `out` (rank 0).
void run_postproc(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace mpiscope::skampi
