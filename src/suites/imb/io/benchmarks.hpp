// The IMB-IO benchmark definitions (guide 4.2.4, 4.2.5; IMB 3.2.4 non-blocking flavours).
#pragma once

#include <mpi.h>

#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::io {

// The info passed to every MPI_File_open and MPI_File_set_view (guide 5.2.3.3, IMB's
// User_Set_Info): edit this function to tune MPI-IO for a machine. Default: MPI_INFO_NULL.
MPI_Info user_file_info();

// Open_Close, then S_/P_/C_ [I]Write/[I]Read _indv/_expl/_shared/_priv in Table 1's order.
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::io
