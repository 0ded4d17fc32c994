// mpiscope: one executable, one subcommand per suite. Installed aliases (IMB-MPI1, …) dispatch on
// the name the program was called by.
#include <mpi.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/man_pages.hpp"
#include "cli/registry.hpp"
#include "core/control_variables.hpp"
#include "core/install_paths.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"

namespace {

// What a site needs to file a report: the version, the commit, the MPI it was built with and
// the one it runs with (they differ when a module or LD_LIBRARY_PATH swaps the library).
void print_version() {
  const auto data = mpiscope::core::data_directory();
  std::printf("mpiscope %s (commit %s)\nbuilt with: %s\nMPI library: %s\ndata: %s\n",
              mpiscope::core::mpiscope_version(), mpiscope::core::mpiscope_commit(),
              mpiscope::mpi::built_with().c_str(), mpiscope::mpi::library_version().c_str(),
              data ? data->c_str() : "(no share/mpiscope beside the executable)");
}

std::string help_text() {
  std::string text = fmt::format(
      "mpiscope {} - measure how well an MPI library and its machine communicate\n\n"
      "Usage: mpirun -np P mpiscope <suite> [options]\n"
      "       mpiscope --version | --help | --aliases\n\nSuites:\n",
      mpiscope::core::mpiscope_version());
  for (const auto& s : mpiscope::cli::registered_suites()) {
    std::string aliases;
    for (const auto& a : s.aliases) aliases += (aliases.empty() ? "" : ", ") + a.program;
    text += fmt::format("  {:<12} {}{}\n", s.name, s.summary,
                        aliases.empty() ? "" : " (alias " + aliases + ")");
  }
  return text +
         "\n'mpiscope <suite> --help' lists a suite's options. See the README for the output "
         "formats.\n";
}

void print_help() {
  std::fputs(help_text().c_str(), stdout);
}

// `mpiscope --version`, `mpiscope imb-mpi1 --version`, `IMB-MPI1 --version`: rank 0 answers.
int answer_version() {
  if (mpiscope::mpi::launched_as_rank_zero()) print_version();
  return mpiscope::cli::kOk;
}

bool is_version(const char* arg) {
  return !std::strcmp(arg, "--version");
}

std::string base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

static int dispatch(int argc, char** argv) {
  // The children that read the MPI library's defaults (core/control_variables.hpp).
  if (argc == 2 && !std::strcmp(argv[1], mpiscope::core::kPrintControlVariablesArgument))
    return mpiscope::core::print_control_variables();
  const std::vector<std::string> command_line(argv, argv + argc);
  const std::string called = base_name(argv[0]);
  const auto suites = mpiscope::cli::registered_suites();
  for (const auto& s : suites)
    for (const auto& alias : s.aliases)
      if (called == alias.program) {
        if (argc == 2 && is_version(argv[1])) return answer_version();
        // `com -o 100` is `mpiscope presta com -o 100`: the alias's leading arguments first.
        std::vector<std::string> args = {alias.program};
        args.insert(args.end(), alias.leading_args.begin(), alias.leading_args.end());
        args.insert(args.end(), argv + 1, argv + argc);
        std::vector<char*> pointers;
        for (auto& a : args) pointers.push_back(a.data());
        pointers.push_back(nullptr);
        return s.main(static_cast<int>(args.size()), pointers.data(), alias.program, command_line);
      }

  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    if (mpiscope::mpi::launched_as_rank_zero()) print_help();
    return argc < 2 ? mpiscope::cli::kUsage : mpiscope::cli::kOk;
  }
  if (is_version(argv[1])) return answer_version();
  // The build makes one symbolic link per alias from this list (cmake/make_aliases.cmake), so
  // that the registry is the only place that names them.
  // The build writes the man pages with this (cli/man_pages.hpp).
  if (argc == 3 && !std::strcmp(argv[1], "--man-pages"))
    return mpiscope::cli::write_man_pages(argv[2], help_text());
  if (argc == 2 && !std::strcmp(argv[1], "--aliases")) {
    for (const auto& s : suites)
      for (const auto& alias : s.aliases) std::printf("%s\n", alias.program.c_str());
    return mpiscope::cli::kOk;
  }
  for (const auto& s : suites)
    if (argv[1] == s.name) {
      if (argc == 3 && is_version(argv[2])) return answer_version();
      return s.main(argc - 1, argv + 1, "mpiscope " + s.name, command_line);
    }
  if (mpiscope::mpi::launched_as_rank_zero())
    std::fprintf(stderr,
                 "mpiscope: error: unknown suite '%s'\nRun 'mpiscope --help' for the list.\n",
                 argv[1]);
  return mpiscope::cli::kUsage;
}

// Every subcommand reports its own errors; an allocation that fails outside them (an argument
// list, the suite table) is still one message, not an abort.
int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("mpiscope: error: out of memory\n", stderr);
    return mpiscope::cli::kRunFailed;
  }
}
