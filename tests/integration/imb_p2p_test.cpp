// IMB-P2P end to end (issue 34 item 2): its text line by line against real output of Intel's
// IMB-P2P 2021.11 (tests/data/import/imb_p2p_2021_openmpi_np4.txt: Open MPI 4.1.4, 4 processes;
// imb_p2p_2021_mpich_np2.txt: MPICH 4.0.2, 2 processes);
// Unirandom's random pairs as IMB-P2P's generator draws them and Stencil2D's neighbours (PMPI
// trace); the figures as IMB-P2P computes them from the JSON's times; the report's counts of the
// messages each rank sends; the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"

namespace {
using namespace harness;

// Every line that is no row is Intel's, but the machine's and the launch's own; every row has
// Intel's width, length and repetitions. Open MPI at 4 processes (Stencil2D runs, Stencil3D is
// invalid); MPICH, whose waiting ranks poll, at 2 (both stencils invalid), each against Intel's
// run under the same library.
TEST(ImbP2p, TextIsIntelsLineByLine) {
  const int processes = is_openmpi() ? 4 : 2;
  const auto r = run_mpi(processes, {"-msglog", "0:4", "-iter", "200", "-pause", "0", "--no-db"},
                         "", 240, "IMB-P2P");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto intel = lines_of(read_file(
      sample(is_openmpi() ? "imb_p2p_2021_openmpi_np4.txt" : "imb_p2p_2021_mpich_np2.txt")));
  const auto ours = lines_of(r.out);
  ASSERT_EQ(ours.size(), intel.size()) << r.out;
  for (std::size_t k = 0; k < intel.size(); ++k) {
    SCOPED_TRACE("line " + std::to_string(k + 1) + ": " + intel[k]);
    // The machine's, the library's and the launch's own lines differ by nature.
    bool own = false;
    for (const char* head :
         {"# Date ", "# Machine ", "# Release ", "# Version ", "# MPI Version", "# ./IMB-P2P"})
      own = own || intel[k].starts_with(head);
    if (own) {
      EXPECT_EQ(ours[k].substr(0, 2), "# ");
      continue;
    }
    if (intel[k].empty() || intel[k][0] == '#') {
      EXPECT_EQ(ours[k], intel[k]);
      continue;
    }
    const auto mine = words_of(ours[k]), theirs = words_of(intel[k]);
    ASSERT_EQ(mine.size(), theirs.size()) << ours[k];
    EXPECT_EQ(mine[0], theirs[0]);
    EXPECT_EQ(mine[1], theirs[1]);
    EXPECT_EQ(ours[k].size(), intel[k].size()) << ours[k];
  }
}

// IMB-P2P's generator: Unirandom's P pairs per repetition, restarted from seed 0 for the warm-up
// and for the timed loop.
std::vector<int> sources_of_rank(int rank, int processes, int repetitions) {
  std::uint64_t seed = 0;
  const auto next = [&] {
    seed = seed * 7560690468208412377ull + 4343336064253945357ull;
    return static_cast<std::uint32_t>(seed >> 24);
  };
  std::vector<int> sources;
  for (int i = 0; i < repetitions * processes; ++i) {
    const int from = static_cast<int>(next() % static_cast<std::uint32_t>(processes));
    int to = from;
    while (to == from) to = static_cast<int>(next() % static_cast<std::uint32_t>(processes));
    if (to == rank) sources.push_back(from);
  }
  return sources;
}

// Traced on 4 processes at 8 bytes, -iter 20 (20 timed repetitions, 2 warm-up): each rank receives
// Unirandom's messages from exactly the senders IMB-P2P's generator names, in its order, the
// warm-up's and then the timed loop's; Stencil2D (2 x 2) posts one receive from each of the
// rank's four neighbours (x - 1, x + 1, y - 1, y + 1, wrapping) every repetition.
TEST(ImbP2p, RandomPairsAndStencilNeighboursAreIntels) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r = run_mpi(
      4,
      {"imb-p2p", "Unirandom", "Stencil2D", "-msgsz", "8", "-iter", "20", "-pause", "0", "--no-db"},
      "MPISCOPE_TRACE=" + trace, 240, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<int> seen, posted;
    for (const auto& line : lines_of(read_file(trace + "/trace." + std::to_string(rank)))) {
      const auto w = words_of(line);
      if (w.size() >= 4 && w[0] == "MPI_Recv" && w[1] == "8") seen.push_back(std::stoi(w[3]));
      if (w.size() >= 4 && w[0] == "MPI_Irecv" && w[1] == "8") posted.push_back(std::stoi(w[3]));
    }
    // On the 2 x 2 grid x - 1 and x + 1 are the same rank, and so are y - 1 and y + 1.
    const int x = rank % 2, y = rank / 2;
    const std::vector<int> around = {2 * y + 1 - x, 2 * y + 1 - x, 2 * (1 - y) + x,
                                     2 * (1 - y) + x};
    ASSERT_EQ(posted.size(), 4u * 22) << "rank " << rank;
    for (std::size_t k = 0; k < posted.size(); ++k)
      EXPECT_EQ(posted[k], around[k % 4]) << "rank " << rank << ", receive " << k;
    auto expected = sources_of_rank(rank, 4, 2);
    const auto timed = sources_of_rank(rank, 4, 20);
    expected.insert(expected.end(), timed.begin(), timed.end());
    EXPECT_EQ(seen, expected) << "rank " << rank;
  }
}

