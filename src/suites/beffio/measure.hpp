// How b_eff_io times a partition: for each access method and pattern type, the time from opening
// to closing the type's file, the patterns inside it time-driven (types 0–2) or size-driven
// (types 3 and 4), and what was timed handed to the reporter on rank 0 afterwards.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/accurate.hpp"
#include "core/reporter.hpp"
#include "core/watchdog.hpp"

namespace mpiscope::beffio {

struct PartitionPlan {
  MPI_Comm comm = MPI_COMM_NULL;  // the partition's processes
  double seconds = 0;             // T
  std::size_t m_part = 0;         // M_PART in bytes
  std::string file_prefix;        // io-dir/b_eff_io_<tag>_np<n>
  std::uint64_t disk_limit = 0;   // bytes the initial write may put into the files (all processes)
  std::uint64_t fs_cache = 0;     // bytes of file system cache to compare with (0: no check)
  int nodes = 1;
  // --method accurate: every pattern's calls are repetitions timed by the core (see measure.cpp
  // and docs/beffio.md); the budget of a pattern is the smaller of the settings' and its share
  // of T.
  std::optional<core::AccurateSettings> accurate;
};

// The whole benchmark on one partition; reports (rank 0 of the partition, which is world rank 0)
// one BenchmarkRun per pattern and the summary figures. Returns the partition's b_eff_io on
// rank 0 (MiB/s).
double measure_partition(const PartitionPlan& plan, core::Reporter& out, core::Watchdog& watchdog);

}  // namespace mpiscope::beffio
