// An mpiscope built for one MPI library and started by another library's launcher runs as a set
// of singletons: every process has MPI_COMM_WORLD of size 1 while the launcher's environment says
// it started several. Measuring then produces nothing useful ("PingPong invalid for 1 processes")
// and exits 0; this check turns it into one clear error.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace mpiscope::core {

struct LauncherMismatch {
  std::string message;  // names both libraries and what to do
  bool speaks = true;   // false on all but the launcher's rank 0: one message per job
};

// `getenv` reads the environment (a parameter so that unit tests can plant one); `library` is
// MPI_Get_library_version's text. nullopt unless world_size is 1 and a launcher variable
// (PMI_SIZE, MPI_LOCALNRANKS, OMPI_COMM_WORLD_SIZE, PMIX_SIZE) says more than one process.
std::optional<LauncherMismatch> launcher_mismatch(
    int world_size, const std::string& library,
    const std::function<const char*(const char*)>& getenv);

// The family of an MPI library from its version text: "Open MPI", "MPICH", "Intel MPI",
// "MVAPICH" or the text's first line.
std::string mpi_library_family(const std::string& library);

}  // namespace mpiscope::core