// The JSON's rank times give IMB-P2P's figures: PingPong's t = the mean over the ranks of half a
// round trip, Mbytes/sec = P/2 messages of X per t_max, Msg/sec = P/2 per t_max.
TEST(ImbP2p, FiguresFollowIntelsFormulas) {
  const auto dir = temp_dir();
  const auto r = run_mpi(2,
                         {"imb-p2p", "PingPong", "Stencil2D", "-msgsz", "1024", "-iter", "100",
                          "-pause", "0", "--json", dir + "/r.json", "--no-db"},
                         "", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("\n# !! Benchmark Stencil2D is invalid for 2 processes !!\n"),
            std::string::npos)
      << r.out;
  const auto doc = nlohmann::json::parse(read_file(dir + "/r.json"));
  const auto& row = doc["benchmarks"][0]["rows"][0];
  double sum = 0;
  for (const auto& t : row["rank_times_us"]) sum += t.get<double>();
  const double t_max = row["t_max_us"].get<double>();
  EXPECT_NEAR(row["t_avg_us"].get<double>(), sum / 2, 1e-9);
  EXPECT_NEAR(row["values"]["message_rate"]["value"].get<double>(), 1 / t_max * 1e6,
              1e-9 / t_max * 1e6);
  EXPECT_NEAR(row["mbytes_per_sec"].get<double>() * 1048576, 1024 / t_max * 1e6,
              1e-6 * 1024 / t_max * 1e6);
  std::vector<std::string> line;
  for (const auto& l : lines_of(r.out))
    if (words_of(l).size() == 5 && words_of(l)[0] == "1024") line = words_of(l);
  ASSERT_EQ(line.size(), 5u) << r.out;
  EXPECT_NEAR(std::stod(line[2]), row["t_avg_us"].get<double>(), 0.006) << r.out;
  EXPECT_NEAR(std::stod(line[3]), 1024 / t_max, 0.006) << r.out;
}

