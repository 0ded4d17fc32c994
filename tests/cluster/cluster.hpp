// What the multi-host tests share: whether scripts/cluster's test hosts are up (a test is skipped,
// saying why, where they are not), a folder every host sees, and the library's own launcher
// across them.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../integration/harness.hpp"

namespace cluster {

using harness::Result;
using json = nlohmann::json;

inline const std::string kState = "/run/mpiscope-cluster";

// Round robin over the hosts (rank r on host r mod 3), or filling each host's 2 slots first.
enum class Placement { kFillHosts, kRoundRobin };

inline bool cluster_up(std::string& why_not) {
  struct stat st {};
  if (stat((kState + "/hostfile").c_str(), &st) == 0) return true;
  const std::string reason = harness::read_file(kState + ".unavailable");
  why_not = "no test cluster: " +
            (reason.empty() ? std::string("scripts/cluster up has not run") : reason);
  return false;
}

#define REQUIRE_CLUSTER()                              \
  do {                                                 \
    std::string why_not;                               \
    if (!cluster_up(why_not)) GTEST_SKIP() << why_not; \
  } while (0)

// Debian's MPICH 4.0.2 (ch4:ucx) across these hosts: 2 ranks on 2 hosts work (every suite:
// EverySuiteRunsOnTwoHostsWithTheLibrarysLauncher), but with more ranks than the machine's 2
// cores its ranks, which poll without yielding, wait a time slice per message (Allreduce on 3
// ranks: 5 to 8 ms) and 6-rank runs have hung. Those tests run with Open MPI only.
#define REQUIRE_OPEN_MPI_FOR_MANY_RANKS()                                                        \
  do {                                                                                           \
    if (!harness::is_openmpi())                                                                  \
      GTEST_SKIP() << "MPICH (ch4:ucx) hangs or crawls at 3+ ranks across the test hosts here; " \
                      "see docs/testing.md";                                                     \
  } while (0)

// A folder every host sees (/tmp is private to each): outputs, databases, I/O directories.
inline std::string shared_dir() {
  return harness::temp_dir("/var/tmp");
}

// The launcher across the hosts, started on h1 in `dir` (`program`: one of the build's, or a path
// every host sees): Open MPI's mpirun with its hostfile,
// or MPICH's mpiexec with its own (-f) and ssh.
inline Result run_on_cluster(int np, Placement placement, const std::vector<std::string>& args,
                             const std::string& dir, int time_limit_s = 120,
                             const std::string& program = "mpiscope") {
  std::string launch;
  if (harness::is_openmpi()) {
    // The test hosts share this machine's 2 cores: ranks that poll without yielding would wait
    // a time slice for every message (7 ms instead of 0.2 ms per PingPong here under load).
    launch = harness::mpi_under_test().launcher + " --mca mpi_yield_when_idle 1 --hostfile " +
             kState + "/hostfile" + (placement == Placement::kRoundRobin ? " --map-by node" : "");
  } else {
    launch = harness::mpi_under_test().launcher + " -launcher ssh -f " + kState +
             "/hostfile.mpich" + (placement == Placement::kRoundRobin ? " -ppn 1" : "");
  }
  std::string cmd =
      "cd " + harness::quote(dir) +
      " && exec env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "timeout -k 5 " +
      std::to_string(time_limit_s) + " " + launch + " -np " + std::to_string(np) + " " +
      harness::quote(program[0] == '/' ? program : harness::bin_dir() + "/" + program);
  for (const auto& a : args) cmd += " " + harness::quote(a);
  return harness::run_command(std::string(MPISCOPE_SOURCE_DIR) + "/scripts/cluster exec h1 sh -c " +
                              harness::quote(cmd));
}

inline json run_json(const std::string& path) {
  return json::parse(harness::read_file(path));
}

}  // namespace cluster
