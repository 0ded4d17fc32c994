// IMB-P2P's benchmarks (benchmarks.cpp) as a run's options define them.
#pragma once

#include <string>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::p2p {

struct Definition {
  bool write = true;  // -msgwr: touch the send buffer's cache lines before each send
  bool read = true;   // -msgrd: touch the receive buffer's after each receive
};

// In IMB-P2P's order.
std::vector<std::string> benchmark_names();
std::vector<core::Benchmark> benchmarks(const Definition& d, int processes);

}  // namespace mpiscope::imb::p2p
