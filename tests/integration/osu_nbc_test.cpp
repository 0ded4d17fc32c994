// OSU's non-blocking collectives with overlap end to end: the header lines compared line by line
// with a capture of OSU 7.4's own binaries (tests/data/import/osu_nbc_7.4.txt: Open MPI 4.1, 2
// processes), rows of 18-wide figures, the overlap formula and the CPU work's sizing recomputed
// from the JSON, -t's MPI_Test calls counted in a PMPI trace, -f's phases, -c catching a planted
// corruption, every program once, and a run compared with the imported capture.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

const std::string kCapture = std::string(MPISCOPE_TEST_DATA) + "/import/osu_nbc_7.4.txt";
// OSU 7.4's osu_allreduce, osu_reduce_scatter and osu_iallreduce on their default MPI_CHAR.
const std::string kReductionsCapture =
    std::string(MPISCOPE_TEST_DATA) + "/import/osu_reductions_7.4.txt";

// The capture's header of the table titled `title`: the title line up to the column line.
std::vector<std::string> captured_header(const std::string& title) {
  std::vector<std::string> header;
  for (const auto& line : lines_of(read_file(kCapture))) {
    if (header.empty() && line.rfind(title, 0) != 0) continue;
    header.push_back(line);
    if (line.find("Overlap(%)") != std::string::npos) break;
  }
  return header;
}

// A row: the size in 10 columns (or none: osu_ibarrier's first figure is 13 wide), then figures
// 18 wide with two decimals, then `texts`.
void expect_row(const std::string& line, const std::string& size, int figures,
                const std::vector<std::string>& texts = {}) {
  std::string pattern =
      size.empty() ? "( {0,12}\\d+\\.\\d\\d)" : size + std::string(10 - size.size(), ' ');
  for (int i = size.empty() ? 1 : 0; i < figures; ++i) pattern += "( {0,17}-?\\d+\\.\\d\\d)";
  for (const auto& t : texts) pattern += std::string(18 - t.size(), ' ') + t;
  EXPECT_TRUE(std::regex_match(line, std::regex(pattern))) << "'" << line << "' !~ " << pattern;
  const std::size_t first = size.empty() ? 13 : 10 + 18;
  EXPECT_EQ(line.size(), first + 18 * (static_cast<std::size_t>(figures) - 1 + texts.size()));
}

double figure(const std::string& line, int column) {  // column 0: Overall, on a sized row
  return std::stod(line.substr(static_cast<std::size_t>(10 + 18 * column), 18));
}

// The columns, the overlap formula (OSU: max(0, 100 − 100·(overall − compute)/pure), means over
// the ranks) and the CPU work sized to t_pure (each rank computes at least its own t_pure).
TEST(OsuNonBlocking, IallgatherMatchesOsuHeaderAndItsOverlapFormula) {
  const auto dir = temp_dir();
  const auto r = run_mpi(4, {"-m", "1:16", "-i", "20", "-x", "2", "--json", dir + "/r.json"}, "",
                         90, "osu_iallgather");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto l = osu_lines(r.out);
  const auto header = captured_header("# OSU MPI Non-blocking Allgather Latency Test v7.4");
  ASSERT_EQ(header.size(), 5u);
  ASSERT_EQ(l.size(), header.size() + 5) << r.out;
  for (std::size_t i = 0; i < header.size(); ++i) EXPECT_EQ(l[i], header[i]) << i;
  const auto title = r.out.find("# OSU MPI");  // after print_preamble_nbc's blank line
  ASSERT_NE(title, std::string::npos);
  EXPECT_TRUE(title == 1 ? r.out[0] == '\n' : r.out.compare(title - 2, 2, "\n\n") == 0);

  const json doc = json::parse(read_file(dir + "/r.json"));
  const auto& table = doc.at("benchmarks").at(0);
  EXPECT_EQ(table.at("name"), "osu_iallgather");
  EXPECT_EQ(table.at("nprocs"), 4);
  const auto& rows = table.at("rows");
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& row = rows[i];
    const auto& line = l[header.size() + i];
    expect_row(line, std::to_string(1u << i), 4);
    const auto& o = row.at("overlap");
    const double overall = row.at("t_avg_us").get<double>();
    const double compute = o.at("t_cpu_us").get<double>(), pure = o.at("t_pure_us").get<double>();
    EXPECT_EQ(o.at("base"), "t_pure");
    EXPECT_DOUBLE_EQ(o.at("t_ovrl_us").get<double>(), overall);
    EXPECT_GE(compute, pure * (1 - 1e-9));  // the work computes for t_pure at least
    const double overlap = std::clamp(100 - 100 * (overall - compute) / pure, 0.0, 100.0);
    EXPECT_NEAR(o.at("overlap_percent").get<double>(), overlap, 1e-9);
    EXPECT_NEAR(figure(line, 0), overall, 0.0051);
    EXPECT_NEAR(figure(line, 1), compute, 0.0051);
    EXPECT_NEAR(figure(line, 2), pure, 0.0051);
    EXPECT_NEAR(figure(line, 3), overlap, 0.0051);
    EXPECT_EQ(row.at("repetitions"), 20);
  }
}

