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

// How often per second, since collect_run_info(), the kernel took the CPU from this process to
// run other work (involuntary context switches): a few for an MPI rank on a core of its own,
// hundreds when other work time-slices it. A rank that sleeps or blocks by itself switches
// voluntarily, which this does not count. A run whose rank 0 was preempted more often than
// kDisturbedPreemptionsPerSecond was time-sliced, and its figures say as much about the other
// work as about MPI (compare: docs/results-db.md). NaN before collect_run_info().
double preemptions_per_second_since_run_start();
inline constexpr double kDisturbedPreemptionsPerSecond = 50;

// The settings only the end of a run knows (rank0_preemptions_per_s:
// preemptions_per_second_since_run_start() as "%.1f"), added to `info` on rank 0 as the run
// finishes (ReporterList::run_finished), so that every reporter records the same.
inline constexpr const char* kEndOfRunSettings[] = {"rank0_preemptions_per_s"};
void add_end_of_run_settings(RunInfo& info);

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
