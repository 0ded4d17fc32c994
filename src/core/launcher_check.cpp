#include "core/launcher_check.hpp"

#include <cstdlib>

namespace mpiscope::core {

namespace {
struct LaunchVariable {
  const char* size;  // the number of processes the launcher started
  const char* rank;  // this process's rank according to the launcher
  const char* family;
  const char* launcher;
};
// Open MPI's mpirun sets OMPI_COMM_WORLD_*; MPICH's Hydra (and Intel MPI's, and Slurm with PMI-2)
// sets PMI_SIZE/PMI_RANK, Hydra also MPI_LOCALNRANKS; PMIx launchers may set PMIX_SIZE.
constexpr LaunchVariable kLaunchVariables[] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI", "Open MPI's mpirun"},
    {"PMI_SIZE", "PMI_RANK", "MPICH",
     "a PMI launcher such as MPICH's mpiexec, Intel MPI's or Slurm's srun"},
    {"MPI_LOCALNRANKS", "MPI_LOCALRANKID", "MPICH", "MPICH's mpiexec (Hydra)"},
    {"PMIX_SIZE", "PMIX_RANK", "", "a PMIx launcher"},
};

long number_in(const char* text) {
  if (text == nullptr || *text == 0) return -1;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return *end == 0 ? n : -1;
}
}  // namespace

std::string mpi_library_family(const std::string& library) {
  for (const char* name : {"Open MPI", "MVAPICH", "Intel(R) MPI", "MPICH"})
    if (library.find(name) != std::string::npos)
      return std::string(name) == "Intel(R) MPI" ? "Intel MPI" : name;
  return library.substr(0, library.find('\n'));
}

std::optional<LauncherMismatch> launcher_mismatch(
    int world_size, const std::string& library,
    const std::function<const char*(const char*)>& getenv) {
  if (world_size != 1) return std::nullopt;
  const std::string own = mpi_library_family(library);
  // Another library's variable names the launcher best; our own library's would be odd but is
  // still a multi-process launch that did not reach this process.
  const LaunchVariable* found = nullptr;
  long processes = 0;
  for (const auto& v : kLaunchVariables) {
    const long n = number_in(getenv(v.size));
    if (n <= 1) continue;
    if (found == nullptr || (found->family == own && v.family != own)) {
      found = &v;
      processes = n;
    }
  }
  if (found == nullptr) return std::nullopt;
  LauncherMismatch m;
  m.speaks = number_in(getenv(found->rank)) <= 0;
  const std::string theirs = *found->family ? found->family : "another MPI library";
  // Hydra sets PMI_SIZE and MPI_LOCALNRANKS: then it is named as such.
  const std::string launcher = std::string(found->size) == "PMI_SIZE" && getenv("MPI_LOCALNRANKS")
                                   ? "Hydra, MPICH's mpiexec"
                                   : found->launcher;
  m.message = "this mpiscope is built for " + own + " but was started by " + launcher + " (" +
              found->size + "=" + std::to_string(processes) + "): each of the " +
              std::to_string(processes) +
              " processes runs alone, as a singleton. Start it with the launcher of " + own +
              (own == "Open MPI" ? " (mpirun.openmpi or its mpirun)"
               : own == "MPICH"  ? " (mpiexec.mpich or its mpiexec)"
                                 : "") +
              ", or use an mpiscope built for " + theirs + ".";
  return m;
}

}  // namespace mpiscope::core
