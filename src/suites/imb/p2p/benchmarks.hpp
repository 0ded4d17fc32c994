// IMB-P2P's benchmarks (benchmarks.cpp) as a run's options define them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

// The ranks each rank exchanges messages with in one repetition of a pattern, counted once per
// direction of the grid or ring (a side of 2 makes one rank two neighbours): PingPong and
// PingPing 1; SendRecv_Replace and Corandom 2 (from the left, to the right of a ring, Corandom's
// shuffled at every repetition); Stencil2D 4; Stencil3D 6. None for Unirandom and Birandom,
// whose pairs are drawn at random (a rank may be in none or several). The report sets the
// patterns side by side over it.
std::optional<int> neighbours_of(std::string_view pattern);

}  // namespace mpiscope::imb::p2p
