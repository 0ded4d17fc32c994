#include <algorithm>

#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    std::vector<core::Benchmark> all;
    for (auto part : {single_transfer_benchmarks(), parallel_transfer_benchmarks(),
                      reduction_benchmarks(), collective_benchmarks(), bandwidth_benchmarks()})
      std::move(part.begin(), part.end(), std::back_inserter(all));
    // IMB's default order: PingPong, PingPing, Sendrecv, Exchange, Allreduce, Reduce,
    // Reduce_scatter, Allgather, Allgatherv, Gather, Gatherv, Scatter, Scatterv, Alltoall,
    // Alltoallv, Bcast, Barrier — which is the order of the parts above; current IMB's Uniband
    // and Biband (run only when named) come last.
    return all;
  }();
  return list;
}

}  // namespace mpiscope::imb::mpi1
