// --timeout in every suite: one rank stopped with SIGSTOP in the middle of a run (its own watchdog
// thread stops with it) ends the job with exit 4 and rank 0 naming what it waited for, within the
// timeout and a few seconds of the moment no rank can go on, whatever phase the stop lands in.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "harness.hpp"

using namespace harness;

namespace {

constexpr int kTimeoutS = 4;

// SKaMPI: many short points (standard.skampi can end before the stop on an idle machine).
constexpr const char* kLongSkampi =
    "@MEASUREMENTS\nPingpong_MPI_Send-MPI_Recv\n{\n  Type = 1;\n  Variation = Length;\n"
    "  Scale = Fixed_log;\n  Start_Argument = 1;\n  End_Argument = 1048576;\n"
    "  Stepwidth = 1.1;\n  Max_Steps = 1000;\n  Max_Repetition = 2000;\n"
    "  Min_Repetition = 2000;\n  Standard_error = 0.03;\n  Cut_Quantile = 0.2;\n}\n";

// The environment of process `pid`, NUL-separated entries; empty if it cannot be read.
std::string environment_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/environ", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return std::string(1, '\0') + s.str();
}

bool has_entry(const std::string& environment, const std::string& entry) {
  return environment.find(std::string(1, '\0') + entry + '\0') != std::string::npos;
}

bool is_world_rank_1(const std::string& environment) {
  return has_entry(environment, "OMPI_COMM_WORLD_RANK=1") || has_entry(environment, "PMI_RANK=1");
}

std::string parent_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');  // the command name may hold blanks
  std::istringstream rest(close == std::string::npos ? "" : line.substr(close + 2));
  std::string state, parent;
  rest >> state >> parent;
  return parent;
}

// World rank 1 of the job started with `marker` in its environment: only processes this test
// started carry it. The rank's scratch-file reaper (a fork of it) carries the same environment
// and is told apart by its parent, the rank.
pid_t find_rank_1(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string environment = environment_of(pid);
    if (!has_entry(environment, marker) || !is_world_rank_1(environment)) continue;
    if (is_world_rank_1(environment_of(parent_of(pid)))) continue;  // the reaper
    return static_cast<pid_t>(std::stol(pid));
  }
  return 0;
}

// Rank 0 exits 4. MPICH's Hydra passes on the code of the rank it sees end first, and in
// b_eff_io's file phases and IMB-IO's release that was once in a while the stopped rank's 1, after
// the timeout was named (not reproduced in 12 launches beside two CPU hogs); in map's rounds once
// 9, the stopped rank ended by Hydra's SIGKILL (stop 31's CI). The message that names the point
// is checked apart.
bool is_timeout_exit(int code) {
  return code == 4 || (!is_openmpi() && (code == 1 || code == 9));
}

struct StoppedRun {
  const char* label;
  std::vector<std::string> args;  // after "mpiscope"; {dir} is a fresh folder
};

class StoppedRank : public ::testing::TestWithParam<StoppedRun> {};

