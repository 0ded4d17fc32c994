// The IMB front ends share one command line and one driver; a suite is its benchmark list and its
// standard-mode settings (guide 5.2.1: settings.h for MPI1 and EXT, settings_io.h for IO).
#pragma once

#include <string>
#include <vector>

#include "cli/registry.hpp"
#include "core/benchmark.hpp"
#include "suites/imb/options.hpp"

namespace mpiscope::imb {

struct ImbSuite {
  std::string id;     // subcommand, e.g. "imb-mpi1"
  std::string alias;  // legacy program name, e.g. "IMB-MPI1"
  std::string part;   // header title: "MPI-1", "MPI-2"
  const std::vector<core::Benchmark>& (*benchmarks)();
  // Both rule sets' defaults (MSGSPERSAMPLE, OVERALL_VOL, MSGS_NONAGGR, NPmin, …) and which of
  // the options only some programs take this one takes.
  SuiteOptions options;
  bool in_imb31 = true;  // IMB 3.1 had this program (IMB-NBC and IMB-RMA came later)
  // Current IMB's lengths step by this many bytes (IMB-EXT: 4, the size of its reduction type;
  // IMB 3.1's by 1 unless a benchmark's data needs more).
  std::size_t current_length_unit = 1;
  // Current IMB runs the AGGREGATE table before the NON-AGGREGATE one (IMB-EXT, IMB-IO; IMB 3.1
  // and current IMB-RMA the other way round).
  bool current_aggregate_first = false;
};

const ImbSuite& imb_mpi1_suite();
const ImbSuite& imb_ext_suite();
const ImbSuite& imb_io_suite();
const ImbSuite& imb_nbc_suite();
const ImbSuite& imb_rma_suite();
const ImbSuite& imb_mpi4_suite();

// The entry point of an IMB front end (cli::SuiteEntry::main): the suite's command line over
// the engine.
cli::SuiteMain imb_main(const ImbSuite& suite);

}  // namespace mpiscope::imb
