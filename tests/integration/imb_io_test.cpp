// IMB-IO end to end with real MPI-IO in a temporary folder: every benchmark, both modes for
// blocking writes, the non-blocking flavours' overlap columns, -check, and files never left behind.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "harness.hpp"
#include "imb_checks.hpp"

using namespace harness;
using namespace imbcheck;

namespace {

std::vector<std::string> io_benchmark_names() {
  std::vector<std::string> names = {"Open_Close"};
  for (const char* flavour : {"Write", "Read", "IWrite", "IRead"})
    for (const char* form : {"S_%_indv", "S_%_expl", "P_%_indv", "P_%_expl", "P_%_shared",
                             "P_%_priv", "C_%_indv", "C_%_expl", "C_%_shared"}) {
      std::string n = form;
      n.replace(n.find('%'), 1, flavour);
      names.push_back(n);
    }
  return names;
}

std::vector<std::string> io_columns(const std::string& name) {
  if (name == "Open_Close") return {"#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"};
  if (name.find("_I") != std::string::npos)
    return {"#bytes",      "#repetitions", "t_ovrl[usec]", "t_pure[usec]",
            "t_CPU[usec]", "overlap[%]",   "defects"};
  if (name[0] == 'S') return {"#bytes", "#repetitions", "t[usec]", "Mbytes/sec", "defects"};
  return {"#bytes",      "#repetitions", "t_min[usec]", "t_max[usec]",
          "t_avg[usec]", "Mbytes/sec",   "defects"};
}

class IoBenchmarks : public ::testing::TestWithParam<int> {};

TEST_P(IoBenchmarks, EveryBenchmarkRunsChecksItsDataAndLeavesNoFile) {
  const int np = GetParam();
  const auto dir = temp_dir();
  const auto work = dir + "/io";
  ASSERT_EQ(mkdir(work.c_str(), 0755), 0);
  // From 3 processes on, only the full count and one unaligned length: 1 and 2 active processes,
  // the empty message and 64 KiB are the runs at 1 and 2, and oversubscribed MPICH ranks make each
  // point slow (4 ranks with two lengths took 64 s in CI's MPICH pass).
  const std::vector<std::string> sizes =
      np >= 3 ? std::vector<std::string>{"1000"} : std::vector<std::string>{"0", "1000", "65536"};
  std::string lengths_text;
  for (const auto& x : sizes) lengths_text += x + "\n";
  const auto lengths = write_file(dir, "lengths", lengths_text);
  // MSGSPERSAMPLE 4, OVERALL_VOL 1 MB, MSGS_NONAGGR 2; a short CPU_Exploit for the I- flavours.
  // IMB 3.1's rules: the names as the guide spells them, the non-blocking writes non-aggregate.
  std::vector<std::string> args = {"imb-io",       "-msglen", lengths,      "-iter",
                                   "4,1,2",        "-check",  "--io-dir",   work,
                                   "--cpu-target", "0.002",   "-imb_rules", "3.1"};
  if (np >= 3) args.insert(args.end(), {"-npmin", std::to_string(np)});
  const auto r = run_mpi(np, args, "", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 4000);
  EXPECT_TRUE(files_in(work).empty()) << "left behind: " << files_in(work).front();
  EXPECT_NE(r.out.find("# CPU_Exploit: "), std::string::npos);
  EXPECT_NE(r.out.find("ALL BENCHMARKS SUCCESSFUL"), std::string::npos);
  const auto tables = parse_imb(r.out);
  const std::vector<int> series = np >= 3   ? std::vector<int>{np}
                                  : np == 2 ? std::vector<int>{1, 2}
                                            : std::vector<int>{1};
  for (const auto& name : io_benchmark_names()) {
    const auto found = tables_named(tables, name);
    const bool write = name.find("Write") != std::string::npos;
    const bool overlapped = name.find("_I") != std::string::npos;
    const std::size_t modes = write && !overlapped ? 2 : 1;
    const std::size_t layouts = name[0] == 'S' ? 1 : series.size();
    ASSERT_EQ(found.size(), modes * layouts) << name;
    for (std::size_t k = 0; k < found.size(); ++k) {
      const auto& t = *found[k];
      SCOPED_TRACE(name + " table " + std::to_string(k));
      EXPECT_EQ(t.nprocs, name[0] == 'S' ? 1 : series[k / modes]);
      EXPECT_EQ(t.mode, !write ? "" : (modes == 2 && k % 2 ? "AGGREGATE" : "NON-AGGREGATE"));
      EXPECT_EQ(t.columns, io_columns(name));
      expect_imb_layout(t);
      if (name == "Open_Close") continue;
      ASSERT_EQ(t.cells.size(), sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        EXPECT_EQ(t.cells[i][0], sizes[i]);
        EXPECT_EQ(t.cells[i].back(), "0.00") << t.rows[i];
      }
      if (!overlapped && name[0] != 'S')
        for (std::size_t i = sizes.size() - 2; i < sizes.size(); ++i) {
          // throughput: the data of all processes over t_max
          const double x = std::stod(t.cells[i][0]) * t.nprocs;
          const double tmax = cell(t, i, "t_max[usec]");
          EXPECT_NEAR(cell(t, i, "Mbytes/sec"), x / (t.megabyte / 1e6) / tmax,
                      x / (t.megabyte / 1e6) / tmax * 0.01 + 0.011);
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ProcessCounts, IoBenchmarks, ::testing::Values(1, 2, 3, 4));

namespace {
// The benchmarks of a run in the order their tables start ("# Benchmarking NAME"), each once.
std::vector<std::string> benchmarks_run(const std::string& out) {
  std::vector<std::string> names;
  const std::regex re("# Benchmarking ([A-Za-z_]+)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator();
       ++it)
    if (names.empty() || names.back() != (*it)[1]) names.push_back((*it)[1]);
  return names;
}
}  // namespace

// docs/imb-io.md states one run order, as a list under "### Run order"; a run follows it, and
// named benchmarks run in the order given. About 3 s on 1 process.
TEST(ImbIo, RunsInTheOrderTheDocumentationStates) {
  const std::string doc = read_file(std::string(MPISCOPE_TEST_DATA) + "/../../docs/imb-io.md");
  const auto section = doc.find("\n### Run order\n");
  ASSERT_NE(section, std::string::npos);
  // The indented block of the section: the benchmark names, blank-separated.
  std::vector<std::string> documented;
  bool in_block = false;
  for (const auto& line : lines_of(doc.substr(section + 1, doc.find("\n## ", section) - section))) {
    const bool indented = line.rfind("    ", 0) == 0;
    if (in_block && !indented) break;
    if (!indented) continue;
    in_block = true;
    std::istringstream words(line);
    for (std::string w; words >> w;) documented.push_back(w);
  }
  ASSERT_EQ(documented.size(), 37u) << doc.substr(section, 2000);

  const auto dir = temp_dir();
  const auto work = dir + "/io";
  ASSERT_EQ(mkdir(work.c_str(), 0700), 0);
  const auto lengths = write_file(dir, "lengths", "0\n");
  // The names as mpiscope stores them (IMB 3.1's text; current IMB's capitalises S_Write_Indv).
  const std::vector<std::string> common = {"-msglen",      lengths, "-iter",      "1,1,1",
                                           "--io-dir",     work,    "-imb_rules", "3.1",
                                           "--cpu-target", "0.001"};
  std::vector<std::string> all = {"imb-io"};
  all.insert(all.end(), common.begin(), common.end());
  const auto r = run_mpi(1, all, "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(benchmarks_run(r.out), documented);

  std::vector<std::string> named = all;
  named.insert(named.end(), {"P_Read_indv", "Open_Close", "S_Write_expl"});
  const auto n = run_mpi(1, named, "", 60);
  ASSERT_EQ(n.exit_code, 0) << n.err << n.out;
  EXPECT_EQ(benchmarks_run(n.out),
            (std::vector<std::string>{"P_Read_indv", "Open_Close", "S_Write_expl"}));
}

TEST(ImbIo, OverlapColumnsFollowTheirDefinition) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "1048576\n");
  // Runs once; checks the arithmetic; returns whether the times lay within their bounds.
  auto attempt = [&](std::string& why) {
    // 1 MiB written and synced takes some 10-50 ms here, like CPU_Exploit's 20 ms: P_IWrite_expl's
    // t_pure and t_CPU are comparable, so its overlap is well conditioned.
    const auto r =
        run_mpi(2, {"imb-io", "-npmin", "2", "-msglen", lengths, "-iter", "4,16,3", "--io-dir", dir,
                    "--cpu-target", "0.02", "P_IWrite_expl", "C_IRead_indv"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // CPU_Exploit is calibrated at the start; each row's t_CPU is timed again next to it.
    std::smatch header;
    if (!std::regex_search(r.out, header, std::regex(R"(t_CPU = (\d+) usec per call)"))) {
      ADD_FAILURE() << "no CPU_Exploit line in\n" << r.out;
      return true;
    }
    const double calibrated = std::stod(header[1]);
    // Calibrated to --cpu-target (20 ms): within reason on a loaded machine.
    EXPECT_GT(calibrated, 4000);
    EXPECT_LT(calibrated, 100000);
    const auto tables = parse_imb(r.out);
    EXPECT_EQ(tables.size(), 2u);
    bool within = true;
    for (const auto& t : tables) {
      SCOPED_TRACE(t.name);
      const double ovrl = cell(t, 0, "t_ovrl[usec]"), pure = cell(t, 0, "t_pure[usec]"),
                   cpu = cell(t, 0, "t_CPU[usec]"), overlap = cell(t, 0, "overlap[%]");
      EXPECT_GT(pure, 0);
      // t_CPU is the calibrated amount of work at this moment's speed: no bound relative to the
      // calibrated figure holds on this VM (a calibration during a load burst was 5 times slower
      // than the rows' calls).
      EXPECT_GT(cpu, 0);
      // overlap = (t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU), in percent, clamped to 0-100.
      const double expected =
          std::clamp(100 * (pure + cpu - ovrl) / std::min(pure, cpu), 0.0, 100.0);
      EXPECT_NEAR(overlap, expected, std::fabs(expected) * 0.01 + 0.1);
      // The overlapped run lies between perfect overlap, max(t_pure, t_CPU), and none,
      // t_pure + t_CPU (0 <= overlap <= 100 %). Margins: see below.
      const double low = 0.5, high = 2.0;
      bool ok = ovrl >= std::max(pure, cpu) * low && ovrl <= (pure + cpu) * high;

      // Where the parts are comparable those bounds keep the overlap near [0, 100] %.
      if (t.name == "P_IWrite_expl" && std::min(pure, cpu) > 0.25 * std::max(pure, cpu))
        ok = ok && overlap >= 100 * (1 - high) * (pure + cpu) / std::min(pure, cpu) &&
             overlap <= 100 * (pure + cpu - low * std::max(pure, cpu)) / std::min(pure, cpu);
      if (!ok)
        why += t.name + ": t_ovrl " + std::to_string(ovrl) + ", t_pure " + std::to_string(pure) +
               ", t_CPU " + std::to_string(cpu) + ", overlap " + std::to_string(overlap) + "\n";
      within = within && ok;
    }
    return within;
  };
  // On this 2-core VM other tests and builds change the CPU speed from one moment to the next:
  // CPU_Exploit was seen to take 3 times its calibrated time under a load of 5. So the bounds hold
  // with margins of 2x in at least one of 3 runs.
  std::string why;
  bool within = false;
  for (int i = 0; i < 3 && !within && !HasFailure(); ++i) within = attempt(why);
  EXPECT_TRUE(within) << why;
}

// A competing CPU hog (a busy shell loop, ended by its PID) changes CPU_Exploit's speed during the
// run. No printed overlap may leave 0-100 %, the JSON keeps the raw figure, and exactly the rows
// whose raw figure fell outside by more than its plausible error carry the note.
TEST(ImbIo, OverlapUnderACpuHogStaysWithinZeroAndHundredAndDoubtfulRowsAreMarked) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "0\n1024\n1048576\n");
  BackgroundCommand hog("while :; do :; done");
  const auto r = run_mpi(2, {"imb-io", "-npmin", "2", "-msglen", lengths, "-iter", "4,16,3",
                             "--io-dir", dir, "--cpu-target", "0.01", "--json", dir + "/r.json",
                             "S_IRead_indv", "P_IWrite_expl", "P_IRead_indv"});
  ASSERT_EQ(kill(hog.pid(), SIGKILL), 0);
  EXPECT_TRUE(hog.ends_within(5));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), 3u) << r.out;
  std::set<std::string> cpu_times;
  for (const auto& t : tables) {
    ASSERT_EQ(t.cells.size(), 3u) << r.out;
    for (std::size_t i = 0; i < t.cells.size(); ++i) {
      const double overlap = cell(t, i, "overlap[%]");
      EXPECT_GE(overlap, 0) << t.rows[i];
      EXPECT_LE(overlap, 100) << t.rows[i];
      cpu_times.insert(t.cells[i][4]);
    }
  }
  // t_CPU is timed at every point, not copied from the calibration.
  EXPECT_GT(cpu_times.size(), 1u) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  int doubtful = 0;
  for (const auto& b : j["benchmarks"])
    for (const auto& row : b["rows"]) {
      const auto& o = row["overlap"];
      const double raw = o["raw_overlap_percent"], error = o["overlap_error_percent"];
      EXPECT_GE(error, 0);
      EXPECT_DOUBLE_EQ(o["overlap_percent"].get<double>(), std::clamp(raw, 0.0, 100.0));
      EXPECT_EQ(o["doubtful"].get<bool>(), raw < -error || raw > 100 + error) << o.dump();
      doubtful += o["doubtful"].get<bool>() ? 1 : 0;
    }
  EXPECT_EQ(count_of(r.out, "# overlap doubtful: raw "), doubtful) << r.out;
}

TEST(ImbIo, CheckReadsBackAndFindsAPlantedCorruption) {
  const auto dir = temp_dir();
  const auto r =
      run_mpi(2,
              {"imb-io", "-check", "-iter", "3,1,2", "-msglen", write_file(dir, "l", "0\n4096\n"),
               "--io-dir", dir, "S_Read_indv", "P_Write_expl", "C_Read_shared", "P_Write_shared",
               "P_Read_shared", "P_IRead_shared"},
              "MPISCOPE_FAULT=corrupt:0");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto tables = parse_imb(r.out);
  EXPECT_EQ(tables.size(), 15u);  // 1 + (2 modes + 1 + 2 modes + 1 + 1) × 2 process counts
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name + " " + t.mode);
    EXPECT_EQ(t.cells[0].back(), "0.00");
    EXPECT_EQ(t.cells[1].back(), "1.00");
  }
  EXPECT_TRUE(files_in(dir).size() == 1);  // only the lengths file
}

