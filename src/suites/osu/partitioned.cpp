// OSU 7.5's osu_partitioned_latency: osu_latency_persistent's ping-pong through MPI 4.0's
// partitioned requests. Per size each rank makes a partitioned send to its partner and a
// partitioned receive from it (MPI_Psend_init, MPI_Precv_init; Q partitions of n / Q elements
// each, PointContext::in_flight = Q); an iteration on rank 0 starts the send, marks every
// partition ready (MPI_Pready), waits, then starts and waits for the receive; rank 1 the other
// way round. Latency = Δt/2, as osu_latency's. A library without partitioned communication
// (MPI 3.1: Open MPI 4.1) says "not run" at every size.
#include <mpi.h>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::PointContext;

#if MPI_VERSION >= 4
constexpr int kPartitionedTag = 1;

void make_partitioned_requests(PointContext& c) {
  const int other = 1 - c.rank, partitions = c.in_flight;
  const MPI_Count per_partition = c.count / partitions;
  c.persistent.assign(2, MPI_REQUEST_NULL);
  MPI_Psend_init(c.send(0), partitions, per_partition, c.datatype, other, kPartitionedTag, c.comm,
                 MPI_INFO_NULL, &c.persistent[0]);
  MPI_Precv_init(c.recv(0), partitions, per_partition, c.datatype, other, kPartitionedTag, c.comm,
                 MPI_INFO_NULL, &c.persistent[1]);
}

void send_partitions(PointContext& c) {
  MPI_Request& send = c.persistent[0];
  MPI_Start(&send);
  for (int p = 0; p < c.in_flight; ++p) MPI_Pready(p, send);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
}
void receive_partitions(PointContext& c) {
  MPI_Start(&c.persistent[1]);
  MPI_Wait(&c.persistent[1], MPI_STATUS_IGNORE);
}

void partitioned_ping_pong(PointContext& c, int) {
  if (c.rank == 0) {
    send_partitions(c);
    receive_partitions(c);
  } else {
    receive_partitions(c);
    send_partitions(c);
  }
}
#else
void make_partitioned_requests(PointContext& c) {
  c.setup_error = "this MPI library (MPI " + std::to_string(MPI_VERSION) + "." +
                  std::to_string(MPI_SUBVERSION) +
                  ") has no partitioned communication (MPI 4.0's MPI_Psend_init)";
}
void partitioned_ping_pong(PointContext&, int) {}
#endif

void free_partitioned_requests(PointContext& c) {
  for (auto& r : c.persistent)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  c.persistent.clear();
}
}  // namespace

bool library_has_partitioned_communication() {
  return MPI_VERSION >= 4;
}

core::Benchmark partitioned_ping_pong_latency(int partitions) {
  core::Benchmark b = ping_pong_latency();
  b.name = "osu_partitioned_latency";
  b.kernel = core::kernel<partitioned_ping_pong>();
  b.setup = make_partitioned_requests;
  b.release = free_partitioned_requests;
  b.window = partitions;  // PointContext::in_flight: the partitions of each message
  b.parameters["partitions"] = std::to_string(partitions);
  return b;
}

}  // namespace mpiscope::osu
