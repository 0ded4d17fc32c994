// IMB-EXT end to end: every one-sided benchmark on 1 to 4 processes, both modes, -check.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "imb_checks.hpp"

using namespace harness;
using namespace imbcheck;

namespace {

class ExtBenchmarks : public ::testing::TestWithParam<int> {};

TEST_P(ExtBenchmarks, EveryBenchmarkInEveryModeAtEveryProcessCount) {
  const int np = GetParam();
  const auto lengths = write_file(temp_dir(), "lengths", "0\n4\n1000\n65536\n");
  // MSGSPERSAMPLE 30 (aggregate), OVERALL_VOL 1 MB, MSGS_NONAGGR 12 (non-aggregate, Window).
  // IMB 3.1's rules (NON-AGGREGATE first, MSGS_NONAGGR whatever MSGSPERSAMPLE); current IMB's are
  // checked against Intel's output in imb_rules_test.cpp.
  const auto r = run_mpi(
      np, {"imb-ext", "-msglen", lengths, "-iter", "30,1,12", "-check", "-imb_rules", "3.1"});
  if (np == 1 && is_openmpi()) {
    // Open MPI 4.1 has no one-sided component for MPI_Win_create on a single process: every
    // point must say so, and the run must end with status 1, not crash.
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const auto tables = parse_imb(r.out);
    ASSERT_EQ(tables.size(), 3u);  // Window, Accumulate non-aggregate and aggregate
    for (const auto& t : tables)
      for (const auto& row : t.rows)
        EXPECT_NE(row.find("not run: MPI_Win_create failed"), std::string::npos) << row;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("MPI-2 part"), std::string::npos);
  EXPECT_NE(r.out.find("ALL BENCHMARKS SUCCESSFUL"), std::string::npos);
  const auto tables = parse_imb(r.out);
  for (const auto& name : kExtBenchmarks) {
    const auto found = tables_named(tables, name);
    const bool single = is_single(name);
    if (single && np == 1) {
      EXPECT_TRUE(found.empty());
      EXPECT_NE(r.out.find("# !! Benchmark " + name + " invalid for 1 processes !!"),
                std::string::npos);
      continue;
    }
    const std::size_t layouts = single ? 1 : (np <= 2 ? 1 : 2);  // np=3,4: 2 then np
    const std::size_t modes = name == "Window" ? 1 : 2;
    ASSERT_EQ(found.size(), layouts * modes) << name;
    for (std::size_t k = 0; k < found.size(); ++k) {
      const auto& t = *found[k];
      SCOPED_TRACE(name + " table " + std::to_string(k));
      const bool aggregate = modes == 2 && k % 2 == 1;
      EXPECT_EQ(t.mode, modes == 1 ? "" : (aggregate ? "AGGREGATE" : "NON-AGGREGATE"));
      EXPECT_EQ(t.columns, expected_columns(name, false, false, true));
      expect_imb_layout(t);
      expect_consistent_numbers(t, name);
      ASSERT_EQ(t.cells.size(), 4u);
      const std::vector<std::string> bytes = {"0", "4", "1000", "65536"};
      // n_sample = min(cap, max(1, 1 MB / X)); cap = 30 aggregate, 12 non-aggregate and Window.
      const int cap = aggregate ? 30 : 12;
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        EXPECT_EQ(t.cells[i][0], bytes[i]);
        const long x = std::stol(bytes[i]);
        const long reps = x == 0 ? cap : std::max(1L, std::min<long>(cap, 1048576 / x));
        EXPECT_EQ(t.cells[i][1], std::to_string(reps)) << t.rows[i];
        EXPECT_EQ(t.cells[i].back(), "0.00") << "defects in " << t.rows[i];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ProcessCounts, ExtBenchmarks, ::testing::Values(1, 2, 3, 4));

TEST(ImbExt, CheckFindsACorruptByteInPutGetAndAccumulate) {
  const auto lengths = write_file(temp_dir(), "l", "0\n64\n");
  const auto r = run_mpi(2,
                         {"imb-ext", "-check", "-iter", "10", "-msglen", lengths, "Unidir_Put",
                          "Bidir_Get", "Accumulate"},
                         "MPISCOPE_FAULT=corrupt:1");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), 6u);
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name + " " + t.mode);
    EXPECT_EQ(t.cells[0].back(), "0.00");
    // Rank 1 is the target of Unidir_Put and an origin of Bidir_Get; Accumulate lands on rank 0.
    EXPECT_EQ(t.cells[1].back(), t.name == "Accumulate" ? "0.00" : "1.00");
  }
}

TEST(ImbExt, MultiModeRunsPairsAtOnce) {
  const auto lengths = write_file(temp_dir(), "l", "0\n1024\n");
  const auto r =
      run_mpi(4, {"imb-ext", "-multi", "0", "-iter", "10", "-msglen", lengths, "Bidir_Put"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto tables = parse_imb(r.out);
  const auto t = tables_named(tables, "Multi-Bidir_Put");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]->groups, 2);
  EXPECT_EQ(t[0]->columns, expected_columns("Bidir_Put", true, false, false));
  expect_imb_layout(*t[0]);
}

TEST(ImbExt, AliasAndDefaultsFollowTheGuide) {
  const auto r = run_mpi(2, {"Window", "-msglen", write_file(temp_dir(), "l", "0\n524288\n")}, "",
                         120, "IMB-EXT");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = parse_imb(r.out);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].cells[0][1], "100");  // MSGS_NONAGGR
  EXPECT_EQ(t[0].cells[1][1], "80");   // 40 MB / 512 KiB, as in the guide's sample 4
}

}  // namespace