// Without a fault, the shared-pointer benchmarks' blocks are found where the race put them.
TEST(ImbIo, CheckFindsSharedPointerBlocksWhereverTheyLanded) {
  const auto dir = temp_dir();
  const auto r = run_mpi(3, {"imb-io", "-check", "-npmin", "3", "-iter", "3,1,2", "-msglen",
                             write_file(dir, "l", "1000\n65536\n"), "--io-dir", dir,
                             "P_Write_shared", "P_Read_shared"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto tables = parse_imb(r.out);
  EXPECT_EQ(tables.size(), 3u);
  for (const auto& t : tables)
    for (const auto& row : t.cells) EXPECT_EQ(row.back(), "0.00") << t.name;
}

// A launcher in the background whose rank 0 stops answering while `benchmark`'s file is open
// (fault injection), for the tests of what happens to files when a run is ended from outside.
// The run's scratch files: they are in its own directory, mpiscope-XXXXXX under --io-dir.
std::vector<std::string> run_files_in(const std::string& io_dir) {
  std::vector<std::string> names;
  for (const auto& entry : files_in(io_dir))
    if (entry.starts_with("mpiscope-"))
      for (const auto& file : files_in(io_dir + "/" + entry)) names.push_back(file);
  return names;
}

struct HungIoRun {
  std::string dir = temp_dir();
  std::string work;
  std::unique_ptr<BackgroundCommand> launcher;

  // Every rank in `hung_ranks` stops; `np` processes, `extra` options (e.g. Multi mode). Waits
  // until `files` files are open: in Multi mode each group opens its own, not at the same time.
  HungIoRun(const std::string& benchmark, const std::string& folder, int np = 2,
            const std::string& extra = "", const std::vector<int>& hung_ranks = {0},
            std::size_t files = 1)
      : work(dir + "/" + folder) {
    EXPECT_EQ(mkdir(work.c_str(), 0755), 0);
    std::string faults;
    for (int r : hung_ranks)
      faults += (faults.empty() ? "hang:" : ",hang:") + benchmark + ":1024:" + std::to_string(r);
    launcher = std::make_unique<BackgroundCommand>(
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPISCOPE_FAULT=" + faults +
        " exec " + mpiscope_launch(np) + " imb-io " + benchmark + " -iter 3 " + extra +
        " --io-dir " + work + " -msglen " + write_file(dir, "l", "1024\n") + " > " + dir +
        "/out 2>&1");
    // Held for a whole second: a point is set up afresh (its file removed and created again)
    // after the -time probe, and under MPICH one group's file was gone 500 ms after the first
    // sight of both (stop 34).
    int seen = 0;
    EXPECT_TRUE(wait_until(
        [&] {
          seen = run_files_in(work).size() >= files ? seen + 1 : 0;
          return seen >= 10;
        },
        30))
        << read_file(dir + "/out");
  }

  // Waits up to 30 s for the launcher to end; kills it and reports `failure` if it does not.
  void expect_launcher_ends(const std::string& failure) {
    if (!launcher->ends_within(30)) ADD_FAILURE() << failure;
  }
};

TEST(ImbIo, FilesAreRemovedOnSigterm) {
  HungIoRun run("P_Write_indv", "io");
  kill(run.launcher->pid(), SIGTERM);
  run.expect_launcher_ends("the launcher did not stop on SIGTERM");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(files_in(run.work).empty()) << "left behind: " << files_in(run.work).front();
}

// Process id -> parent id of the processes whose command line matches the extended regex.
std::map<pid_t, pid_t> processes_matching(const std::string& regex) {
  std::map<pid_t, pid_t> found;
  FILE* pipe = popen(("pgrep -f '" + regex + "'").c_str(), "r");
  if (pipe == nullptr) return found;
  long process = 0;
  while (std::fscanf(pipe, "%ld", &process) == 1) {
    std::ifstream stat("/proc/" + std::to_string(process) + "/stat");
    std::string line;
    std::getline(stat, line);
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long parent = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &parent) == 2)
      found[static_cast<pid_t>(process)] = static_cast<pid_t>(parent);
  }
  pclose(pipe);
  return found;
}

