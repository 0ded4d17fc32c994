#include "core/sync.hpp"

#include <limits>

namespace mpiscope::core {

namespace {
constexpr int kSyncTag = 27183;  // on a duplicated communicator: never meets a kernel's message
}

const char* sync_method_name(SyncMethod m) {
  switch (m) {
    case SyncMethod::MpiBarrier:
      return "mpi-barrier";
    case SyncMethod::OwnBarrier:
      return "own-barrier";
    default:
      return "window";
  }
}

std::optional<SyncMethod> parse_sync_method(const std::string& name) {
  for (SyncMethod m : {SyncMethod::MpiBarrier, SyncMethod::OwnBarrier, SyncMethod::Window})
    if (name == sync_method_name(m)) return m;
  return std::nullopt;
}

void own_barrier(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int distance = 1; distance < size; distance *= 2)
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, (rank + distance) % size, kSyncTag, nullptr, 0, MPI_BYTE,
                 (rank - distance + size) % size, kSyncTag, comm, MPI_STATUS_IGNORE);
}

void synchronize_clocks(MPI_Comm comm, ClockModel& model, int rounds, int exchanges) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int peer = 1; peer < size; ++peer) {
    if (rank != 0 && rank != peer) continue;
    for (int round = 0; round < rounds; ++round) {
      double best_rtt = std::numeric_limits<double>::infinity();
      double best_send = 0, best_reference = 0, best_receive = 0;
      for (int e = 0; e < exchanges; ++e) {
        if (rank == 0) {
          MPI_Recv(nullptr, 0, MPI_BYTE, peer, kSyncTag, comm, MPI_STATUS_IGNORE);
          const double now = MPI_Wtime();
          MPI_Send(&now, 1, MPI_DOUBLE, peer, kSyncTag, comm);
        } else {
          double reference = 0;
          const double sent = MPI_Wtime();
          MPI_Send(nullptr, 0, MPI_BYTE, 0, kSyncTag, comm);
          MPI_Recv(&reference, 1, MPI_DOUBLE, 0, kSyncTag, comm, MPI_STATUS_IGNORE);
          const double received = MPI_Wtime();
          if (received - sent < best_rtt) {
            best_rtt = received - sent;
            best_send = sent;
            best_reference = reference;
            best_receive = received;
          }
        }
      }
      if (rank != 0) model.add(best_send, best_reference, best_receive);
    }
  }
}

TimerProperties measure_timer() {
  TimerProperties t;
  t.wtick_s = MPI_Wtick();
  constexpr int kReadings = 100000;
  double smallest = std::numeric_limits<double>::infinity();
  const double start = MPI_Wtime();
  double previous = start;
  for (int i = 0; i < kReadings; ++i) {
    const double now = MPI_Wtime();
    if (now > previous && now - previous < smallest) smallest = now - previous;
    previous = now;
  }
  t.cost_s = (previous - start) / kReadings;
  t.resolution_s = smallest == std::numeric_limits<double>::infinity() ? t.wtick_s : smallest;
  return t;
}

}  // namespace mpiscope::core
