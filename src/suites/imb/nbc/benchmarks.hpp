// The IMB-NBC benchmark definitions (current Intel IMB): the non-blocking collectives, each
// measured with CPU work overlapped (Ibcast …) and without (Ibcast_pure …).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::nbc {

// Pairs in IMB's order: each overlapped benchmark followed by its _pure variant (collectives.cpp).
std::vector<core::Benchmark> collective_benchmarks();

// All of them in that order, each overlapped one's blocking_twin set to its _pure variant; the
// overlapped ones form the default list (registry.cpp).
const std::vector<core::Benchmark>& all_benchmarks();

// Copies of the overlapped benchmark `name` (e.g. "Iallreduce") and of its _pure variant, with no
// blocking_twin set (the caller stores them and points one at the other). With `definition`
// (an IMB-MPI1 benchmark), the two kernels run on its buffers, counts, roots and -check blocks
// instead: OSU's osu_ireduce_scatter splits X over the ranks as IMB 3.1's "Reduce_scatter".
std::pair<core::Benchmark, core::Benchmark> overlapped_pair(std::string_view name,
                                                            std::string_view definition = {});

}  // namespace mpiscope::imb::nbc
