#include "cli/registry.hpp"
#include "suites/imb/ext/benchmarks.hpp"
#include "suites/imb/imb.hpp"
#include "suites/imb/io/benchmarks.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi4/benchmarks.hpp"
#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/imb/rma/benchmarks.hpp"

namespace mpiscope::imb {

// Each suite's defaults under current IMB's rules (the default) and IMB 3.1's (-imb_rules 3.1).
// The Options members' defaults are current IMB-MPI1's; imb31_rules() gives IMB 3.1's
// repetition rule, warm-up, collectives and megabyte.
const ImbSuite& imb_mpi1_suite() {
  static const ImbSuite suite{
      .id = "imb-mpi1",
      .alias = "IMB-MPI1",
      .part = "MPI-1",
      .benchmarks = &mpi1::all_benchmarks,
      .options = {.aggregate_modes = false, .files = false, .data_types = true, .msg_pause = true}};
  return suite;
}

const ImbSuite& imb_ext_suite() {
  static const ImbSuite suite{
      .id = "imb-ext",
      .alias = "IMB-EXT",
      .part = "MPI-2",
      .benchmarks = &ext::all_benchmarks,
      .options = {.collective_options = false, .files = false, .msg_pause = true},
      .current_length_unit = sizeof(float),
      .current_aggregate_first = true};
  return suite;
}

// settings_io.h: IMB 3.1's standard mode MSGSPERSAMPLE 50, MSGS_NONAGGR 10, OVERALL_VOL 16 MB,
// TARGET_CPU_SECS 0.1 s and lengths up to 2^24; current IMB's command-line defaults override its
// settings_io.h with IMB-MPI1's 1000, 100, 40 MB and 2^22, and TARGET_CPU_SECS is 0.01 s. I/O
// also runs on a single process.
const ImbSuite& imb_io_suite() {
  static const ImbSuite suite = [] {
    Options current;
    current.npmin = 1;
    Options imb31 = imb31_rules(current);
    imb31.msgs_per_sample = 50;
    imb31.msgs_nonaggr = 10;
    imb31.overall_vol_mb = 16;
    imb31.cpu_target_s = 0.1;
    imb31.max_msg_log = 24;
    return ImbSuite{.id = "imb-io",
                    .alias = "IMB-IO",
                    .part = "MPI-IO",
                    .benchmarks = &io::all_benchmarks,
                    .options = {.current = current, .imb31 = imb31, .collective_options = false},
                    .current_aggregate_first = true};
  }();
  return suite;
}

// Current IMB's IMB-NBC and IMB-RMA have no IMB 3.1 ancestor: -imb_rules 3.1 gives them IMB
// 3.1's repetition rule, warm-up, collectives and megabyte, as for the others.
const ImbSuite& imb_nbc_suite() {
  static const ImbSuite suite{.id = "imb-nbc",
                              .alias = "IMB-NBC",
                              .part = "MPI-NBC",
                              .benchmarks = &nbc::all_benchmarks,
                              .options = {.aggregate_modes = false, .files = false},
                              .in_imb31 = false};
  return suite;
}

// IMB-MPI4 measures as IMB-NBC does; under IMB 3.1's rules too its requests keep root 0.
const ImbSuite& imb_mpi4_suite() {
  static const ImbSuite suite = [] {
    Options imb31 = imb31_rules({});
    imb31.root_shift = false;
    return ImbSuite{.id = "imb-mpi4",
                    .alias = "IMB-MPI4",
                    .part = "MPI-4",
                    .benchmarks = &mpi4::all_benchmarks,
                    .options = {.imb31 = imb31,
                                .aggregate_modes = false,
                                .files = false,
                                .persistent_requests = true},
                    .in_imb31 = false};
  }();
  return suite;
}

const ImbSuite& imb_rma_suite() {
  static const ImbSuite suite{
      .id = "imb-rma",
      .alias = "IMB-RMA",
      .part = "MPI-RMA",
      .benchmarks = &rma::all_benchmarks,
      .options = {.collective_options = false, .files = false, .msg_pause = true},
      .in_imb31 = false};
  return suite;
}

}  // namespace mpiscope::imb

namespace mpiscope::imb {
namespace {
cli::SuiteEntry entry(const ImbSuite& (*suite)(), std::string summary, int order) {
  const ImbSuite& s = suite();
  return {s.id, std::move(summary), {{s.alias, {}}}, order, imb_main(s)};
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
MPISCOPE_REGISTER_SUITE(entry(imb_mpi4_suite,
                              "Intel MPI Benchmarks IMB-MPI4: persistent collectives, overlap",
                              15));
MPISCOPE_REGISTER_SUITE(entry(imb_rma_suite,
                              "Intel MPI Benchmarks IMB-RMA: passive-target one-sided (MPI-3)",
                              14));

}  // namespace mpiscope::imb