// SIGKILL reaches no handler; launchers send it after SIGTERM (Open MPI after 1 s) and the kernel
// sends it when memory runs out. The reaper process of each rank removes the files then.
TEST(ImbIo, FilesAreRemovedWhenARankIsKilled) {
  HungIoRun run("S_Write_indv", "io-killed");
  // Both ranks, found by this test's unique folder on their command line; not the launcher and
  // not the reapers (forks of the ranks: their parent is a rank).
  const auto ranks_and_reapers = processes_matching("^[^ ]*mpiscope imb-io .*" + run.work);
  int killed = 0;
  for (const auto& [process, parent] : ranks_and_reapers)
    if (!ranks_and_reapers.contains(parent)) killed += kill(process, SIGKILL) == 0;
  EXPECT_EQ(killed, 2);
  run.expect_launcher_ends("the launcher did not stop after its ranks were killed");
  bool clean = false;
  for (int i = 0; i < 50 && !clean; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    clean = files_in(run.work).empty();
  }
  EXPECT_TRUE(clean) << "left behind: " << files_in(run.work).front();
}

// Ctrl-C: the terminal sends SIGINT to the launcher and the ranks. In Multi mode each group has
// its own file, named with _g<group>.
TEST(ImbIo, FilesAreRemovedOnSigintAndMultiModeNamesThemPerGroup) {
  HungIoRun run("P_Write_indv", "io-int", 4, "-multi 1 -npmin 2", {0, 1, 2, 3}, 2);
  auto names = run_files_in(run.work);
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 2u) << read_file(run.dir + "/out");
  EXPECT_TRUE(names[0].ends_with("_g0")) << names[0];
  EXPECT_TRUE(names[1].ends_with("_g1")) << names[1];
  for (const auto& [process, parent] : processes_matching("^[^ ]*mpiscope imb-io .*" + run.work))
    kill(process, SIGINT);
  kill(run.launcher->pid(), SIGINT);
  run.expect_launcher_ends("the launcher did not stop on SIGINT");
  bool clean = false;
  for (int i = 0; i < 50 && !clean; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    clean = files_in(run.work).empty();
  }
  EXPECT_TRUE(clean) << "left behind: " << files_in(run.work).front();
}