// -t N: N MPI_Test calls in every overlapped iteration (warm-up and timed, none in the pure
// loop), counted in a PMPI trace; -f: every phase, as OSU's header names them.
TEST(OsuNonBlocking, TestCallsFollowTAndFullShowsEveryPhase) {
  const auto dir = temp_dir();
  const auto program = with_pmpi_library(dir);
  for (int t : {0, 3}) {
    SCOPED_TRACE(t);
    const auto trace = dir + "/t" + std::to_string(t);
    std::filesystem::create_directory(trace);
    const auto r = run_mpi(2,
                           {"osu", "osu_ibcast", "-m", "1:8", "-i", "5", "-x", "2", "-f", "-t",
                            std::to_string(t), "--json", dir + "/r.json"},
                           "MPISCOPE_TRACE=" + trace, 60, program);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (int rank = 0; rank < 2; ++rank)
      EXPECT_EQ(count_of(read_file(trace + "/trace." + std::to_string(rank)), "MPI_Test "),
                4 * (5 + 2) * t);  // 4 sizes, (-i + -x) iterations
    const auto l = osu_lines(r.out);
    const auto header = captured_header("# OSU MPI Non-Blocking Broadcast Latency Test v7.4");
    ASSERT_EQ(header.size(), 5u);
    ASSERT_EQ(l.size(), header.size() + 4) << r.out;
    for (std::size_t i = 0; i < header.size(); ++i) EXPECT_EQ(l[i], header[i]) << i;
    const json doc = json::parse(read_file(dir + "/r.json"));
    for (std::size_t i = 0; i < 4; ++i) {
      const auto& line = l[header.size() + i];
      expect_row(line, std::to_string(1u << i), 9);
      const auto& values = doc["benchmarks"][0]["rows"][i]["values"];
      const double test_us = values["mpi_test_us"]["value"].get<double>();
      if (t == 0) {
        EXPECT_EQ(test_us, 0.0);
      } else {
        EXPECT_GT(test_us, 0.0);
      }
      EXPECT_NEAR(figure(line, 3), test_us, 0.0051);       // MPI_Test(us)
      EXPECT_LE(figure(line, 6), figure(line, 5) + 0.01);  // Min Comm. ≤ Pure Comm. ≤ Max Comm.
      EXPECT_LE(figure(line, 5), figure(line, 7) + 0.01);
    }
  }
}

TEST(OsuNonBlocking, IbarrierHasNoSizeColumn) {
  const auto r = run_mpi(3, {"-i", "10", "-x", "1"}, "", 60, "osu_ibarrier");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto l = osu_lines(r.out);
  const auto header = captured_header("# OSU MPI Non-blocking Barrier Latency Test v7.4");
  ASSERT_EQ(header.size(), 4u);  // no datatype line
  ASSERT_EQ(l.size(), header.size() + 1) << r.out;
  for (std::size_t i = 0; i < header.size(); ++i) EXPECT_EQ(l[i], header[i]) << i;
  expect_row(l.back(), "", 4);
}

TEST(OsuNonBlocking, ValidationCatchesAPlantedCorruption) {
  const std::vector<std::string> args = {"osu", "osu_igather", "-m", "8:8", "-i", "3", "-c"};
  const auto clean = run_mpi(2, args, "", 60);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  auto l = osu_lines(clean.out);
  ASSERT_EQ(l.size(), 6u) << clean.out;
  EXPECT_NE(l[4].find("Overlap(%)        Validation"), std::string::npos) << l[4];
  expect_row(l[5], "8", 4, {"Pass"});
  const auto bad = run_mpi(2, args, "MPISCOPE_FAULT=corrupt:0", 60);
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  l = osu_lines(bad.out);
  ASSERT_EQ(l.size(), 6u) << bad.out;
  expect_row(l[5], "8", 4, {"Fail"});
}

