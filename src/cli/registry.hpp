// The suites mpiscope knows, registered by the suites themselves (the Google Benchmark way), so
// that adding a suite touches no central list: a front end defines a SuiteEntry and registers it
// with MPISCOPE_REGISTER_SUITE in one of its .cpp files.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mpiscope::cli {

// argc/argv start at the suite's own arguments (argv[0] is the suite or alias name); program is
// the name to use in messages; command_line is the whole command line, for the run metadata.
using SuiteMain = std::function<int(int argc, char** argv, const std::string& program,
                                    const std::vector<std::string>& command_line)>;

// A legacy program name: `com …` runs as `mpiscope presta com …`.
struct Alias {
  std::string program;                    // e.g. "IMB-MPI1", "b_eff", "com"
  std::vector<std::string> leading_args;  // put before the user's arguments, e.g. {"com"}
};

struct SuiteEntry {
  std::string name;  // the subcommand, e.g. "imb-mpi1"
  std::string summary;
  std::vector<Alias> aliases;
  int order = 100;  // position in `mpiscope --help`
  SuiteMain main;
};

bool register_suite(SuiteEntry entry);
// In --help order.
std::vector<SuiteEntry> registered_suites();

}  // namespace mpiscope::cli

#define MPISCOPE_CONCAT_INNER(a, b) a##b
#define MPISCOPE_CONCAT(a, b) MPISCOPE_CONCAT_INNER(a, b)
// Registers at static initialisation; the library is an object library, so nothing is dropped.
#define MPISCOPE_REGISTER_SUITE(...)                                                         \
  [[maybe_unused]] static const bool MPISCOPE_CONCAT(mpiscope_suite_registered_, __LINE__) = \
      ::mpiscope::cli::register_suite(__VA_ARGS__)
