// OSU's one-sided programs (osu_put_latency, osu_get_latency, osu_acc_latency, osu_fop_latency,
// osu_cas_latency, osu_put_bw, osu_get_bw, osu_put_bibw), called by their aliases: OSU's header
// lines (from print_header_one_sided), rank 0's time alone, the bandwidth from its definition,
// OSU's refusal of -c, of other process counts and of words -w and -s do not take, the PMPI
// trace of every window creation and synchronisation, and imported OSU 7.4 outputs
// (tests/data/import/osu_one_sided_7.4.txt, captured from OSU's own binaries) compared with a
// run.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

std::string right(const std::string& s, std::size_t width) {
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

struct OneSidedProgram {
  std::string name, title, sync, column;
  std::size_t rows;  // at -m 1:64: 7 sizes, or the one element of the atomics
  std::string window = "MPI_Win_allocate";
  bool datatype_line = true;
};
const std::vector<OneSidedProgram> kPrograms = {
    {"osu_put_latency", "OSU MPI_Put Latency Test", "MPI_Win_flush", "Latency (us)", 7},
    {"osu_get_latency", "OSU MPI_Get latency Test", "MPI_Win_flush", "Latency (us)", 7},
    {"osu_acc_latency", "OSU MPI_Accumulate latency Test", "MPI_Win_flush", "Latency (us)", 7},
    {"osu_fop_latency", "OSU MPI_Fetch_and_op latency Test", "MPI_Win_flush", "Latency (us)", 1},
    {"osu_cas_latency", "OSU MPI_Compare_and_swap latency Test", "MPI_Win_flush", "Latency (us)",
     1},
    // Its main() leaves OSU's zero defaults: MPI_Win_create and lock/unlock; and it prints no
    // datatype.
    {"osu_get_acc_latency", "OSU MPI_Get_accumulate latency Test", "MPI_Win_lock/unlock",
     "Latency (us)", 7, "MPI_Win_create", false},
    {"osu_put_bw", "OSU MPI_Put Bandwidth Test", "MPI_Win_flush", "Bandwidth (MB/s)", 7},
    {"osu_get_bw", "OSU MPI_Get Bandwidth Test", "MPI_Win_flush", "Bandwidth (MB/s)", 7},
    {"osu_put_bibw", "OSU MPI_Put Bi-directional Bandwidth Test",
     "MPI_Win_post/start/complete/wait", "Bandwidth (MB/s)", 7}};

// Every program with OSU 7.4's defaults: its header lines (print_header_one_sided), rows 28
// characters wide, rank 0's time alone, and the bandwidth programs' figure from its definition:
// MB/s = X / (the time per message), the iteration's time over the W (osu_put_bibw: 2W) messages.
TEST(OsuOneSided, HeaderAndRowsAreOsusAndOnlyRankZeroTimes) {
  for (const auto& p : kPrograms) {
    SCOPED_TRACE(p.name);
    const auto json_path = temp_dir() + "/r.json";
    const auto r = run_mpi(2, {"-m", "1:64", "-i", "50", "-x", "5", "--json", json_path, "--no-db"},
                           "", 60, p.name);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto l = osu_lines(r.out);
    const std::size_t head = p.datatype_line ? 5 : 4;
    ASSERT_EQ(l.size(), head + p.rows) << r.out;
    EXPECT_EQ(l[0], "# " + p.title + " v7.4");
    EXPECT_EQ(l[1], "# Window creation: " + p.window);
    EXPECT_EQ(l[2], "# Synchronization: " + p.sync);
    if (p.datatype_line) {
      EXPECT_EQ(l[3], "# Datatype: MPI_CHAR.");
    }
    // 18 wide, as OSU 7.4's binaries print ("# Size          Latency (us)").
    EXPECT_EQ(l[head - 1], "# Size    " + right(p.column, 18));
    for (std::size_t k = 0; k < p.rows; ++k) {
      const std::string size = std::to_string(1u << k);
      EXPECT_TRUE(std::regex_match(
          l[head + k],
          std::regex(size + std::string(10 - size.size(), ' ') + " {0,17}\\d+\\.\\d\\d")))
          << l[head + k];
      EXPECT_EQ(l[head + k].size(), 28u);
    }
    const auto doc = nlohmann::json::parse(read_file(json_path));
    const auto& rows = doc["benchmarks"][0]["rows"];
    ASSERT_EQ(rows.size(), p.rows);
    for (const auto& row : rows) {
      EXPECT_EQ(row["repetitions"], 50);
      EXPECT_LT(row["rank_times_us"][1].get<double>(), 0);  // the target does not time
      EXPECT_DOUBLE_EQ(row["rank_times_us"][0].get<double>(), row["t_avg_us"].get<double>());
      if (p.column != "Bandwidth (MB/s)") continue;
      const double osu_bandwidth = row["values"]["osu_bandwidth"]["value"].get<double>();
      EXPECT_NEAR(osu_bandwidth, row["bytes"].get<double>() / row["t_avg_us"].get<double>(),
                  1e-9 * osu_bandwidth);
    }
  }
}

TEST(OsuOneSided, RefusesValidationAndOtherProcessCounts) {
  const auto c = run_mpi(2, {"-c", "--no-db"}, "", 30, "osu_put_latency");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(count_of(c.err, "Benchmark does not support validation"), 1) << c.err;
  // OSU's words only; osu_put_bibw takes the active-target ones alone.
  for (const auto& [program, option, value] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"osu_put_bibw", "-s", "flush"},
           {"osu_put_bw", "-s", "sometimes"},
           {"osu_get_latency", "-w", "shared"}}) {
    const auto bad = run_mpi(2, {option, value, "--no-db"}, "", 30, program);
    EXPECT_EQ(bad.exit_code, 2) << program;
    EXPECT_EQ(
        count_of(bad.err, "Invalid option or invalid argument [" + option + " " + value + "]"), 1)
        << bad.err;
    EXPECT_EQ(count_of(bad.out, "# Size"), 0) << bad.out;
  }
  const auto three = run_mpi(3, {"--no-db"}, "", 30, "osu_get_latency");
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(count_of(three.err, "This test requires exactly two processes"), 1) << three.err;
}

