// The IMB-MPI4 benchmark definitions (current Intel IMB): the persistent collectives of MPI 4.0,
// each measured as IMB-NBC measures its non-blocking one, with CPU work overlapped
// (Bcast_persist …) and without (Bcast_persist_pure …). The request is made once per length
// (core::Benchmark::make_request); a repetition starts it and completes it.
#pragma once

#include <mpi.h>

#include <string_view>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::mpi4 {

using MakeRequestFn = void (*)(core::PointContext&, MPI_Request*);

// Whether the MPI library has persistent collectives: MPI 4.0's MPI_<Op>_init, or Open MPI
// 4.1's MPIX_<Op>_init (its pcollreq extension).
bool library_has_persistent_collectives();
// "MPI_Allreduce_init" or "MPIX_Allreduce_init": what this build calls.
std::string_view init_call_prefix();

// Starts the point's persistent request (PointContext::persistent[0]) into *request: the
// StartFn of imb::nbc's kernels.
void start_persistent(core::PointContext& c, int, MPI_Request* request);

// The maker of the persistent request for the IMB-MPI1 operation `name` ("Allreduce",
// "Alltoall" …, and "Alltoallw" for OSU), on repetition 0's buffers, counts and root; nullptr
// for none. in_place: its form with MPI_IN_PLACE where OSU 7.4's blocking programs pass it
// under -l (osu/in_place.cpp), nullptr for Bcast and Barrier.
MakeRequestFn request_maker(std::string_view name, bool in_place = false);

// Each persistent benchmark followed by its _pure variant, in IMB-MPI4's order, each overlapped
// one's blocking_twin set to its _pure variant; the overlapped ones form the default list.
const std::vector<core::Benchmark>& all_benchmarks();

}  // namespace mpiscope::imb::mpi4
