// The IMB front ends share one command line and one driver; a suite is its benchmark list and its
// standard-mode settings (guide 5.2.1: settings.h for MPI1 and EXT, settings_io.h for IO).
#pragma once

#include <string>
#include <vector>

#include "core/benchmark.hpp"
#include "suites/imb/options.hpp"

namespace mpiscope::imb {

struct ImbSuite {
  std::string id;     // subcommand, e.g. "imb-mpi1"
  std::string alias;  // legacy program name, e.g. "IMB-MPI1"
  std::string part;   // header title: "MPI-1", "MPI-2"
  const std::vector<core::Benchmark>& (*benchmarks)();
  Options defaults;  // MSGSPERSAMPLE, OVERALL_VOL, MSGS_NONAGGR, NPmin of the suite
  int max_msg_log = 22;
  bool uses_files = false;  // IMB-IO: --io-dir is checked up front
  // -root_shift and -sync apply (IMB-MPI1, IMB-NBC); the defaults say which rule is the suite's.
  bool collective_options = false;
  std::string imb_version = "3.1";  // whose tables the banner names
};

const ImbSuite& imb_mpi1_suite();
const ImbSuite& imb_ext_suite();
const ImbSuite& imb_io_suite();
const ImbSuite& imb_nbc_suite();
const ImbSuite& imb_rma_suite();

// argv[0] is the program name as called; command_line is what the output repeats.
int imb_main(const ImbSuite& suite, int argc, char** argv, const std::string& program,
             const std::vector<std::string>& command_line);

}  // namespace mpiscope::imb
