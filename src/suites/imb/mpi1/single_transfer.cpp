// IMB-MPI1 single transfer benchmarks (guide 3.3.2): one message between two processes.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::PointContext;

// Rank 0 sends X bytes and waits for them to come back; time = Δt/2.
void pingpong(PointContext& c, int i) {
  if (c.rank == 0) {
    MPI_Send(c.send(i), c.count, c.datatype, 1, 0, c.comm);
    MPI_Recv(c.recv(i), c.count, c.datatype, 1, 0, c.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(c.recv(i), c.count, c.datatype, 0, 0, c.comm, MPI_STATUS_IGNORE);
    MPI_Send(c.send(i), c.count, c.datatype, 0, 0, c.comm);
  }
}

// Both ranks send at once, so each message meets an oncoming one.
void pingping(PointContext& c, int i) {
  const int other = 1 - c.rank;
  MPI_Request request;
  MPI_Isend(c.send(i), c.count, c.datatype, other, 0, c.comm, &request);
  MPI_Recv(c.recv(i), c.count, c.datatype, other, 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

std::vector<core::ExpectedBlock> from_other(const PointContext& c, int) {
  return {{0, 1 - c.rank, 0, c.bytes}};
}

core::Benchmark single_transfer(std::string name, core::Kernel kernel, double time_factor) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::SingleTransfer;
  b.turnover = 1;
  b.time_factor = time_factor;
  b.fixed_processes = 2;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.kernel = kernel;
  b.expected = from_other;
  return b;
}
}  // namespace

std::vector<core::Benchmark> single_transfer_benchmarks() {
  return {single_transfer("PingPong", core::kernel<pingpong>(), 0.5),
          single_transfer("PingPing", core::kernel<pingping>(), 1.0)};
}

}  // namespace mpiscope::imb::mpi1
