// The IMB-NBC benchmark definitions (current Intel IMB): the non-blocking collectives, each
// measured with CPU work overlapped (Ibcast …) and without (Ibcast_pure …).
#pragma once

#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::nbc {

// Pairs in IMB's order: each overlapped benchmark followed by its _pure variant (collectives.cpp).
std::vector<core::Benchmark> collective_benchmarks();

// All of them in that order, each overlapped one's blocking_twin set to its _pure variant; the
// overlapped ones form the default list (registry.cpp).
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::nbc
