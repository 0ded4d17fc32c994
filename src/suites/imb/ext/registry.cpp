#include "suites/imb/ext/benchmarks.hpp"

namespace mpiscope::imb::ext {

MPI_Info user_window_info() {
  return MPI_INFO_NULL;
}

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = one_sided_benchmarks();
  return list;
}

}  // namespace mpiscope::imb::ext
