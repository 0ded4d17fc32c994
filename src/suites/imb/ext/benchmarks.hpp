// The IMB-EXT benchmark definitions (guide 4.2.3): one-sided communication.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::ext {

// The info passed to every MPI_Win_create (guide 5.2.3.3, IMB's User_Set_Info): edit this
// function to tune windows for a machine. The default is MPI_INFO_NULL.
MPI_Info user_window_info();

std::vector<core::Benchmark> one_sided_benchmarks();  // one_sided.cpp

// All of them in IMB-EXT's order: Window, Unidir_Put, Unidir_Get, Bidir_Get, Bidir_Put,
// Accumulate.
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::ext
