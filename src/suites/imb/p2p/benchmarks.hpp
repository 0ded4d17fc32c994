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
// Stencil2D's (x, y) or Stencil3D's (x, y, z) grid for P processes as IMB-P2P makes it; empty
// where it has none (the benchmark is invalid there).
std::vector<int> stencil_grid(int processes, int dimensions);
std::vector<core::Benchmark> benchmarks(const Definition& d, int processes);

}  // namespace mpiscope::imb::p2p