// Every program runs under its name with OSU 7.4's title (its BENCHMARK macro).
TEST(OsuNonBlocking, EveryProgramRunsWithItsTitle) {
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"osu_iallreduce", "Non-blocking Allreduce"},
      {"osu_ibcast", "Non-Blocking Broadcast"},
      {"osu_ialltoall", "Non-blocking All-to-All"},
      {"osu_iallgather", "Non-blocking Allgather"},
      {"osu_ireduce", "Non-blocking Reduce"},
      {"osu_igather", "Non-blocking Gather"},
      {"osu_iscatter", "Non-blocking Scatter"},
      {"osu_ibarrier", "Non-blocking Barrier"},
      {"osu_ialltoallv", "Non-blocking All-to-Allv Personalized Exchange"},
      {"osu_iallgatherv", "Non-blocking Allgatherv"},
      {"osu_igatherv", "Non-blocking Gatherv"},
      {"osu_iscatterv", "Non-blocking Scatterv"},
      {"osu_ireduce_scatter", "Non-blocking Reduce_scatter"}};
  for (const auto& [name, title] : programs) {
    SCOPED_TRACE(name);
    std::vector<std::string> args = {"-i", "3", "-x", "1"};
    // osu_ibarrier moves no data: no -m, and no -c (refused, as OSU's option string has none).
    if (name != "osu_ibarrier") args.insert(args.end(), {"-m", "8:8", "-c"});
    const auto r = run_mpi(2, args, "", 60, name);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto l = osu_lines(r.out);
    ASSERT_FALSE(l.empty()) << r.out;
    EXPECT_EQ(l[0], "# OSU MPI " + title + " Latency Test v7.4");
    if (name != "osu_ibarrier") expect_row(l.back(), "8", 4, {"Pass"});
  }
}

// osu_ireduce_scatter_block and osu_ialltoallw (issue 34): the non-blocking forms of the blocking
// programs' calls, on their definitions, print as OSU 7.4's own
// (tests/data/import/osu_nbc_block_and_w_7.4.txt, 2 Open MPI ranks); -c passes on every type and
// fails a planted corruption.
TEST(OsuNonBlocking, ReduceScatterBlockAndAlltoallwAsOsusOwn) {
  const auto shape = osu_shape;
  const auto block =
      run_mpi(2, {"-m", "16", "-i", "10", "--no-db"}, "", 60, "osu_ireduce_scatter_block");
  const auto w =
      run_mpi(2, {"-m", "16", "-i", "10", "-T", "mpi_int", "--no-db"}, "", 60, "osu_ialltoallw");
  ASSERT_EQ(block.exit_code, 0) << block.err;
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(shape(block.out + w.out), shape(read_file(std::string(MPISCOPE_TEST_DATA) +
                                                      "/import/osu_nbc_block_and_w_7.4.txt")))
      << block.out << w.out;
  for (const std::string name : {"osu_ireduce_scatter_block", "osu_ialltoallw"})
    expect_osu_validation_on_every_type(name, 2);
}

TEST(OsuNonBlocking, BadProbeCountIsOneErrorLine) {
  const auto r = run_mpi(2, {"osu", "osu_iallreduce", "-t", "-1"}, "", 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "Invalid Number of Probes [-t -1]"), 1) << r.err;
  const auto other = run_mpi(2, {"osu", "osu_allreduce", "-t", "2"}, "", 30);
  EXPECT_EQ(other.exit_code, 2) << other.err;  // -t is the non-blocking collectives' only
}

// A run in the database compares with OSU's own run of the same program, imported: the same
// name and datatype (MPI_CHAR, OSU 7.4's default), the Overall figures on both sides. OSU's run
// with -T mpi_float (osu_nbc_7.4.txt) is another table: it does not match the MPI_CHAR run.
TEST(OsuNonBlocking, RunComparesWithImportedOsuCapture) {
  const auto dir = temp_dir();
  const auto db = dir + "/osu.db";
  const auto r =
      run_mpi(2, {"-m", "1:16", "-i", "10", "-x", "1", "--db", db}, "", 60, "osu_iallreduce");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto imported = run_plain({"import", "--db", db, kReductionsCapture, kCapture});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err << c.out;
  EXPECT_NE(c.out.find("# osu_iallreduce, 2 processes, datatype=MPI_CHAR"), std::string::npos)
      << c.out;
  std::vector<std::string> imported_overall;
  for (const auto& line : lines_of(c.out)) {
    std::istringstream in(line);
    std::string bytes, a, b;
    if (in >> bytes >> a >> b &&
        (bytes == "1" || bytes == "2" || bytes == "4" || bytes == "8" || bytes == "16"))
      imported_overall.push_back(b);
  }
  // The capture's Overall(us) of osu_iallreduce at 1 … 16 bytes.
  EXPECT_EQ(imported_overall, (std::vector<std::string>{"2.02", "1.34", "1.38", "1.41", "1.43"}))
      << c.out;
  const auto other = run_plain({"compare", "--db", db, "1", "3"});
  EXPECT_NE(other.out.find("# only in A: osu_iallreduce, 2 processes, datatype=MPI_CHAR\n"),
            std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("# only in B: osu_iallreduce, datatype=MPI_FLOAT\n"), std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("# 0 rows compared"), std::string::npos) << other.out;
}

}  // namespace