// Intel's output imports as imb-p2p (t[usec] as the mean time it is, the stencils' grid as a
// parameter) and compares table for table with a run, each side's figure the t[usec] it prints.
TEST(ImbP2p, ImportsIntelsOutputAndComparesItWithARun) {
  if (!is_openmpi()) GTEST_SKIP() << "the capture at 4 processes is Open MPI's";
  const auto dir = temp_dir();
  const auto db = dir + "/r.sqlite";
  const auto imported = run_plain({"import", "--db", db, sample("imb_p2p_2021_openmpi_np4.txt")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("(import:imb, 7 tables, 35 rows)"), std::string::npos)
      << imported.out;
  const auto r =
      run_mpi(4, {"imb-p2p", "--db", db, "-msglog", "0:4", "-iter", "200", "-pause", "0"}, "", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto compared = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err << compared.out;
  EXPECT_NE(compared.out.find("# A: run 1 (imb-p2p, "), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("# Stencil2D, 4 processes, grid=2 x 2\n"), std::string::npos)
      << compared.out;
  EXPECT_EQ(count_of(compared.out, "only in"), 0) << compared.out;
  EXPECT_NE(compared.out.find("35 rows compared"), std::string::npos) << compared.out;
  // PingPong at 1 byte: A is Intel's printed t[usec], B mpiscope's.
  const auto intel = lines_of(read_file(sample("imb_p2p_2021_openmpi_np4.txt")));
  std::string a_printed, b_printed;
  for (const auto& l : intel)
    if (a_printed.empty() && words_of(l).size() == 5 && words_of(l)[0] == "1")
      a_printed = words_of(l)[2];
  for (const auto& l : lines_of(r.out))
    if (b_printed.empty() && words_of(l).size() == 5 && words_of(l)[0] == "1")
      b_printed = words_of(l)[2];
  std::string row;
  for (const auto& l : lines_of(compared.out))
    if (row.empty() && words_of(l).size() > 3 && words_of(l)[0] == "1") row = l;
  ASSERT_FALSE(row.empty()) << compared.out;
  EXPECT_EQ(words_of(row)[1], a_printed) << row;
  EXPECT_EQ(words_of(row)[2], b_printed) << row;
  // The report's IMB-P2P card sets the patterns over the messages each rank sends per repetition,
  // Intel's imported run and mpiscope's alike; the random pairs have no such count.
  ASSERT_EQ(run_plain({"report", "--db", db, "-o", dir + "/r.html"}).exit_code, 0);
  const std::string page = read_file(dir + "/r.html");
  const std::string open = "id=\"mpiscope-data\">";
  const auto from = page.find(open) + open.size();
  const auto data = nlohmann::json::parse(page.substr(from, page.find("</script>", from) - from));
  const std::map<std::string, int> expected = {
      {"PingPong", 1}, {"PingPing", 1}, {"Corandom", 1}, {"SendRecv_Replace", 1}, {"Stencil2D", 4}};
  ASSERT_EQ(data["runs"].size(), 2u);
  for (const auto& run : data["runs"]) {
    std::map<std::string, int> sends;
    for (const auto& t : run["tables"])
      if (t.contains("sends_per_rank")) sends[t["name"].get<std::string>()] = t["sends_per_rank"];
    EXPECT_EQ(sends, expected) << "run " << run["id"];
  }
}

// -check (mpiscope's; Intel's IMB-P2P has none) compares what every pattern received with what
// its senders sent, with the cache-line touches on: at 6 processes Stencil2D's grid is 2 x 3, so
// one side's two neighbours are one rank (receives match sends in posting order) and the other's
// are two (each receive gets the block the neighbour sent the opposite way); the random patterns
// receive from the senders IMB's generator drew last. One byte corrupted on rank 1 after each
// check's receive is found in every pattern that gives rank 1 data (exit 3, CHECK FAILURES).
TEST(ImbP2p, CheckComparesWhatEveryPatternReceived) {
  const auto dir = temp_dir();
  // MPICH's 6 ranks poll on 2 cores: fewer lengths (2 instead of 4; 10 s instead of 19).
  const std::size_t lengths = is_openmpi() ? 4 : 2;
  const std::vector<std::string> args = {"imb-p2p", "-check",
                                         "-msglog", "2:" + std::to_string(1 + lengths),
                                         "-iter",   "20",
                                         "-pause",  "0",
                                         "-msgwr",  "on",
                                         "-msgrd",  "on",
                                         "--json",  dir + "/r.json",
                                         "--no-db"};
  const auto r = run_mpi(6, args, "", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.find("CHECK FAILURES"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(read_file(dir + "/r.json"));
  std::vector<std::string> checked;
  for (const auto& b : doc["benchmarks"]) {
    checked.push_back(b["name"].get<std::string>());
    ASSERT_EQ(b["rows"].size(), lengths) << b["name"];
    for (const auto& row : b["rows"]) EXPECT_EQ(row["defects"].get<double>(), 0) << b["name"];
  }
  EXPECT_EQ(checked, (std::vector<std::string>{"PingPong", "PingPing", "Unirandom", "Birandom",
                                               "Corandom", "Stencil2D", "SendRecv_Replace"}));
  const auto bad = run_mpi(6, args, "MPISCOPE_FAULT=corrupt:1", 300);
  EXPECT_EQ(bad.exit_code, 3) << bad.err << bad.out;
  const auto failures = nlohmann::json::parse(read_file(dir + "/r.json"));
  for (const auto& b : failures["benchmarks"])
    for (const auto& row : b["rows"])
      EXPECT_GT(row["defects"].get<double>(), 0) << b["name"] << " " << row["bytes"];
  std::size_t lines = 0;
  for (const auto& l : lines_of(bad.out)) lines += l.rfind("CHECK FAILURES: ", 0) == 0;
  EXPECT_EQ(lines, 7 * lengths) << bad.out;
}

TEST(ImbP2p, RefusesWhatItCannotRun) {
  expect_usage_errors({"imb-p2p"}, {{"-msglog", "31"},
                                    {"-msglog", "4:2"},
                                    {"-msgsz", "3x"},
                                    {"-msgsz", "3g"},
                                    {"-iter", "0"},
                                    {"-pause", "-1"},
                                    {"-msgwr", "maybe"},
                                    {"-msglen", "/nonexistent/lengths"},
                                    {"-window_size", "4"}});
  const auto unknown = run_singleton({"imb-p2p", "PingPang"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("unknown benchmark 'PingPang'"), std::string::npos) << unknown.err;
}

}  // namespace