// What -w and -s choose, from a PMPI trace of rank 0 (the origin) and rank 1: 1 warm-up and 4
// timed iterations at 64 bytes, windows of 3 (-W 3). Passive target: rank 1 calls nothing;
// flush and flush_local lock once per size, lock and lock_all every iteration. Active target:
// the latency is a round trip (three fences, or start/complete then post/wait and the mirror on
// rank 1); the bandwidth one way (two fences; start/complete against post/wait); osu_put_bibw
// both ways at once.
TEST(OsuOneSided, WindowAndSynchronisationOptionsIssueOsusCalls) {
  struct Case {
    std::vector<std::string> args;
    std::string header;  // the Window creation or Synchronization line it prints
    std::vector<std::pair<std::string, int>> origin, target;
  };
  const std::vector<Case> cases = {
      {{"osu_put_latency"},
       "# Synchronization: MPI_Win_flush",
       {{"MPI_Put 64 root 1 ", 5},
        {"MPI_Win_flush 0 root 1 ", 5},
        {"MPI_Win_lock 0 root 1 ", 1},
        {"MPI_Win_unlock 0 root 1 ", 1}},
       {{"MPI_Win_", 0}, {"MPI_Put", 0}}},
      {{"osu_put_bw", "-W", "3", "-s", "lock"},
       "# Synchronization: MPI_Win_lock/unlock",
       {{"MPI_Put 64 root 1 ", 15},
        {"MPI_Win_lock 0 root 1 ", 5},
        {"MPI_Win_unlock 0 root 1 ", 5},
        {"MPI_Win_flush", 0}},
       {{"MPI_Win_", 0}}},
      {{"osu_get_bw", "-W", "3", "-s", "LOCK_ALL"},
       "# Synchronization: MPI_Win_lock_all/unlock_all",
       {{"MPI_Get 64 root 1 ", 15}, {"MPI_Win_lock_all 0 root -1 ", 5}, {"MPI_Win_unlock_all", 5}},
       {{"MPI_Win_", 0}, {"MPI_Get", 0}}},
      {{"osu_acc_latency", "-s", "flush_local"},
       "# Synchronization: MPI_Win_flush_local",
       {{"MPI_Accumulate 64 root 1 ", 5},
        {"MPI_Win_flush_local 0 root 1 ", 5},
        {"MPI_Win_lock 0 root 1 ", 1},
        {"MPI_Win_flush 0", 0}},
       {{"MPI_Win_", 0}}},
      {{"osu_fop_latency", "-w", "create"},
       "# Window creation: MPI_Win_create",
       {{"MPI_Fetch_and_op 1 root 1 ", 5}, {"MPI_Win_flush 0 root 1 ", 5}},
       {{"MPI_Win_", 0}}},
      {{"osu_cas_latency", "-w", "dynamic", "-s", "lock"},
       "# Window creation: MPI_Win_create_dynamic",
       {{"MPI_Compare_and_swap 1 root 1 ", 5}, {"MPI_Win_lock 0 root 1 ", 5}},
       {{"MPI_Win_", 0}}},
      {{"osu_put_latency", "-s", "fence"},
       "# Synchronization: MPI_Win_fence",
       {{"MPI_Put 64 root 1 ", 5}, {"MPI_Win_fence", 15}},
       {{"MPI_Put 64 root 0 ", 5}, {"MPI_Win_fence", 15}}},
      {{"osu_get_latency", "-s", "pscw", "-w", "dynamic"},
       "# Synchronization: MPI_Win_post/start/complete/wait",
       {{"MPI_Get 64 root 1 ", 5},
        {"MPI_Win_start", 5},
        {"MPI_Win_complete", 5},
        {"MPI_Win_post", 5},
        {"MPI_Win_wait", 5}},
       {{"MPI_Get 64 root 0 ", 5},
        {"MPI_Win_start", 5},
        {"MPI_Win_complete", 5},
        {"MPI_Win_post", 5},
        {"MPI_Win_wait", 5}}},
      {{"osu_put_bw", "-W", "3", "-s", "pscw"},
       "# Synchronization: MPI_Win_post/start/complete/wait",
       {{"MPI_Put 64 root 1 ", 15},
        {"MPI_Win_start", 5},
        {"MPI_Win_complete", 5},
        {"MPI_Win_post", 0}},
       {{"MPI_Put", 0}, {"MPI_Win_post", 5}, {"MPI_Win_wait", 5}, {"MPI_Win_start", 0}}},
      {{"osu_put_bw", "-W", "3", "-s", "fence", "-w", "create"},
       "# Synchronization: MPI_Win_fence",
       {{"MPI_Put 64 root 1 ", 15}, {"MPI_Win_fence", 10}},
       {{"MPI_Put", 0}, {"MPI_Win_fence", 10}}},
      {{"osu_put_bibw", "-W", "3"},
       "# Synchronization: MPI_Win_post/start/complete/wait",
       {{"MPI_Put 64 root 1 ", 15},
        {"MPI_Win_post", 5},
        {"MPI_Win_start", 5},
        {"MPI_Win_complete", 5},
        {"MPI_Win_wait", 5}},
       {{"MPI_Put 64 root 0 ", 15},
        {"MPI_Win_post", 5},
        {"MPI_Win_start", 5},
        {"MPI_Win_complete", 5},
        {"MPI_Win_wait", 5}}},
      {{"osu_put_bibw", "-W", "3", "-s", "fence"},
       "# Synchronization: MPI_Win_fence",
       {{"MPI_Put 64 root 1 ", 15}, {"MPI_Win_fence", 10}},
       {{"MPI_Put 64 root 0 ", 15}, {"MPI_Win_fence", 10}}}};
  const auto dir = temp_dir();
  int n = 0;
  for (const auto& c : cases) {
    const std::string trace = dir + "/t" + std::to_string(n++);
    SCOPED_TRACE(c.args[0] + " " + c.header);
    std::filesystem::create_directory(trace);
    std::vector<std::string> args = {"osu"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-m", "64:64", "-i", "4", "-x", "1", "--no-db"});
    const auto r = run_mpi(2, args, "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_EQ(count_of(r.out, c.header + "\n"), 1) << r.out;
    const auto origin = read_file(trace + "/trace.0");
    const auto target = read_file(trace + "/trace.1");
    for (const auto& [call, times] : c.origin) EXPECT_EQ(count_of(origin, call), times) << call;
    for (const auto& [call, times] : c.target) EXPECT_EQ(count_of(target, call), times) << call;
  }
}

// A window's messages each have their own place, message j at j·X, as in OSU: the three puts of
// an iteration come from three buffers 64 bytes apart.
TEST(OsuOneSided, WindowMessagesHaveDisjointBuffers) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r =
      run_mpi(2, {"osu", "osu_put_bw", "-W", "3", "-m", "64:64", "-i", "2", "-x", "0", "--no-db"},
              "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<unsigned long long> addresses;
  std::istringstream lines(read_file(trace + "/trace.0"));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("MPI_Put ")) {
      const auto at = line.find("buf 0x");
      ASSERT_NE(at, std::string::npos) << line;
      addresses.push_back(std::stoull(line.substr(at + 6), nullptr, 16));
    }
  ASSERT_EQ(addresses.size(), 6u);
  for (std::size_t k : {1u, 2u, 4u, 5u}) EXPECT_EQ(addresses[k] - addresses[k - 1], 64u) << k;
  EXPECT_EQ(addresses[3], addresses[0]);  // the next iteration starts over
}

// OSU 7.4's own output imports under the program names, with its window and synchronisation as
// parameters, and compares with a run of the same programs.
TEST(OsuOneSided, OsusOutputImportsAndComparesWithARun) {
  const auto db = temp_dir() + "/r.db";
  const auto imported = run_plain(
      {"import", "--db", db, std::string(MPISCOPE_TEST_DATA) + "/import/osu_one_sided_7.4.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  for (const std::string program : {"osu_put_latency", "osu_get_latency"}) {
    const auto r = run_mpi(2, {"-m", "1:64", "-i", "50", "-x", "5", "--db", db}, "", 60, program);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* run : {"2", "3"}) {
    const auto c = run_plain({"compare", "--db", db, "1", run});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(count_of(c.out, "only in"), 1) << c.out;  // the other program's table
    EXPECT_EQ(count_of(c.out, "\n     64 "), 1) << c.out;
  }
}

// The other programs' OSU 7.4 output (osu_put_bw with -s lock, osu_acc_latency with -w create,
// the rest, osu_get_acc_latency among them, with OSU's defaults) imports under the program names
// with its window and synchronisation, and compares with runs that made the same choices: every
// program matches its imported table, and an osu_put_bw with the default flush does not match the
// locked one.
TEST(OsuOneSided, OtherProgramsImportAndCompareByWindowAndSynchronisation) {
  const auto db = temp_dir() + "/r.db";
  const auto imported =
      run_plain({"import", "--db", db,
                 std::string(MPISCOPE_TEST_DATA) + "/import/osu_one_sided_more_7.4.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const std::vector<std::vector<std::string>> runs = {{"osu_put_bw", "-s", "lock"},
                                                      {"osu_get_bw"},
                                                      {"osu_put_bibw"},
                                                      {"osu_acc_latency", "-w", "create"},
                                                      {"osu_fop_latency"},
                                                      {"osu_get_acc_latency"},
                                                      {"osu_cas_latency"},
                                                      {"osu_put_bw"}};
  for (auto args : runs) {
    const std::string program = args[0];
    args.erase(args.begin());
    args.insert(args.end(), {"-m", "1:64", "-i", "20", "-x", "2", "--db", db});
    const auto r = run_mpi(2, args, "", 60, program);
    ASSERT_EQ(r.exit_code, 0) << program << r.err;
  }
  for (int run = 2; run <= 9; ++run) {
    SCOPED_TRACE(runs[static_cast<std::size_t>(run - 2)][0]);
    const auto c = run_plain({"compare", "--db", db, "1", std::to_string(run)});
    if (run == 9) {  // flush against lock: nothing in common
      EXPECT_EQ(c.exit_code, 2) << c.out;
      EXPECT_EQ(count_of(c.err, "have no benchmark table and length in common"), 1) << c.err;
      continue;
    }
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(count_of(c.out, "# only in A: "), 6) << c.out;  // the other programs' tables
    EXPECT_EQ(count_of(c.out, "\n      1 "), 1) << c.out;
  }
}

// OSU 7.4's one-sided loops read MPI_Wtime around the loop and around each iteration inside it
// (osu_put_latency.c: t_start at the first timed iteration, t_graph_start/t_graph_end around
// each, t_end after the loop), and their skip iterations run in the same loop right before, with
// no timer read: rank 0's calls, as a PMPI trace records them, are OSU's, letter for letter
// (P = MPI_Put, F = MPI_Win_flush, W = MPI_Wtime). Rank 1 reads no timer inside the loop. The
// header lines are those of OSU 7.4's own binary (tests/data/import/osu_one_sided_7.4.txt).
TEST(OsuOneSided, TimesAsOsusLoopWithItsTimerReadsAndHeader) {
  const auto dir = temp_dir();
  const std::string trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r =
      run_mpi(2, {"osu", "osu_put_latency", "-m", "1:4", "-i", "4", "-x", "2", "--no-db"},
              "MPISCOPE_TRACE=" + trace + " MPISCOPE_TRACE_WTIME=1", 60, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto letters = [](const std::string& text) {
    std::string out;
    std::istringstream in(text);
    std::string call, rest;
    while (in >> call && std::getline(in, rest))
      if (call == "MPI_Put")
        out += 'P';
      else if (call == "MPI_Win_flush")
        out += 'F';
      else if (call == "MPI_Wtime")
        out += 'W';
    return out;
  };
  const std::string origin = letters(read_file(trace + "/trace.0"));
  const std::string one_size = "PFPF" + std::string("W") + "WPFW" + "WPFW" + "WPFW" + "WPFW" + "W";
  std::size_t sizes = 0;
  for (auto at = origin.find(one_size); at != std::string::npos; at = origin.find(one_size, at + 1))
    ++sizes;
  EXPECT_EQ(sizes, 3u) << origin;                      // 1, 2 and 4 bytes
  EXPECT_EQ(count_of(origin, "PF"), 3 * 6) << origin;  // nothing else puts
  const std::string target = read_file(trace + "/trace.1");
  EXPECT_EQ(count_of(target, "MPI_Put"), 0);
  // OSU's capture: title, window creation, synchronization, datatype and column lines.
  const auto capture =
      lines_of(read_file(std::string(MPISCOPE_TEST_DATA) + "/import/osu_one_sided_7.4.txt"));
  const auto l = osu_lines(r.out);
  ASSERT_GE(l.size(), 8u) << r.out;
  ASSERT_GE(capture.size(), 8u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(l[i], capture[i]) << i;
  for (std::size_t i = 5; i < 8; ++i)  // the rows' sizes and widths
    EXPECT_EQ(l[i].substr(0, 10) + std::to_string(l[i].size()),
              capture[i].substr(0, 10) + std::to_string(capture[i].size()));
}

}  // namespace
