#include "suites/imb/ext/benchmarks.hpp"
#include "suites/imb/imb.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb {

const ImbSuite& imb_mpi1_suite() {
  static const ImbSuite suite{"imb-mpi1", "IMB-MPI1", "MPI-1", &mpi1::all_benchmarks, Options{}, 22};
  return suite;
}

const ImbSuite& imb_ext_suite() {
  static const ImbSuite suite{"imb-ext", "IMB-EXT", "MPI-2", &ext::all_benchmarks, Options{}, 22};
  return suite;
}

}  // namespace mpiscope::imb
