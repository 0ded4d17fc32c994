#include "suites/map/measure.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "core/stats.hpp"
#include "suites/map/schedule.hpp"

namespace mpiscope::map {

namespace {

constexpr int kTagData = 71;
constexpr int kTagCount = 72;

// The ping-pong kernel: the lower rank of the pair (the initiator) sends and waits for the echo;
// the other echoes. `iterations` untimed warm-up round trips come first. Returns the initiator's
// round-trip times in seconds (empty on the echoing side).
std::vector<double> ping_pong(bool initiator, int other, std::size_t bytes, int warm_up,
                              int iterations, char* send, char* recv) {
  const int count = static_cast<int>(bytes);
  std::vector<double> round_trips;
  round_trips.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < warm_up + iterations; ++i) {
    if (initiator) {
      const double start = MPI_Wtime();
      MPI_Send(send, count, MPI_BYTE, other, kTagData, MPI_COMM_WORLD);
      MPI_Recv(recv, count, MPI_BYTE, other, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double end = MPI_Wtime();
      if (i >= warm_up) round_trips.push_back(end - start);
    } else {
      MPI_Recv(recv, count, MPI_BYTE, other, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send, count, MPI_BYTE, other, kTagData, MPI_COMM_WORLD);
    }
  }
  return round_trips;
}

// A fault (a slow NIC, a degraded cable, a shaped port) slows every message; a busy CPU or a
// neighbour's burst only some. The 10th percentile of the round trips is what the path does when
// nothing else interferes: on this 2-core machine loaded by compilers, medians of healthy pairs
// rose 10 to 50 times (the ranks waited for time slices) and hid a slowed host.
constexpr double kCapabilityQuantile = 0.1;

double half_round_trip(std::vector<double> round_trips) {
  return core::quantile(std::move(round_trips), kCapabilityQuantile) / 2;
}

// One pair's latency and bandwidth, on both ranks; the initiator's return value carries them.
PairSample measure_pair(const MapSettings& s, int rank, int other, char* send, char* recv) {
  const bool initiator = rank < other;
  PairSample p;
  p.a = std::min(rank, other);
  p.b = std::max(rank, other);

  const int warm_up = std::max(2, s.latency_iterations / 10);
  auto latency =
      ping_pong(initiator, other, s.small_bytes, warm_up, s.latency_iterations, send, recv);
  p.latency_iterations = s.latency_iterations;
  if (initiator) p.latency_us = half_round_trip(latency) * 1e6;

  // Bandwidth: one untimed round trip sizes the timed ones to the time target; the initiator
  // decides and tells its partner, so that both run the same count.
  int iterations = 0;
  const auto first = ping_pong(initiator, other, s.large_bytes, 0, 1, send, recv);
  if (initiator) {
    const double per_round_trip = std::max(first.front(), 1e-9);
    const double wanted = std::ceil(s.bandwidth_time_s / per_round_trip);
    iterations = static_cast<int>(std::clamp(wanted, 2.0, double(s.max_bandwidth_iterations)));
    MPI_Send(&iterations, 1, MPI_INT, other, kTagCount, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&iterations, 1, MPI_INT, other, kTagCount, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  auto bandwidth = ping_pong(initiator, other, s.large_bytes, 0, iterations, send, recv);
  p.bandwidth_iterations = iterations;
  if (initiator)
    p.bandwidth_mbs = static_cast<double>(s.large_bytes) / half_round_trip(bandwidth) / 1e6;
  return p;
}

// Rank 0 receives every sample of the round from the initiators (fixed-size records of doubles)
// and returns them; the other ranks return nothing.
constexpr int kFields = 8;
std::vector<PairSample> gather_round(const std::vector<PairSample>& mine, int ranks) {
  std::vector<PairSample> all;
  double record[kFields] = {-1, 0, 0, 0, 0, 0, 0, 0};
  if (!mine.empty()) {
    const PairSample& p = mine.back();
    record[0] = p.a;
    record[1] = p.b;
    record[2] = p.sweep;
    record[3] = p.slot;
    record[4] = p.latency_us;
    record[5] = p.bandwidth_mbs;
    record[6] = p.latency_iterations;
    record[7] = p.bandwidth_iterations;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> records(rank == 0 ? static_cast<std::size_t>(ranks) * kFields : 0);
  MPI_Gather(record, kFields, MPI_DOUBLE, records.data(), kFields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (std::size_t r = 0; rank == 0 && r < static_cast<std::size_t>(ranks); ++r) {
    const double* f = &records[r * kFields];
    if (f[0] < 0) continue;  // not an initiator in this round
    all.push_back({static_cast<int>(f[0]), static_cast<int>(f[1]), static_cast<int>(f[2]),
                   static_cast<int>(f[3]), f[4], f[5], static_cast<int>(f[6]),
                   static_cast<int>(f[7])});
  }
  return all;
}

}  // namespace

std::vector<PairSample> measure_map(const MapSettings& s, const MapProgress& progress) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::size_t buffer = std::max(s.small_bytes, s.large_bytes);
  std::vector<char> send(std::max<std::size_t>(buffer, 1), 'a'), recv(send.size());
  std::vector<PairSample> all;
  const int rounds = round_count(ranks);
  int index = 0;
  for (int sweep = 0; sweep < s.sweeps; ++sweep) {
    const auto order = round_order(ranks, sweep, s.sweeps);
    for (int slot = 0; slot < rounds; ++slot) {
      progress.round_starts(index++, rounds * s.sweeps);
      // Every pair of the round starts together and the next round waits for the slowest pair:
      // pairs of one round share the network, pairs of different rounds never overlap.
      MPI_Barrier(MPI_COMM_WORLD);
      const int other = partner(rank, order[static_cast<std::size_t>(slot)], ranks);
      std::vector<PairSample> mine;
      if (other >= 0) {
        PairSample p = measure_pair(s, rank, other, send.data(), recv.data());
        p.sweep = sweep;
        p.slot = slot;
        if (rank < other) mine.push_back(p);
      }
      const auto round = gather_round(mine, ranks);
      if (rank == 0 && progress.round_measured) progress.round_measured(round);
      all.insert(all.end(), round.begin(), round.end());
    }
  }
  progress.round_starts(index, rounds * s.sweeps);
  return all;
}

}  // namespace mpiscope::map