TEST(ImbIo, MultiModeGivesATablePerGroupAndLeavesNoFile) {
  const auto dir = temp_dir();
  const auto work = dir + "/io";
  ASSERT_EQ(mkdir(work.c_str(), 0755), 0);
  const auto r = run_mpi(
      4, {"imb-io", "-multi", "1", "-npmin", "2", "-check", "-iter", "3,1,2", "-msglen",
          write_file(dir, "l", "0\n1024\n"), "--io-dir", work, "P_Write_priv", "C_Read_expl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(files_in(work).empty()) << "left behind: " << files_in(work).front();
  const auto tables = parse_imb(r.out);
  // At 2 processes: 2 groups (Multi-), at 4: one; P_Write_priv in both modes.
  ASSERT_EQ(tables.size(), 6u);
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name + " " + t.mode);
    const bool multi = t.nprocs == 2;
    EXPECT_EQ(t.groups, multi ? 2 : 1);
    EXPECT_EQ(t.name.starts_with("Multi-"), multi);
    // A row per group and length, every one with correct data.
    ASSERT_EQ(t.cells.size(), multi ? 4u : 2u);
    for (const auto& row : t.cells) EXPECT_EQ(row.back(), "0.00");
    if (multi) {
      EXPECT_EQ(t.cells[0][0], "0");
      EXPECT_EQ(t.cells[1][0], "1");
    }
  }
}

