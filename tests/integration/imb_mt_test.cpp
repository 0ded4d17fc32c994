// IMB-MT end to end (issue 34 item 1): its tables line by line against a real output of Intel's
// IMB-MT 2021.11 (tests/data/import/imb_mt_2021.txt: MPICH 4.0.2, 2 processes, 2 threads each);
// every thread calling MPI at once on a communicator of its own (PMPI trace); -check on every
// thread's buffers and a planted corruption caught; the figures in the JSON as the text prints
// them; the refusals, MPI_THREAD_MULTIPLE among them.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "harness.hpp"

namespace {
using namespace harness;

const std::vector<std::string> kCaptured = {"-thread_level", "multiple", "-repeat", "100",
                                            "-warmup",       "10",       "-count",  "1,64,1024"};

// Every line that is no row is Intel's character for character (headers, titles, column
// headings, blank lines); every row has Intel's column count, #bytes (the length times the
// threads) and #repetitions.
TEST(ImbMt, TablesAreIntelsLineByLine) {
  std::vector<std::string> args = {"--no-db"};
  args.insert(args.end(), kCaptured.begin(), kCaptured.end());
  const auto r = run_mpi(2, args, "OMP_NUM_THREADS=2", 240, "IMB-MT");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto intel = lines_of(read_file(sample("imb_mt_2021.txt")));
  const auto ours = lines_of(r.out);
  ASSERT_EQ(ours.size(), intel.size()) << r.out;
  for (std::size_t k = 0; k < intel.size(); ++k) {
    SCOPED_TRACE("line " + std::to_string(k + 1) + ": " + intel[k]);
    if (intel[k].empty() || intel[k][0] == '#') {
      EXPECT_EQ(ours[k], intel[k]);
      continue;
    }
    const auto mine = words_of(ours[k]), theirs = words_of(intel[k]);
    ASSERT_EQ(mine.size(), theirs.size()) << ours[k];
    EXPECT_EQ(mine[0], theirs[0]);  // #bytes (BarrierMT: #repetitions)
    if (theirs.size() > 4) {
      EXPECT_EQ(mine[1], theirs[1]);  // #repetitions
    }
    EXPECT_EQ(ours[k].size(), intel[k].size()) << ours[k];  // 13-wide fields
  }
}

// Each of a process's two threads makes its own PingPongMT on a communicator of its own, both
// inside MPI at once (every MPI_Send first spins 2 ms in the PMPI library, so a thread that
// starts sending finds the other's send under way); rank 0 sends first in every pair.
TEST(ImbMt, ThreadsCallMpiAtOnceOnCommunicatorsOfTheirOwn) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r =
      run_mpi(2,
              {"imb-mt", "PingPongMT", "-threads", "2", "-count", "16", "-repeat", "20", "-warmup",
               "2", "--json", trace + "/r.json", "--no-db"},
              "MPISCOPE_TRACE=" + trace + " MPISCOPE_TRACE_THREADS=1 MPISCOPE_DELAY=MPI_Send=2000",
              120, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const std::string rank : {"0", "1"}) {
    SCOPED_TRACE("rank " + rank);
    std::map<int, std::set<int>> comms_of_thread;
    std::map<int, int> sends_of_thread;
    int most_inside = 0;
    for (const auto& line : lines_of(read_file(trace + "/trace." + rank))) {
      const auto w = words_of(line);
      // "MPI_Send 16 root 1 buf 0x… tag 0 thread K inside N comm C"
      if (w.size() != 14 || (w[0] != "MPI_Send" && w[0] != "MPI_Recv") || w[1] != "16") continue;
      const int thread = std::stoi(w[9]), comm = std::stoi(w[13]);
      comms_of_thread[thread].insert(comm);
      if (w[0] == "MPI_Send") ++sends_of_thread[thread];
      most_inside = std::max(most_inside, std::stoi(w[11]));
    }
    ASSERT_EQ(comms_of_thread.size(), 2u) << "two threads";
    std::set<int> all;
    for (const auto& [thread, comms] : comms_of_thread) {
      EXPECT_EQ(comms.size(), 1u) << "thread " << thread << " on one communicator";
      all.insert(comms.begin(), comms.end());
      EXPECT_EQ(sends_of_thread[thread], 22) << "2 warm-up and 20 timed per thread";
    }
    EXPECT_EQ(all.size(), 2u) << "a communicator each";
    EXPECT_GE(most_inside, 2) << "never two threads inside MPI at once";
  }
  // The row: four times (2 processes x 2 threads), #bytes 16 ints x 2 threads, and the
  // throughput IMB-MT prints, 128 bytes per t_max.
  const auto doc = nlohmann::json::parse(read_file(trace + "/r.json"));
  EXPECT_EQ(doc["run"]["thread_level"], "MPI_THREAD_MULTIPLE");
  const auto& table = doc["benchmarks"][0];
  EXPECT_EQ(table["parameters"]["threads_per_process"], "2");
  const auto& row = table["rows"][0];
  EXPECT_EQ(row["bytes"], 64);
  ASSERT_EQ(row["rank_times_us"].size(), 4u);
  const double t_max = row["t_max_us"].get<double>();
  EXPECT_NEAR(row["mbytes_per_sec"].get<double>() * 1048576.0, 128 / t_max * 1e6, 1e-6 * 128e6);
  const auto line = lines_of(r.out)[10];
  EXPECT_EQ(words_of(line)[0], "128") << r.out;
  EXPECT_NEAR(std::stod(words_of(line).back()), 128 / t_max, 0.006) << r.out;
}

