#include "suites/imb/rma/benchmarks.hpp"

namespace mpiscope::imb::rma {

MPI_Info user_window_info() {
  return MPI_INFO_NULL;
}

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    std::vector<core::Benchmark> all = one_sided_benchmarks();
    for (auto& b : all)
      if (b.pure_and_ovrl_only) b.blocking_twin = &truly_passive_put_pure();
    return all;
  }();
  return list;
}

}  // namespace mpiscope::imb::rma
