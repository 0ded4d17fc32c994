// Run metadata gathered once per run: date, machine, hosts and ranks per host, MPI library,
// mpiscope version and commit, command line. Collective over MPI_COMM_WORLD.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::core {

RunInfo collect_run_info(const std::string& suite, const std::vector<std::string>& command_line,
                         int thread_level);

// The share of the wall time since collect_run_info(), in percent, that this process was ready
// to run but waited for a CPU (the kernel's run-queue delay, /proc/self/schedstat): about 0 for an
// MPI rank with a core of its own, tens of percent when other work time-slices it. Sleeping or
// blocking by itself is not waiting for a CPU. A run in which some rank waited more than
// kDisturbedCpuWaitPercent was time-sliced, and its figures say as much about the other work as
// about MPI (compare: docs/results-db.md). NaN before collect_run_info() or where the kernel does
// not keep the delay.
//
// Measured on the 2-core test machine (bench/README.md, compare_false_alarms.sh): 0.2-11 % quiet,
// 44-54 % beside two busy loops, and with one busy loop one rank near 50 % while the other kept
// its core (which is why every rank counts, not rank 0 alone). Not the involuntary context
// switches (getrusage): there a polling rank of a quiet 2-rank job was switched out 600-1,900
// times a second by the launcher's own helper threads, more often than beside the busy loops.
double cpu_wait_percent_since_run_start();
inline constexpr double kDisturbedCpuWaitPercent = 10;

// The settings only the end of a run knows (max_cpu_wait_percent: the largest
// cpu_wait_percent_since_run_start() over the ranks, as "%.2f"; tune's tuning files).
inline constexpr const char* kEndOfRunSettings[] = {"max_cpu_wait_percent", "open_mpi_rules",
                                                    "mpich_selection"};
// Collective over MPI_COMM_WORLD, called by every front end after its last measurement and before
// rank 0's reporters see run_finished (while the watchdog still watches, where there is one):
// adds kEndOfRunSettings to `info` on rank 0.
void gather_end_of_run_settings(RunInfo& info);

// "h1: 0-1; h2: 2-3, 6": each host's ranks (ascending) as ranges, hosts in the order given.
std::string rank_ranges_by_host(
    const std::vector<std::pair<std::string, std::vector<int>>>& ranks_of_host);

// Every rank's host (MPI_Get_processor_name), indexed by world rank, on every rank. Collective
// over MPI_COMM_WORLD.
std::vector<std::string> host_of_each_rank();

// How the ranks sit on the hosts (MPI_Get_processor_name), when every host runs the same number
// of them: consecutive ranks per host (`block`: mpirun's --map-by slot, srun's default) and/or
// dealt round robin (`cyclic`: --map-by node). Collective over MPI_COMM_WORLD; same on every rank.
struct UniformLayout {
  int hosts = 0;
  int ranks_per_host = 0;  // 0 when the hosts run different numbers of ranks
  bool block = false, cyclic = false;
};
UniformLayout uniform_layout();

const char* mpiscope_version();
const char* mpiscope_commit();

}  // namespace mpiscope::core