TEST(ImbIo, FullFileSystemIsOneClearErrorAndLeavesNoFile) {
  SmallTmpfs fs("size=256k");
  if (!fs.mounted) GTEST_SKIP() << fs.error;
  const auto lengths = write_file(temp_dir(), "l", "65536\n");
  // C_IWrite_shared fails in its blocking twin, which gives t_pure and runs first.
  for (const auto& [benchmark, failing] :
       std::vector<std::pair<std::string, std::string>>{{"S_Write_indv", "S_Write_indv"},
                                                        {"P_Write_expl", "P_Write_expl"},
                                                        {"C_IWrite_shared", "C_Write_shared"}}) {
    SCOPED_TRACE(benchmark);
    const auto r = run_mpi(2,
                           {"imb-io", "-iter", "50,16,10", "-msglen", lengths, "--io-dir", fs.path,
                            "--cpu-target", "0.001", benchmark},
                           "", 60);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
    EXPECT_EQ(count_of(r.err, "error: " + failing + " in " + fs.path + "/mpiscope-"), 1) << r.err;
    EXPECT_EQ(count_of(r.err, " (on group rank 0): MPI_File_"), 1) << r.err;
    EXPECT_TRUE(files_in(fs.path).empty()) << "left behind: " << files_in(fs.path).front();
    EXPECT_LT(r.seconds, 40);
  }
}

