// mpiscope: one executable, one subcommand per suite. Installed aliases (IMB-MPI1, …) dispatch on
// the name the program was called by.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "suites/imb/imb.hpp"

namespace {

using Main = std::function<int(int, char**, const std::string&, const std::vector<std::string>&)>;

struct Subcommand {
  const char* name;
  const char* alias;  // legacy program name
  const char* summary;
  Main main;
};

Main imb(const mpiscope::imb::ImbSuite& (*suite)()) {
  return [suite](int argc, char** argv, const std::string& program,
                 const std::vector<std::string>& command_line) {
    return mpiscope::imb::imb_main(suite(), argc, argv, program, command_line);
  };
}

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> list = {
      {"imb-mpi1", "IMB-MPI1", "Intel MPI Benchmarks IMB-MPI1: point-to-point and collectives",
       imb(mpiscope::imb::imb_mpi1_suite)},
      {"imb-ext", "IMB-EXT", "Intel MPI Benchmarks IMB-EXT: one-sided communication",
       imb(mpiscope::imb::imb_ext_suite)},
      {"imb-io", "IMB-IO", "Intel MPI Benchmarks IMB-IO: MPI-IO, blocking and non-blocking",
       imb(mpiscope::imb::imb_io_suite)},
  };
  return list;
}

void print_version() {
  std::printf("mpiscope %s (commit %s)\nMPI library: %s\n", mpiscope::core::mpiscope_version(),
              mpiscope::core::mpiscope_commit(), mpiscope::mpi::library_version().c_str());
}

void print_help() {
  std::printf(
      "mpiscope %s - measure how well an MPI library and its machine communicate\n\n"
      "Usage: mpirun -np P mpiscope <suite> [options]\n"
      "       mpiscope --version | --help\n\nSuites:\n",
      mpiscope::core::mpiscope_version());
  for (const auto& s : subcommands())
    std::printf("  %-12s %s (alias %s)\n", s.name, s.summary, s.alias);
  std::printf(
      "\n'mpiscope <suite> -help' lists a suite's options. See the README for the output "
      "formats.\n");
}

// Before MPI_Init the launchers' environment tells which rank this is (none: not launched).
bool launched_rank_zero() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* value = std::getenv(var)) return std::string(value) == "0";
  return true;
}

std::string base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  const std::string called = base_name(argv[0]);
  for (const auto& s : subcommands())
    if (called == s.alias) return s.main(argc, argv, s.alias, command_line);

  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    if (launched_rank_zero()) print_help();
    return argc < 2 ? mpiscope::cli::kUsage : mpiscope::cli::kOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    if (launched_rank_zero()) print_version();
    return mpiscope::cli::kOk;
  }
  for (const auto& s : subcommands())
    if (argv[1] == std::string(s.name))
      return s.main(argc - 1, argv + 1, std::string("mpiscope ") + s.name, command_line);
  if (launched_rank_zero())
    std::fprintf(stderr,
                 "mpiscope: error: unknown suite '%s'\nRun 'mpiscope --help' for the list.\n",
                 argv[1]);
  return mpiscope::cli::kUsage;
}
