// What every front end does around the engine: start MPI, let rank 0 read the command line and
// files and tell the others, report bad input once and exit non-zero on every rank without a
// hang, and turn unexpected failures into one message and an abort of the whole job.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/registry.hpp"
#include "core/heap_policy.hpp"

namespace mpiscope::core {
struct SuiteOutcome;
}

namespace mpiscope::cli {

enum ExitCode : int {
  kOk = 0,
  kRunFailed = 1,    // some measurement could not run (allocation, I/O)
  kUsage = 2,        // bad command line or input file
  kCheckFailed = 3,  // -check found defects
  // 4 is the --timeout watchdog's (core/watchdog.cpp)
  kIncomplete = 5,  // every point that ran is right, but some were skipped (-mem, count limit)
  kCannotTell = 6,  // compare --fail-above: no slowdown found, but some row could not show one
};

// Input a suite cannot take (a command line, an input file): rank 0's parse throws it, and the run
// ends with its message once and exit 2 (kUsage) on every rank, as any exception from parse does.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParseResult {
  enum Kind { kRun, kHelp, kError } kind = kRun;
  std::string text;  // serialized options, help text or error message
};

// A list printed by rank 0 instead of a run (IMB's -list): one entry per line.
ParseResult listing(const std::vector<std::string>& entries);

struct FrontEnd {
  std::string program;         // as the user called it, for messages
  std::string help = "-help";  // the option that lists the options (IMB's; CLI11's is --help)
  // Runs on rank 0 only; may throw (the message becomes the error).
  std::function<ParseResult(const std::vector<std::string>& args, int world_size)> parse;
  // Runs on every rank with rank 0's serialized options; returns the exit code.
  std::function<int(const std::string& options, int thread_level)> run;
  // The MPI thread level the command line asks for, read on every rank before MPI starts (IMB's
  // -thread_level); empty: MPI_THREAD_SINGLE. --timeout raises it to FUNNELED at least. A library
  // that gives some rank less ends the run with one error from rank 0 and exit 1 (kRunFailed).
  std::function<int(const std::vector<std::string>& args)> thread_level;
  // The C library's heap when neither MPISCOPE_HEAP nor the user's thresholds say
  // (heap_policy.hpp).
  core::HeapPolicyKind heap = core::HeapPolicyKind::Fixed;
  // Environment variables every rank sets before MPI_Init unless the user set them (tune: Open
  // MPI's coll_tuned_use_dynamic_rules, which the library reads only then).
  std::vector<std::pair<std::string, std::string>> environment;
};

int run_front_end(const FrontEnd& fe, int argc, char** argv);

// What a suite's parse and run see of the launch.
struct Launch {
  std::string program;                    // as the user typed it, for messages
  std::vector<std::string> command_line;  // the whole command line, for the run's metadata
};

// The one front-end skeleton of every suite: rank 0 parses the arguments into the options it
// hands to the other ranks (their JSON), and every rank runs them; run_front_end() does the rest
// (MPI, agreement, errors). A suite supplies these and registers main_of(them).
struct SuiteFrontEnd {
  std::string help = "--help";           // the option that lists the options
  bool program_with_subcommand = false;  // messages name "mpiscope osu osu_bw", not "mpiscope osu"
  std::function<ParseResult(const Launch&, const std::vector<std::string>& args, int world_size)>
      parse = nullptr;
  std::function<int(const Launch&, const std::string& options, int thread_level)> run = nullptr;
  std::function<int(const std::vector<std::string>& args)> thread_level = nullptr;  // FrontEnd's
  core::HeapPolicyKind heap = core::HeapPolicyKind::Fixed;                          // FrontEnd's
  std::vector<std::pair<std::string, std::string>> environment = {};                // FrontEnd's
};

// The SuiteEntry::main of a suite.
SuiteMain main_of(SuiteFrontEnd suite);

// The program as the user typed it, for messages: `com` for an alias, `mpiscope presta com` when
// argv[1] names a program of the suite `program`.
std::string program_as_typed(const std::string& program, int argc, char** argv);

// The exit code of an engine run: a failed point, then defects found by -check, then skipped
// points, in that order of weight.
int exit_code(const core::SuiteOutcome& outcome);

}  // namespace mpiscope::cli
