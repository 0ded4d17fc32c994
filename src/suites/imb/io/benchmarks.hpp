// The IMB-IO benchmark definitions (guide 4.2.4, 4.2.5; IMB 3.2.4 non-blocking flavours).
#pragma once

#include <mpi.h>

#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::io {

// The info passed to every MPI_File_open and MPI_File_set_view (guide 5.2.3.3, IMB's
// User_Set_Info): edit this function to tune MPI-IO for a machine. Default: MPI_INFO_NULL.
MPI_Info user_file_info();

// Open_Close, then Table 1's rows in its order (S_Write_indv, S_Read_indv, S_Write_expl, …),
// then the same rows' non-blocking flavours (S_IWrite_indv, …).
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::io
