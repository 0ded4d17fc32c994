// IMB-MPI1 parallel transfer benchmarks (guide 3.3.3): every process exchanges with its
// neighbours in a periodic chain at the same time.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::PointContext;

// Send to the right, receive from the left: 2 messages per process (nmsg = 2).
void sendrecv(PointContext& c, int i) {
  MPI_Sendrecv(c.send(i), c.count, c.datatype, c.right(), 0, c.recv(i), c.count, c.datatype,
               c.left(), 0, c.comm, MPI_STATUS_IGNORE);
}

// Both neighbours, from two separate send buffers (IMB 3.1); both receives land in one buffer,
// as in IMB (memory table 7.1: 3X per process). nmsg = 4.
void exchange(PointContext& c, int i) {
  MPI_Request requests[2];
  MPI_Isend(c.send(i), c.count, c.datatype, c.right(), 0, c.comm, &requests[0]);
  MPI_Isend(c.send(i) + c.place(c.bytes), c.count, c.datatype, c.left(), 0, c.comm, &requests[1]);
  MPI_Recv(c.recv(i), c.count, c.datatype, c.left(), 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Recv(c.recv(i), c.count, c.datatype, c.right(), 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

core::Benchmark parallel_transfer(std::string name, core::Kernel kernel, double turnover,
                                  std::size_t send_messages,
                                  std::vector<core::ExpectedBlock> (*expected)(const PointContext&,
                                                                               int)) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::ParallelTransfer;
  b.turnover = turnover;
  b.kernel = kernel;
  b.expected = expected;
  b.shape = send_messages == 1 ? [](std::size_t x, int, int) { return core::BufferShape{x, x}; }
                               : [](std::size_t x, int, int) {
                                   return core::BufferShape{2 * x, x};
                                 };
  return b;
}
}  // namespace

std::vector<core::Benchmark> parallel_transfer_benchmarks() {
  return {
      parallel_transfer("Sendrecv", core::kernel<sendrecv>(), 2, 1,
                        [](const PointContext& c, int) {
                          return std::vector<core::ExpectedBlock>{{0, c.left(), 0, c.bytes}};
                        }),
      // The buffer keeps the second message: the right neighbour's second half.
      parallel_transfer("Exchange", core::kernel<exchange>(), 4, 2,
                        [](const PointContext& c, int) {
                          return std::vector<core::ExpectedBlock>{{0, c.right(), c.bytes, c.bytes}};
                        }),
  };
}

}  // namespace mpiscope::imb::mpi1
