// Run metadata gathered once per run: date, machine, hosts and ranks per host, MPI library,
// mpiscope version and commit, command line. Collective over MPI_COMM_WORLD.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::core {

RunInfo collect_run_info(const std::string& suite, const std::vector<std::string>& command_line,
                         int thread_level);

const char* mpiscope_version();
const char* mpiscope_commit();

}  // namespace mpiscope::core
