// The IMB-RMA benchmark definitions (current Intel IMB, src_c/IMB_rma_*.c): MPI-3 passive-target
// one-sided communication, each benchmark an instance of the kernels in passive_target.hpp.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::rma {

// The info passed to every MPI_Win_create (IMB's IMB_user_set_info): MPI_INFO_NULL.
MPI_Info user_window_info();

// In Intel's IMB-RMA order (its src_cpp/RMA registration); Get_local and Get_all_local run
// only when named.
std::vector<core::Benchmark> one_sided_benchmarks();

// Truly_passive_put's loop without the target's CPU work: its t_pure (benchmarks.cpp).
const core::Benchmark& truly_passive_put_pure();

// All of them, Truly_passive_put's blocking_twin set (registry.cpp).
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::rma
