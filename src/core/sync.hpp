// How the ranks of a measurement start a repetition together: the named, pluggable part of the
// methodology. IMB's MPI_Barrier measures the library's barrier along with the operation and lets
// ranks leave it at different times; mpiscope's own barrier does not depend on the library's
// collective algorithms; the window scheme starts every rank at the same global time on clocks
// synchronised by ping-pong (ReproMPI, SKaMPI), so no barrier is inside or just before the timing.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

#include "core/clock_model.hpp"

namespace mpiscope::core {

enum class SyncMethod { MpiBarrier, OwnBarrier, Window };
const char* sync_method_name(SyncMethod m);  // "mpi-barrier", "own-barrier", "window"
std::optional<SyncMethod> parse_sync_method(const std::string& name);

// A dissemination barrier of point-to-point messages (ceil(log2 p) rounds of zero-byte
// MPI_Sendrecv): mpiscope's own, whatever MPI_Barrier's algorithm in the library under test.
void own_barrier(MPI_Comm comm);

// Rounds of ping-pong between rank 0 of comm (the reference clock) and every other rank in turn;
// each round adds the observation with the smallest round trip to that rank's model. Collective.
void synchronize_clocks(MPI_Comm comm, ClockModel& model, int rounds = 5, int exchanges = 10);

// The resolution and the cost of MPI_Wtime on this rank, measured: the smallest non-zero step
// between consecutive readings, and the mean time of one reading.
struct TimerProperties {
  double wtick_s = 0;       // MPI_Wtick, as the library states it
  double resolution_s = 0;  // measured
  double cost_s = 0;        // measured
};
TimerProperties measure_timer();

}  // namespace mpiscope::core