// A directory that the front end's check lets through but where no file can be created (no
// inode left), and one on a read-only file system: one clear error each, no hang.
TEST(ImbIo, UnwritableIoDirIsOneClearError) {
  SmallTmpfs no_inodes("size=256k,nr_inodes=1");
  if (!no_inodes.mounted) GTEST_SKIP() << no_inodes.error;
  const auto lengths = write_file(temp_dir(), "l", "1024\n");
  auto r = run_mpi(2,
                   {"imb-io", "-iter", "3,1,2", "-msglen", lengths, "--io-dir", no_inodes.path,
                    "P_Read_indv", "Open_Close"},
                   "", 60);
  // No file can be created there although access() says W_OK: a usage error before anything runs.
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_EQ(count_of(r.err, "--io-dir '" + no_inodes.path +
                                "' cannot be used: creating a directory in it failed: No space "
                                "left on device"),
            1)
      << r.err;
  EXPECT_LT(r.seconds, 30);
  SmallTmpfs read_only("size=64k");
  ASSERT_TRUE(read_only.mounted) << read_only.error;
  ASSERT_TRUE(read_only.remount_read_only()) << read_only.error;
  r = run_mpi(2, {"imb-io", "--io-dir", read_only.path}, "", 60);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(read_only.path), std::string::npos) << r.err;
  EXPECT_TRUE(files_in(read_only.path).empty());
  EXPECT_LT(r.seconds, 30);
}

