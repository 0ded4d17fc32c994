#include "cli/frontend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "core/control_variables.hpp"
#include "core/engine.hpp"
#include "core/heap_policy.hpp"
#include "core/launcher_check.hpp"
#include "core/mpi.hpp"
#include "core/scratch_files.hpp"
#include "core/text.hpp"

namespace mpiscope::cli {

int run_front_end(const FrontEnd& fe, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Help needs no MPI: answered before MPI starts, so that `IMB-MPI1 -help` works without a
  // launcher (and as root), fast, and the man pages are made from it (cli/man_pages.hpp). Under a
  // launcher only rank 0 answers. A command line on which help is not what the parse returns
  // goes on as usual.
  if (std::any_of(args.begin(), args.end(), [&](const std::string& a) {
        return a == fe.help || a == "--help" || a == "-h" || a == "-help";
      })) {
    ParseResult parsed;
    try {
      parsed = fe.parse(args, 1);
    } catch (const std::exception&) {
      parsed.kind = ParseResult::kError;
    }
    if (parsed.kind == ParseResult::kHelp) {
      if (mpi::launched_as_rank_zero()) std::fputs(parsed.text.c_str(), stdout);
      return kOk;
    }
  }
  // The --timeout watchdog is a second thread (it makes no MPI calls): ask for FUNNELED then.
  bool watchdog = false;
  for (const auto& a : args) watchdog |= a == "--timeout";
  const int asked = fe.thread_level ? fe.thread_level(args) : MPI_THREAD_SINGLE;
  core::fix_heap_for_run(fe.heap);  // before MPI allocates anything (core/heap_policy.hpp)
  // Each rank's own environment, as MPI_Init will read it; what the user set stays.
  for (const auto& [name, value] : fe.environment) setenv(name.c_str(), value.c_str(), 0);
  // Rank 0's children read the library's defaults while MPI starts (core/control_variables.hpp).
  if (mpi::launched_as_rank_zero()) core::start_control_variable_probe();
  mpi::Environment env(argc, argv, std::max(asked, watchdog ? MPI_THREAD_FUNNELED : asked));
  const int rank = mpi::world_rank();
  if (const auto mismatch = core::launcher_mismatch(mpi::world_size(), mpi::library_version(),
                                                    [](const char* n) { return std::getenv(n); })) {
    if (mismatch->speaks)
      std::fprintf(stderr, "%s: error: %s\n", fe.program.c_str(), mismatch->message.c_str());
    return kUsage;
  }
  try {
    ParseResult parsed;
    if (rank == 0) {
      try {
        parsed = fe.parse(args, mpi::world_size());
      } catch (const std::exception& e) {
        parsed = {ParseResult::kError, e.what()};
      }
    }
    int kind = parsed.kind;
    MPI_Bcast(&kind, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (kind == ParseResult::kHelp) {
      if (rank == 0) std::fputs(parsed.text.c_str(), stdout);
      return kOk;
    }
    if (kind == ParseResult::kError) {
      if (rank == 0)
        std::fprintf(stderr, "%s: error: %s\nRun '%s %s' for the options.\n", fe.program.c_str(),
                     core::printable(parsed.text).c_str(), fe.program.c_str(), fe.help.c_str());
      return kUsage;
    }
    const std::string options = mpi::broadcast(parsed.text, 0, MPI_COMM_WORLD);
    // The level the suite asked for (IMB's -thread_level, osu_latency_mt's threads), agreed on by
    // every rank: a library that gives any rank less stops the run before anything is timed.
    int provided = env.provided_thread_level();
    MPI_Allreduce(MPI_IN_PLACE, &provided, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (provided < asked) {
      if (rank == 0)
        std::fprintf(stderr,
                     "%s: error: MPI_Init_thread must return %s; the MPI library provides "
                     "only %s\n",
                     fe.program.c_str(), mpi::thread_level_name(asked).c_str(),
                     mpi::thread_level_name(provided).c_str());
      return kRunFailed;
    }
    return fe.run(options, provided);
  } catch (const std::exception& e) {
    // Past the agreement point every rank may be inside a collective: end the whole job.
    const bool memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
    std::fprintf(stderr, "%s: error on rank %d: %s\n", fe.program.c_str(), rank,
                 memory ? "out of memory (a buffer or result did not fit in this process's "
                          "memory limit; smaller lengths or -mem need less)"
                        : core::printable(e.what()).c_str());
    core::scratch_files::remove_all();
    mpi::abort_job(kRunFailed);
  }
}

SuiteMain main_of(SuiteFrontEnd suite) {
  return [suite = std::move(suite)](int argc, char** argv, const std::string& program,
                                    const std::vector<std::string>& command_line) {
    const Launch launch{
        suite.program_with_subcommand ? program_as_typed(program, argc, argv) : program,
        command_line};
    FrontEnd fe;
    fe.program = launch.program;
    fe.help = suite.help;
    fe.parse = [&](const std::vector<std::string>& args, int world_size) {
      return suite.parse(launch, args, world_size);
    };
    fe.run = [&](const std::string& options, int thread_level) {
      return suite.run(launch, options, thread_level);
    };
    fe.thread_level = suite.thread_level;
    fe.heap = suite.heap;
    fe.environment = suite.environment;
    return run_front_end(fe, argc, argv);
  };
}

std::string program_as_typed(const std::string& program, int argc, char** argv) {
  if (argc > 1 && program != argv[1] && argv[1][0] != '-')
    return program + std::string(" ") + argv[1];
  return program;
}

int exit_code(const core::SuiteOutcome& outcome) {
  if (outcome.failed) return kRunFailed;
  if (outcome.benchmarks_with_defects > 0) return kCheckFailed;
  return outcome.all_ran ? kOk : kIncomplete;
}

ParseResult listing(const std::vector<std::string>& entries) {
  std::string text;
  for (const auto& entry : entries) text += entry + "\n";
  return {ParseResult::kHelp, text};
}

}  // namespace mpiscope::cli
