// OSU 7.5's osu_partitioned_latency: a ping-pong through MPI 4.0's partitioned requests, measured
// twice per size as OSU's non-blocking collectives are. Per size each rank makes a partitioned
// send to its partner and a partitioned receive from it (MPI_Psend_init, MPI_Precv_init; Q
// partitions of n / Q elements each, PointContext::in_flight = Q). An iteration on rank 0 starts
// the send, marks every partition ready (MPI_Pready), waits, then starts and waits for the
// receive; rank 1 the other way round.
//   - The pure pass (the _pure twin): iterations back to back; each rank's Δt/2 is its Pure Comm.
//   - The overlapped pass: between each start and its wait the rank computes for its own pure
//     time (OSU's dummy_compute, cpu_exploit::work_for); an untimed barrier after each
//     iteration. Overall is the ranks' mean Δt/2, Compute the mean of the two works, Overlap =
//     100 - (Overall - Compute) / Pure Comm. · 100 (core::OverlapMethod::WorkTimedToPure).
// A library without partitioned communication (MPI 3.1: Open MPI 4.1) says "not run" at every
// size.
#include <mpi.h>

#include <map>
#include <string>
#include <utility>

#include "core/cpu_exploit.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::PointContext;
namespace cpu_exploit = core::cpu_exploit;

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

// One side of an iteration: start the request (a send marks every partition ready), in the
// overlapped pass the CPU work on it, then wait. The start (with the Pready calls) and the wait
// are timed for OSU's phase columns when the work asks for them.
template <bool Overlapped>
void transfer(const PointContext& c, MPI_Request& request, bool send) {
  const bool phases = Overlapped && cpu_exploit::times_phases();
  const double begin = phases ? MPI_Wtime() : 0;
  MPI_Start(&request);
  if (send)
    for (int p = 0; p < c.in_flight; ++p) MPI_Pready(p, request);
  const double started = phases ? MPI_Wtime() : 0;
  if constexpr (Overlapped) cpu_exploit::run(&request);
  const double wait = phases ? MPI_Wtime() : 0;
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (phases) cpu_exploit::add_phase_times(started - begin, MPI_Wtime() - wait);
}

template <bool Overlapped>
void partitioned_ping_pong(PointContext& c, int) {
  MPI_Request& send = c.persistent[0];
  MPI_Request& receive = c.persistent[1];
  if (c.rank == 0) {
    transfer<Overlapped>(c, send, true);
    transfer<Overlapped>(c, receive, false);
  } else {
    transfer<Overlapped>(c, receive, false);
    transfer<Overlapped>(c, send, true);
  }
}
#else
void make_partitioned_requests(PointContext& c) {
  c.setup_error = "this MPI library (MPI " + std::to_string(MPI_VERSION) + "." +
                  std::to_string(MPI_SUBVERSION) +
                  ") has no partitioned communication (MPI 4.0's MPI_Psend_init)";
}
template <bool Overlapped>
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

core::Benchmark partitioned_latency(int partitions, const OsuType& type) {
  core::Benchmark pure = ping_pong_latency();
  pure.name = "osu_partitioned_latency_pure";
  pure.kernel = core::kernel<partitioned_ping_pong<false>>();
  pure.setup = make_partitioned_requests;
  pure.release = free_partitioned_requests;
  pure.window = partitions;   // PointContext::in_flight: the partitions of each message
  pure.timed_rank = nullptr;  // both ranks time both passes: the figures are their means
  pure.parameters["partitions"] = std::to_string(partitions);
  pure = on_osu_datatype(std::move(pure), type);
  core::Benchmark overlapped = pure;
  overlapped.name = "osu_partitioned_latency";
  overlapped.kernel = core::kernel<partitioned_ping_pong<true>>();
  overlapped.overlap_method = core::OverlapMethod::WorkTimedToPure;
  overlapped.barrier_between_repetitions = true;
  // The twin is pointed at: kept for the run, one per partition count and type, made once.
  static std::map<std::pair<int, std::string>, core::Benchmark> twins;
  overlapped.blocking_twin =
      &twins.try_emplace({partitions, type.name}, std::move(pure)).first->second;
  return overlapped;
}

}  // namespace mpiscope::osu
