#include "cli/registry.hpp"
#include "suites/imb/ext/benchmarks.hpp"
#include "suites/imb/imb.hpp"
#include "suites/imb/io/benchmarks.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/imb/rma/benchmarks.hpp"

namespace mpiscope::imb {

// Collectives are timed as current IMB times them by default, root 0 (-root_shift off) and a
// barrier between repetitions (-sync on), so that mpiscope and Intel's IMB-MPI1 side by side
// measure the same thing; IMB 3.1's rule (guide: "the root of the operation is changed round
// robin", repetitions back to back) is -root_shift on -sync off.
const ImbSuite& imb_mpi1_suite() {
  static const ImbSuite suite = [] {
    Options d;
    d.root_shift = false;
    d.sync = true;
    return ImbSuite{"imb-mpi1", "IMB-MPI1", "MPI-1", &mpi1::all_benchmarks, d, 22, false, true};
  }();
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

// Current IMB's IMB-NBC (no IMB 3.1 ancestor): its collectives keep current IMB's defaults, root 0
// (-root_shift off) and a barrier between repetitions (-sync on), as IMB-MPI1's do.
const ImbSuite& imb_nbc_suite() {
  static const ImbSuite suite = [] {
    Options d;
    d.root_shift = false;
    d.sync = true;
    return ImbSuite{"imb-nbc", "IMB-NBC", "MPI-NBC", &nbc::all_benchmarks, d, 22,
                    false,     true,      "2021"};
  }();
  return suite;
}

// Current IMB's IMB-RMA (MPI-3 passive-target one-sided) has no IMB 3.1 ancestor either; its
// benchmarks are no collectives, so IMB-MPI1's settings apply as they are.
const ImbSuite& imb_rma_suite() {
  static const ImbSuite suite{"imb-rma", "IMB-RMA", "MPI-RMA", &rma::all_benchmarks, Options{}, 22,
                              false,     false,     "2021"};
  return suite;
}

}  // namespace mpiscope::imb

namespace mpiscope::imb {
namespace {
cli::SuiteEntry entry(const ImbSuite& (*suite)(), std::string summary, int order) {
  const ImbSuite& s = suite();
  return {s.id,
          std::move(summary),
          {{s.alias, {}}},
          order,
          [suite](int argc, char** argv, const std::string& program,
                  const std::vector<std::string>& command_line) {
            return imb_main(suite(), argc, argv, program, command_line);
          }};
}
}  // namespace

MPISCOPE_REGISTER_SUITE(entry(imb_mpi1_suite,
                              "Intel MPI Benchmarks IMB-MPI1: point-to-point and collectives", 10));
MPISCOPE_REGISTER_SUITE(entry(imb_ext_suite,
                              "Intel MPI Benchmarks IMB-EXT: one-sided communication", 11));
MPISCOPE_REGISTER_SUITE(entry(imb_io_suite,
                              "Intel MPI Benchmarks IMB-IO: MPI-IO, blocking and non-blocking",
                              12));
MPISCOPE_REGISTER_SUITE(entry(imb_nbc_suite,
                              "Intel MPI Benchmarks IMB-NBC: non-blocking collectives, overlap",
                              13));
MPISCOPE_REGISTER_SUITE(entry(imb_rma_suite,
                              "Intel MPI Benchmarks IMB-RMA: passive-target one-sided (MPI-3)",
                              14));

}  // namespace mpiscope::imb
