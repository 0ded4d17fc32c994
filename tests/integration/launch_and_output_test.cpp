// What a run prints around its tables: merged stdout and stderr (2>&1, Slurm's default) keep every
// table intact, and a build started by another MPI library's launcher stops with one message.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"

using namespace harness;
using json = nlohmann::json;

namespace {

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  std::size_t used = 0;
  try {
    std::stod(s, &used);
  } catch (...) {
    return false;
  }
  return used == s.size();
}

// Launches with stdout and stderr merged, each recording into a database (the line that said so
// on stderr once landed inside PingPong's table): every table must parse with numbers only.
TEST(OutputDiscipline, ThirtyMergedLaunchesKeepEveryTableIntact) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "0\n1024\n");
  const std::string db = dir + "/r.db";
  for (int launch = 0; launch < 30; ++launch) {
    SCOPED_TRACE("launch " + std::to_string(launch));
    const auto r = run_mpi_merged(
        2, {"imb-mpi1", "PingPong", "PingPing", "-msglen", lengths, "-iter", "10", "--db", db});
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto tables = parse_imb(r.out);
    ASSERT_EQ(tables.size(), 2u) << r.out;
    for (const auto& t : tables) {
      ASSERT_EQ(t.cells.size(), 2u) << t.name << "\n" << r.out;
      for (const auto& row : t.cells) {
        EXPECT_EQ(row.size(), t.columns.size()) << t.name << "\n" << r.out;
        for (const auto& cell : row) EXPECT_TRUE(is_number(cell)) << cell << "\n" << r.out;
      }
    }
    // Anything else would be a stray line: IMB's output is '#' lines and blank-led table lines.
    for (const auto& line : lines_of(r.out))
      EXPECT_TRUE(line.empty() || line[0] == '#' || line[0] == ' ') << line << "\n" << r.out;
    // The database line comes last, as a comment.
    const std::string said = "# mpiscope: results recorded as run " + std::to_string(launch + 1);
    const auto at = r.out.find(said);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_GT(at, r.out.find("# All processes entering MPI_Finalize")) << r.out;
    if (HasFailure()) break;
  }
}

// The variables another library's launcher sets for a 2-process job, planted on a 1-process run
// of this build: the world has 1 process while the environment says 2.
TEST(LauncherMismatch, ForeignLaunchVariablesStopTheRunWithOneMessage) {
  const std::string foreign = is_openmpi() ? "PMI_SIZE=2 MPI_LOCALNRANKS=2 PMI_RANK="
                                           : "OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=";
  const std::string own = is_openmpi() ? "Open MPI" : "MPICH";
  const std::string theirs = is_openmpi() ? "MPICH's mpiexec" : "Open MPI's mpirun";
  for (const char* rank : {"0", "1"}) {
    const auto r = run_mpi(1, {"imb-mpi1", "PingPong"}, foreign + rank, 60);
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_EQ(r.out.find("Benchmarking"), std::string::npos) << r.out;
    // One message per job: the launcher's rank 0 says it.
    EXPECT_EQ(count_of(r.err, "this mpiscope is built for " + own + " but was started by"),
              std::string(rank) == "0" ? 1 : 0)
        << r.err;
    if (std::string(rank) == "0") {
      EXPECT_NE(r.err.find(theirs), std::string::npos) << r.err;
    }
  }
  // The same run without the planted variables measures.
  const auto ok = run_mpi(1, {"imb-mpi1", "Barrier", "-iter", "5"}, "", 60);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// The real thing: the other library's build (build/ or build-mpich/ next to this one) under this
// build's launcher. Each flavour's tests cover one direction.
TEST(LauncherMismatch, OtherLibrarysBuildUnderThisLauncherStops) {
  const auto root = std::filesystem::path(bin_dir()).parent_path().parent_path();
  const auto other = root / (is_openmpi() ? "build-mpich" : "build") / "bin" / "mpiscope";
  if (!std::filesystem::exists(other))
    GTEST_SKIP() << other << " is not built (scripts/build " << (is_openmpi() ? "mpich" : "openmpi")
                 << ")";
  const auto r = run_mpi(2, {"imb-mpi1", "PingPong"}, "", 60, other.string());
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_EQ(r.out.find("Benchmarking"), std::string::npos) << r.out;
  const std::string message = std::string("this mpiscope is built for ") +
                              (is_openmpi() ? "MPICH" : "Open MPI") + " but was started by " +
                              (is_openmpi() ? "Open MPI's mpirun" : "Hydra, MPICH's mpiexec");
  EXPECT_EQ(count_of(r.err, message), 1) << r.err;
}

// The heap policy (core/heap_policy.hpp) is said in the IMB header and recorded in the JSON: fixed
// thresholds by default (the C library's own under AddressSanitizer, whose allocator ignores
// them), the C library's adaptive ones with MPISCOPE_HEAP=system, and the user's own when the
// environment sets them.
TEST(HeapPolicy, HeaderAndJsonSayWhichRan) {
  const auto dir = temp_dir();
  const std::string fixed = sanitized_executables() ? "the C library's own (its thresholds cannot"
                                                    : "fixed for the run (mmap threshold 32 MiB";
  for (const auto& [env, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", fixed},
           {"MPISCOPE_HEAP=system", "the C library's adaptive thresholds (MPISCOPE_HEAP=system)"},
           {"GLIBC_TUNABLES=glibc.malloc.trim_threshold=1048576",
            "thresholds as the environment sets them"}}) {
    SCOPED_TRACE(env);
    const std::string json_path = dir + "/r.json";
    const auto r = run_mpi(2, {"imb-mpi1", "Barrier", "-iter", "5", "--json", json_path}, env, 60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string header;
    for (const auto& line : lines_of(r.out))
      if (line.rfind("# Heap: ", 0) == 0) header = line.substr(8);
    EXPECT_EQ(header.rfind(expected, 0), 0u) << r.out;
    const json j = json::parse(read_file(json_path));
    EXPECT_EQ(j["run"]["settings"]["heap"], header);
  }
  // OSU's programs run under the C library's thresholds by default, as OSU's own binaries do.
  for (const auto& [env, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "the C library's adaptive thresholds (as this suite's own programs run"},
           {"MPISCOPE_HEAP=fixed", fixed}}) {
    SCOPED_TRACE("osu " + env);
    const std::string json_path = dir + "/osu.json";
    const auto r = run_mpi(2, {"osu", "osu_latency", "-m", "8:8", "--json", json_path}, env, 60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string heap = json::parse(read_file(json_path))["run"]["settings"]["heap"];
    EXPECT_EQ(heap.rfind(expected, 0), 0u) << heap;
  }
}

}  // namespace
