#pragma once

#include <string>
#include <vector>

namespace mpiscope::imb {

// argv[0] is the program name as called (IMB-MPI1 or "imb-mpi1" under mpiscope);
// command_line is what the output repeats.
int imb_mpi1_main(int argc, char** argv, const std::string& program,
                  const std::vector<std::string>& command_line);

}  // namespace mpiscope::imb