// --method accurate runs more repetitions than the file was filled for: the reads wrap around
// and read data (a read past the end would move fewer bytes and end the run).
TEST(ImbIo, AccurateMethodReadsRealData) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "1048576\n");
  const auto imb = run_mpi(2, {"imb-io", "-msglen", lengths, "--io-dir", dir, "S_Read_indv"});
  const auto accurate = run_mpi(
      2, {"imb-io", "--method", "accurate", "-msglen", lengths, "--io-dir", dir, "S_Read_indv"});
  ASSERT_EQ(imb.exit_code, 0) << imb.err;
  ASSERT_EQ(accurate.exit_code, 0) << accurate.err;
  const auto a = parse_imb(accurate.out), i = parse_imb(imb.out);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(i.size(), 1u);
  // More repetitions than IMB's 16 at 1 MiB: the wrap-around was exercised.
  EXPECT_GT(cell(a[0], 0, "#repetitions"), 16);
  const double t_accurate = cell(a[0], 0, "t_med[usec]"), t_imb = cell(i[0], 0, "t[usec]");
  // Reading 1 MiB from the page cache takes tens of microseconds; past the end of the file it
  // took 0.6 us. A factor of 20 either way allows for the load of the machine.
  EXPECT_GT(t_accurate, t_imb / 20);
  EXPECT_LT(t_accurate, t_imb * 20);
  EXPECT_GT(t_accurate, 5.0);
  EXPECT_EQ(files_in(dir).size(), 1u);
}

TEST(ImbIo, TwoRunsInOneFolderNeverClobberEachOtherOrTheUsersFile) {
  const auto dir = temp_dir();
  const auto users = write_file(dir, "IMB_out", "my precious data\n");
  const auto lengths = write_file(dir, "l", "0\n65536\n");
  std::vector<std::string> args = {"imb-io",      "-iter",          "3,1,2",     "-msglen",
                                   lengths,       "--io-dir",       dir,         "S_Write_indv",
                                   "P_Read_expl", "C_Write_shared", "Open_Close"};
  Result a, b;
  // Each launcher a session folder of its own: two Open MPI launchers started at once under one
  // $TMPDIR race to make the same one ("mkdir … File exists"; seen once here, stop 38).
  const std::string first_tmp = "TMPDIR=" + temp_dir(), second_tmp = "TMPDIR=" + temp_dir();
  std::thread first([&] { a = run_mpi(2, args, first_tmp); });
  std::thread second([&] { b = run_mpi(2, args, second_tmp); });
  first.join();
  second.join();
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_file(users), "my precious data\n");
  EXPECT_EQ(files_in(dir).size(), 2u);  // the user's file and the lengths
}

TEST(ImbIo, BadIoDirIsOneClearError) {
  const auto dir = temp_dir();
  const auto plain = write_file(dir, "not-a-dir", "x");
  for (const std::string& bad : {dir + "/missing", plain}) {
    const auto r = run_mpi(2, {"imb-io", "--io-dir", bad}, "", 60);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(count_of(r.err, "error: --io-dir '" + bad + "' is not a directory"), 1) << r.err;
    EXPECT_LT(r.seconds, 30);
  }
}

}  // namespace
