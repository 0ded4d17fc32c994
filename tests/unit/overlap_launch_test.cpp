// IMB-IO's overlap figure (clamped, with its plausible error) and the launcher mismatch check.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/launcher_check.hpp"
#include "core/overlap.hpp"

using namespace mpiscope::core;

TEST(OverlapFigure, ClampedToZeroAndHundredAsIntelPrintsIt) {
  // Perfect overlap, none, and half.
  EXPECT_DOUBLE_EQ(overlap_figure(100, 100, 100, 0).percent, 100);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 100, 200, 0).percent, 0);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 250, 0).percent, 50);
  // The figures: t_pure of a few us against t_CPU drifting by a quarter.
  const auto below = overlap_figure(4, 100000, 125000, 0);
  EXPECT_DOUBLE_EQ(below.raw_percent, 100.0 * (4 + 100000 - 125000) / 4);
  EXPECT_DOUBLE_EQ(below.percent, 0);
  const auto above = overlap_figure(4, 100000, 90000, 0);
  EXPECT_DOUBLE_EQ(above.percent, 100);
  EXPECT_TRUE(below.doubtful);
  EXPECT_TRUE(above.doubtful);
  // Nothing to divide by.
  EXPECT_DOUBLE_EQ(overlap_figure(0, 100, 100, 5).percent, 0);
  EXPECT_FALSE(overlap_figure(0, 100, 100, 5).doubtful);
}

TEST(OverlapFigure, DoubtfulOnlyBeyondThePlausibleError) {
  // raw = 100 (100 + 200 - 310) / 100 = -10 %.
  const auto f = overlap_figure(100, 200, 310, 5);
  EXPECT_DOUBLE_EQ(f.raw_percent, -10);
  EXPECT_DOUBLE_EQ(f.error_percent, 5);
  EXPECT_TRUE(f.doubtful);
  EXPECT_FALSE(overlap_figure(100, 200, 310, 10).doubtful);  // exactly at the edge: plausible
  EXPECT_FALSE(overlap_figure(100, 200, 310, 20).doubtful);
  // raw = 110 %: above by 10.
  EXPECT_TRUE(overlap_figure(100, 200, 190, 9.9).doubtful);
  EXPECT_FALSE(overlap_figure(100, 200, 190, 10.1).doubtful);
  // Inside 0-100 is never doubtful, whatever the error.
  EXPECT_FALSE(overlap_figure(100, 200, 250, 0).doubtful);
}

// IMB-NBC divides by the larger time (current IMB's IMB_output.c): with t_CPU sized to t_pure,
// 100 % when t_ovrl is that time (the work hid the collective), 0 % when it is the sum; with
// unequal times, complete overlap reads min/max.
TEST(OverlapFigure, ImbNbcDividesByTheLargerTime) {
  constexpr auto larger = OverlapBase::Larger;
  EXPECT_DOUBLE_EQ(overlap_figure(200, 200, 200, 0, larger).percent, 100);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 200, 0, larger).percent, 50);
  EXPECT_DOUBLE_EQ(overlap_figure(200, 100, 300, 0, larger).percent, 0);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 250, 0, larger).raw_percent, 25);  // IMB-IO: 50
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 250, 0).raw_percent, 50);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 190, 0, larger).percent, 55);  // IMB-IO: 110 %
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 150, 0, larger).raw_percent, 75);
  EXPECT_DOUBLE_EQ(overlap_figure(100, 200, 190, 4, larger).error_percent, 2);
  EXPECT_DOUBLE_EQ(overlap_figure(0, 0, 5, 1, larger).percent, 0);  // nothing to divide by
}

TEST(OverlapFigure, ErrorGrowsWithTheCpuSpreadAndTheTimer) {
  EXPECT_DOUBLE_EQ(overlap_error_us(10, 100, 105, 0, 0), 0);
  EXPECT_DOUBLE_EQ(overlap_error_us(10, 100, 105, 0.1, 0), 0.1 * 215);
  EXPECT_DOUBLE_EQ(overlap_error_us(10, 100, 105, 0, 1), 6);
  EXPECT_DOUBLE_EQ(overlap_error_us(10, 100, 105, -1, 0), 0);
}

namespace {
std::optional<LauncherMismatch> check(int world_size, const std::string& library,
                                      const std::map<std::string, std::string>& env) {
  return launcher_mismatch(world_size, library, [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}
const std::string kOpenMpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4";
const std::string kMpich = "MPICH Version:      4.0.2\nMPICH Release date: Thu Apr  7 2022";
}  // namespace

TEST(LauncherMismatch, OpenMpiBuildUnderHydraNamesBothLibraries) {
  const auto m =
      check(1, kOpenMpi, {{"PMI_SIZE", "2"}, {"PMI_RANK", "0"}, {"MPI_LOCALNRANKS", "2"}});
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->speaks);
  EXPECT_NE(m->message.find("built for Open MPI"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("Hydra, MPICH's mpiexec"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("PMI_SIZE=2"), std::string::npos) << m->message;
  // The launcher's other ranks stay quiet: one message per job.
  EXPECT_FALSE(check(1, kOpenMpi, {{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}})->speaks);
}

TEST(LauncherMismatch, MpichBuildUnderOpenMpisMpirun) {
  const auto m =
      check(1, kMpich,
            {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "0"}, {"PMIX_RANK", "0"}});
  ASSERT_TRUE(m);
  EXPECT_NE(m->message.find("built for MPICH"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("Open MPI's mpirun"), std::string::npos) << m->message;
  EXPECT_NE(m->message.find("each of the 4 processes"), std::string::npos) << m->message;
}

TEST(LauncherMismatch, NoneForARealJobASingletonOrOneProcess) {
  EXPECT_FALSE(check(2, kOpenMpi, {{"PMI_SIZE", "2"}}));  // the world is what the launcher said
  EXPECT_FALSE(check(1, kOpenMpi, {}));                   // started without a launcher
  EXPECT_FALSE(check(1, kOpenMpi, {{"OMPI_COMM_WORLD_SIZE", "1"}, {"PMI_SIZE", "1"}}));
  EXPECT_FALSE(check(1, kMpich, {{"PMI_SIZE", "two"}}));
}

TEST(LauncherMismatch, LibraryFamilies) {
  EXPECT_EQ(mpi_library_family(kOpenMpi), "Open MPI");
  EXPECT_EQ(mpi_library_family(kMpich), "MPICH");
  EXPECT_EQ(mpi_library_family("MVAPICH2 Version 2.3 (MPICH 3.2)"), "MVAPICH");
  EXPECT_EQ(mpi_library_family("Intel(R) MPI Library 2021.6"), "Intel MPI");
}
