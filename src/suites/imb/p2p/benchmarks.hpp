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

// The messages each rank sends in one repetition of a pattern, each to a neighbour of its own
// (a stencil's neighbours): PingPong, PingPing, Corandom and SendRecv_Replace 1; Stencil2D 4;
// Stencil3D 6 (on a side of 2 one rank is two neighbours). None for Unirandom and Birandom,
// whose pairs are drawn at random (a rank may send none or several). The report sets the
// patterns side by side over it.
std::optional<int> sends_per_rank(std::string_view pattern);

}  // namespace mpiscope::imb::p2p
