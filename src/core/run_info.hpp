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