// -malloc_algo continuous: one block per direction cut into the threads' buffers, each as long as
// the longest count needs (1000 ints, 4000 bytes: not a page multiple, so that separate
// allocations cannot land that far apart). At 16 ints as at 1000, thread 1's buffers lie 4000
// bytes after thread 0's; -check finds every message right.
TEST(ImbMt, ContinuousCutsOneBlockIntoTheThreadsBuffers) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r =
      run_mpi(2,
              {"imb-mt", "PingPongMT", "-threads", "2", "-malloc_algo", "continuous", "-count",
               "16,1000", "-repeat", "5", "-warmup", "1", "-check", "on", "--no-db"},
              "MPISCOPE_TRACE=" + trace + " MPISCOPE_TRACE_THREADS=1", 120, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "CHECK FAILURES"), 0) << r.out;
  for (const std::string rank : {"0", "1"}) {
    // (call, count) -> the buffers passed, by any thread (the trace numbers threads as the
    // system made them: -check's team is a new one)
    std::map<std::pair<std::string, std::string>, std::set<std::uintptr_t>> bufs;
    for (const auto& line : lines_of(read_file(trace + "/trace." + rank))) {
      const auto w = words_of(line);
      // "MPI_Send 16 root 1 buf 0x… tag 0 thread K inside N comm C"
      if (w.size() != 14 || (w[0] != "MPI_Send" && w[0] != "MPI_Recv")) continue;
      if (w[1] != "16" && w[1] != "1000") continue;
      bufs[{w[0], w[1]}].insert(std::stoull(w[5], nullptr, 16));
    }
    ASSERT_EQ(bufs.size(), 4u) << "rank " << rank << ": sends and receives at both counts";
    for (const auto& [call, addresses] : bufs) {
      SCOPED_TRACE("rank " + rank + ": " + call.first + " of " + call.second + " ints");
      ASSERT_EQ(addresses.size(), 2u) << "one buffer per thread";
      EXPECT_EQ(*addresses.rbegin() - *addresses.begin(), 4000u);
    }
  }
}

// -check on every benchmark, two threads a process, on a ring of three processes where left and
// right differ (MPICH: two; its polling ranks share the cores slowly): right data everywhere; a
// byte corrupted on rank 1 after each receive is found (exit 3, CHECK FAILURES).
TEST(ImbMt, CheckVerifiesEveryThreadAndFindsAPlantedCorruption) {
  const int processes = is_openmpi() ? 3 : 2;
  const std::vector<std::string> args = {"imb-mt", "-threads", "2", "-count", "1,100", "-repeat",
                                         "20",     "-warmup",  "2", "-check", "on",    "--no-db"};
  const auto r = run_mpi(processes, args, "", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "# Benchmarking "), 10) << r.out;
  EXPECT_EQ(count_of(r.out, "CHECK FAILURES"), 0) << r.out;
  auto planted = args;
  planted.insert(planted.begin() + 1, {"PingPongMT", "ExchangeMT", "AllReduceMT"});
  const auto bad = run_mpi(2, planted, "MPISCOPE_FAULT=corrupt:1", 240);
  EXPECT_EQ(bad.exit_code, 3) << bad.err << bad.out;
  EXPECT_EQ(count_of(bad.out, "CHECK FAILURES"), 6) << bad.out;
}

