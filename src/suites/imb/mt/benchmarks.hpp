// IMB-MT's benchmarks (benchmarks.cpp) as a run's options define them.
#pragma once

#include <string>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::mt {

struct Definition {
  int threads = 1;             // per process (the row's threads_per_process)
  int window = 64;             // -window_size: UniBandMT's and BiBandMT's messages in flight
  int stride = 0;              // -stride; 0: half the processes (IMB's default)
  bool char_elements = false;  // -datatype char (MPI_CHAR); else MPI_INT
  // -barrier on|special: the collectives' repetitions each timed alone between barriers;
  // off: back to back.
  bool barrier_between_repetitions = true;
};

// In IMB-MT's order (its -list).
std::vector<std::string> benchmark_names();
std::vector<core::Benchmark> benchmarks(const Definition& d);

}  // namespace mpiscope::imb::mt
