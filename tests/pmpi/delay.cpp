// A PMPI interposition library of the project's own: LD_PRELOADed into the ranks, it adds a known
// busy-wait before chosen MPI calls, so that a test can check that accurate mode measures that
// delay within its stated interval. MPISCOPE_DELAY="MPI_Allreduce=300,MPI_Bcast=50" (microseconds).
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {
double delay_of(const char* call) {
  const char* spec = std::getenv("MPISCOPE_DELAY");
  if (spec == nullptr) return 0;
  const std::string all(spec), key = std::string(call) + "=";
  const auto at = all.find(key);
  if (at == std::string::npos) return 0;
  return std::atof(all.c_str() + at + key.size()) * 1e-6;
}

void spin(double seconds) {
  if (seconds <= 0) return;
  const double until = PMPI_Wtime() + seconds;
  while (PMPI_Wtime() < until) {
  }
}
}  // namespace

extern "C" int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  static const double delay = delay_of("MPI_Allreduce");
  spin(delay);
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  static const double delay = delay_of("MPI_Bcast");
  spin(delay);
  return PMPI_Bcast(buffer, count, type, root, comm);
}