// -stride 2 on 6 processes (one thread each, Intel's default): ranks 0,1 pair with 2,3 and 4,5 sit
// out, as IMB's set_stride leaves an incomplete last block of 2 x stride; UniBandMT's Mbytes/sec
// and Msg/sec count the 2 pairs that ran (IMB's nresults / 2), not 6 / 2. On one process the
// rings run (messages to itself) and the pairs are refused.
TEST(ImbMt, StrideLeavesRanksOutAndOnlyThePairsThatRanCount) {
  const auto dir = temp_dir();
  const auto r =
      run_mpi(6,
              {"imb-mt", "UniBandMT", "PingPongMT", "-stride", "2", "-count", "1024", "-repeat",
               "20", "-warmup", "2", "-window_size", "4", "--json", dir + "/r.json", "--no-db"},
              "", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "# #processes = 4 (threads: 1)\n"), 2) << r.out;
  const auto doc = nlohmann::json::parse(read_file(dir + "/r.json"));
  for (const auto& table : doc["benchmarks"]) {
    const auto& row = table["rows"][0];
    const auto& times = row["rank_times_us"];
    ASSERT_EQ(times.size(), 6u) << table["name"];
    EXPECT_EQ(std::count_if(times.begin(), times.end(), [](const auto& t) { return t < 0; }), 2)
        << table["name"] << times.dump();
    if (table["name"] != "UniBandMT") continue;
    const double t_avg = row["t_avg_us"].get<double>(), t_max = row["t_max_us"].get<double>();
    EXPECT_NEAR(row["values"]["message_rate"]["value"].get<double>(), 2 / t_avg * 1e6,
                1e-6 * 2 / t_avg * 1e6);
    EXPECT_NEAR(row["mbytes_per_sec"].get<double>() * 1048576, 2 * 4096 / t_max * 1e6,
                1e-6 * 2 * 4096 / t_max * 1e6);
  }
  const auto one =
      run_mpi(1, {"imb-mt", "-count", "1", "-repeat", "10", "-warmup", "1", "--no-db"});
  ASSERT_EQ(one.exit_code, 0) << one.err << one.out;
  EXPECT_EQ(count_of(one.out, "# #processes = 1 (threads: 1)"), 6) << one.out;
  EXPECT_EQ(count_of(one.out, "invalid for 1 processes"), 4) << one.out;
}

// -list names the ten benchmarks in IMB-MT's order and runs none.
TEST(ImbMt, ListsItsBenchmarks) {
  const auto r = run_singleton({"imb-mt", "-list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "PingPongMT\nPingPingMT\nSendRecvMT\nExchangeMT\nUniBandMT\nBiBandMT\nBarrierMT\n"
            "BcastMT\nReduceMT\nAllReduceMT\n");
}

TEST(ImbMt, RefusesWhatItCannotRun) {
  expect_usage_errors({"imb-mt"}, {{"-barrier", "sometimes"},
                                   {"-malloc_algo", "contiguous"},
                                   {"-stride", "1"},
                                   {"-datatype", "char", "-check", "on"},
                                   {"-threads", "2", "-thread_level", "funneled"},
                                   {"-count", "1,x"},
                                   {"-check", "maybe"},
                                   {"-malloc_align", "48"},
                                   {"-repeat", "0"},
                                   {"-exclude",
                                    "PingPongMT,PingPingMT,SendRecvMT,ExchangeMT,"
                                    "UniBandMT,BiBandMT,BarrierMT,BcastMT,ReduceMT,"
                                    "AllReduceMT"}});
  const auto unknown = run_singleton({"imb-mt", "PingPongMX"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("unknown benchmark 'PingPongMX'"), std::string::npos) << unknown.err;
  // A library that grants less than MPI_THREAD_MULTIPLE: one error from rank 0, exit 1.
  const auto dir = temp_dir();
  const auto r = run_mpi(2, {"imb-mt", "-threads", "2", "--no-db"},
                         "MPISCOPE_THREAD_LEVEL_PROVIDED=2", 60, with_pmpi_library(dir));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(count_of(r.err, "error"), 1) << r.err;
  EXPECT_NE(r.err.find("MPI_THREAD_MULTIPLE"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("# Benchmarking"), std::string::npos) << r.out;
}

}  // namespace

namespace {
// Intel's IMB-MT output imports as imb-mt, each row at the message length of one thread (its
// #bytes over the threads), and compares table for table and length for length with mpiscope's
// run of the same command line.
TEST(ImbMt, ImportsIntelsOutputAndComparesItWithARun) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.sqlite";
  const auto imported = run_plain({"import", "--db", db, sample("imb_mt_2021.txt")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("(import:imb, 10 tables, 28 rows)"), std::string::npos)
      << imported.out;
  std::vector<std::string> args = {"imb-mt", "--db", db};
  args.insert(args.end(), kCaptured.begin(), kCaptured.end());
  const auto r = run_mpi(2, args, "OMP_NUM_THREADS=2", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto compared = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err << compared.out;
  EXPECT_NE(compared.out.find("# A: run 1 (imb-mt, from "), std::string::npos) << compared.out;
  EXPECT_EQ(count_of(compared.out, " processes, threads_per_process=2\n"), 10) << compared.out;
  EXPECT_EQ(count_of(compared.out, "only in"), 0) << compared.out;
  for (const std::string bytes : {"\n      4 ", "\n    256 ", "\n   4096 "})
    EXPECT_EQ(count_of(compared.out, bytes), 9) << bytes << compared.out;  // BarrierMT: none
}
}  // namespace
