// The IMB-MPI1 benchmark definitions, one file per class of the guide (3.3.1).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::mpi1 {

std::vector<core::Benchmark> single_transfer_benchmarks();    // single_transfer.cpp
std::vector<core::Benchmark> parallel_transfer_benchmarks();  // parallel_transfer.cpp
std::vector<core::Benchmark> reduction_benchmarks();          // reductions.cpp
std::vector<core::Benchmark> collective_benchmarks();         // collectives.cpp
std::vector<core::Benchmark> bandwidth_benchmarks();          // bandwidth.cpp (current IMB)

// All of them, in IMB's default order (PingPong … Barrier).
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::mpi1
