#include "suites/imb/ext/benchmarks.hpp"
#include "suites/imb/imb.hpp"
#include "suites/imb/io/benchmarks.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb {

const ImbSuite& imb_mpi1_suite() {
  static const ImbSuite suite{"imb-mpi1", "IMB-MPI1", "MPI-1", &mpi1::all_benchmarks,
                              Options{},  22};
  return suite;
}

const ImbSuite& imb_ext_suite() {
  static const ImbSuite suite{"imb-ext", "IMB-EXT", "MPI-2", &ext::all_benchmarks, Options{}, 22};
  return suite;
}

// settings_io.h standard mode: MSGSPERSAMPLE 50, MSGS_NONAGGR 10, OVERALL_VOL 16 MB, lengths up
// to 2^24; I/O also runs on a single process.
const ImbSuite& imb_io_suite() {
  static const ImbSuite suite = [] {
    Options d;
    d.msgs_per_sample = 50;
    d.msgs_nonaggr = 10;
    d.overall_vol_mb = 16;
    d.npmin = 1;
    return ImbSuite{"imb-io", "IMB-IO", "MPI-IO", &io::all_benchmarks, d, 24, true};
  }();
  return suite;
}

}  // namespace mpiscope::imb
