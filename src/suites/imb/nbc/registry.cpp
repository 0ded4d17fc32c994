#include "suites/imb/nbc/benchmarks.hpp"

namespace mpiscope::imb::nbc {

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    std::vector<core::Benchmark> all = collective_benchmarks();
    // The vector is final here: the twins can point into it.
    for (std::size_t k = 0; k + 1 < all.size(); k += 2) all[k].blocking_twin = &all[k + 1];
    return all;
  }();
  return list;
}

}  // namespace mpiscope::imb::nbc
