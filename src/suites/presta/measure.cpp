#include "suites/presta/measure.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mpiscope::presta {

PairStep make_step(int processes, const Pairing& p, const core::AccurateSettings* accurate) {
  PairStep s;
  s.processes = processes;
  s.pairs = active_pairs(processes, p);
  s.ranks = active_ranks(processes, p);
  const int rank = mpi::world_rank();
  for (std::size_t i = 0; i < s.pairs.size(); ++i) {
    const auto [a, b] = s.pairs[i];
    if (rank == a || rank == b) {
      s.active = true;
      s.pair_index = static_cast<int>(i);
      s.partner = rank == a ? b : a;
      s.initiator = rank < s.partner;
    }
  }
  s.active_comm = mpi::Comm::borrow(MPI_COMM_WORLD).split(s.active ? 0 : MPI_UNDEFINED, rank);
  if (accurate && s.active)
    s.meter = std::make_unique<core::AccurateMeter>(s.active_comm.get(), *accurate);
  return s;
}

PairSample collect_sample(const PairStep& step, double seconds) {
  const int rank = mpi::world_rank();
  std::vector<double> all(rank == 0 ? mpi::world_size() : 0);
  mpi::check(MPI_Gather(&seconds, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD),
             "MPI_Gather");
  PairSample s;
  if (rank != 0) return s;
  for (int r : step.ranks) s.rank_s.push_back(all[static_cast<std::size_t>(r)]);
  s.max_s = *std::max_element(s.rank_s.begin(), s.rank_s.end());
  s.min_s = *std::min_element(s.rank_s.begin(), s.rank_s.end());
  s.avg_s =
      std::accumulate(s.rank_s.begin(), s.rank_s.end(), 0.0) / static_cast<double>(s.rank_s.size());
  return s;
}

LoopSample collect_loop_sample(MPI_Comm comm, double seconds) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  mpi::check(MPI_Gather(&seconds, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm), "MPI_Gather");
  LoopSample s;
  if (rank != 0) return s;
  s.max_s = *std::max_element(all.begin(), all.end());
  s.min_s = *std::min_element(all.begin(), all.end());
  s.avg_s = std::accumulate(all.begin(), all.end(), 0.0) / size;
  return s;
}

namespace {
volatile double sink = 0;
}
void keep(double value) {
  sink = value;
}

}  // namespace mpiscope::presta