TEST_P(StoppedRank, EndsTheJobWithExit4NamingThePoint) {
  const std::string dir = temp_dir();
  write_file(dir, "long.skampi", kLongSkampi);
  std::string command = "cd " + quote(dir) + " && ";
  const std::string marker = "MPISCOPE_TEST_STOP=" + std::to_string(getpid()) + "_" +
                             std::to_string(std::random_device{}());
  command += "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + marker +
             " timeout -k 5 90 " + mpiscope_launch(2);
  for (auto arg : GetParam().args) {
    if (const auto at = arg.find("{dir}"); at != std::string::npos) arg.replace(at, 5, dir);
    command += " " + quote(arg);
  }
  command += " --no-db --timeout " + std::to_string(kTimeoutS) +
             " >out.txt 2>err.txt </dev/null; echo $? >code";
  BackgroundCommand job(command);
  // In the middle of the run: once it has printed, and a moment later.
  pid_t rank_1 = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        rank_1 = find_rank_1(marker);
        return rank_1 != 0 && !read_file(dir + "/out.txt").empty();
      },
      60))
      << "the run did not start: " << read_file(dir + "/err.txt");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_EQ(kill(rank_1, SIGSTOP), 0) << "the run ended before rank 1 could be stopped";
  // The limit counts from when no rank can go on: rank 0 may still measure points alone (IMB-IO's
  // S_ benchmarks, 15 s of them at these lengths) and prints each. So the clock runs from the
  // later of the stop and rank 0's last printed row.
  using Clock = std::chrono::steady_clock;
  const auto stopped = Clock::now();
  auto last_output = stopped;
  std::uintmax_t printed = 0;
  while (!job.has_ended() && Clock::now() - stopped < std::chrono::seconds(80)) {
    std::error_code ignored;
    const auto size = std::filesystem::file_size(dir + "/out.txt", ignored);
    if (size != printed) {
      printed = size;
      last_output = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const bool ended = job.ends_within(0);
  const double seconds = std::chrono::duration<double>(Clock::now() - last_output).count();
  kill(rank_1, SIGCONT);  // if it outlived the job (it is ours: found by our marker)
  kill(rank_1, SIGKILL);
  const std::string err = read_file(dir + "/err.txt");
  ASSERT_TRUE(ended) << "still running 80 s after the stop\n" << err;
  EXPECT_LT(seconds, kTimeoutS + 10) << "ended " << seconds << " s after the last row\n" << err;
  const auto named = err.find("mpiscope: error: timeout: ");
  EXPECT_NE(named, std::string::npos) << err;
  EXPECT_NE(err.find("did not finish within", named), std::string::npos) << err;
  const std::string code = read_file(dir + "/code");
  EXPECT_TRUE(is_timeout_exit(std::atoi(code.c_str()))) << code << err;
}

// Deterministically in a gap between phases: rank 1 stops itself as it starts releasing an IMB-IO
// point (closing and removing its files, collective), where rank 0 waited unwatched for ever.
TEST(StoppedRank, InImbIosReleaseEndsTheJobNamingThePointsEnd) {
  const auto r = run_mpi(2,
                         {"imb-io", "--io-dir", temp_dir(), "-iter", "2,1,1", "-msglog", "2:4",
                          "P_Write_indv", "--no-db", "--timeout", std::to_string(kTimeoutS)},
                         "MPISCOPE_FAULT=stop-release:P_Write_indv:1", 60);
  EXPECT_TRUE(is_timeout_exit(r.exit_code)) << r.exit_code << r.err;
  EXPECT_LT(r.seconds, kTimeoutS + 10) << r.err;
  EXPECT_EQ(count_of(r.err,
                     "timeout: the end of P_Write_indv at 0 bytes on 2 processes did not "
                     "finish within " +
                         std::to_string(kTimeoutS) + " s"),
            1)
      << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    EverySuite, StoppedRank,
    ::testing::Values(
        StoppedRun{"ImbMpi1", {"imb-mpi1"}}, StoppedRun{"ImbExt", {"imb-ext"}},
        StoppedRun{
            "ImbIo",
            // Rank 1 waits while S_ runs on rank 0 alone: the stop lands there, and rank 0
            // then waits for it at the layout's end (it used to wait unwatched, for ever).
            {"imb-io", "--io-dir", "{dir}", "-msglog", "0:16", "S_Write_indv", "S_IWrite_indv",
             "S_Read_indv", "S_IRead_indv", "P_Write_indv", "P_Read_indv", "C_Write_expl"}},
        StoppedRun{"ImbNbc", {"imb-nbc"}}, StoppedRun{"ImbRma", {"imb-rma"}},
        StoppedRun{"Beff", {"beff"}},
        StoppedRun{"Beffio",
                   // 1 GiB of disk: on a quiet machine 34 MiB ended the whole run in 2 s, before
                   // the stop; 1 GiB keeps it going about 6 s.
                   {"beffio", "-T", "20", "--memory-per-node", "256M", "--disk-limit", "1G",
                    "--fs-cache-size", "0", "--io-dir", "{dir}"}},
        StoppedRun{"Skampi",
                   {"skampi", "{dir}/long.skampi", "--outfile", "{dir}/s.out", "--logfile",
                    "{dir}/s.log"}},
        StoppedRun{"Presta", {"presta", "com", "-o", "1000"}},
        // 50 ms of bandwidth timing a sweep however fast the machine (50 round trips alone
        // could end the run in a second or two).
        StoppedRun{"Map",
                   {"map", "--sweeps", "1000", "--bandwidth-time", "0.05",
                    "--max-bandwidth-iterations", "100000"}},
        StoppedRun{"Osu", {"osu", "osu_latency"}}),
    [](const auto& test) { return std::string(test.param.label); });

}  // namespace
