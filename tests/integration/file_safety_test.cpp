// Files in shared directories and failed runs: names planted by another user (symbolic links to a
// victim file) are never written through or removed, outputs are replaced whole or not at all,
// write errors name their reason, and databases mpiscope may not change stay as they are. Tests
// that need a real read-only or full file system mount a tmpfs (root, as in CI) and are skipped,
// saying why, where they cannot.
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

constexpr const char* kVictimText = "belongs to someone else\n";

// A file of another user's, and a symbolic link to it planted at `name` in `dir`.
struct PlantedLink {
  std::string victim, link;
  PlantedLink(const std::string& dir, const std::string& name) {
    victim = write_file(temp_dir(), "victim", kVictimText);
    link = dir + "/" + name;
    EXPECT_EQ(symlink(victim.c_str(), link.c_str()), 0) << link;
  }
  // The victim has its bytes and the link is still there.
  void expect_untouched() const {
    EXPECT_TRUE(read_file(victim) == kVictimText) << "written through " << link;
    struct stat st {};
    EXPECT_EQ(lstat(link.c_str(), &st), 0) << link << " was removed";
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << link;
  }
};

// A database with one imported run.
std::string database_with_a_run(const std::string& dir) {
  const std::string db = dir + "/results.sqlite";
  const auto r = run_plain({"import", "--db", db, sample("imb_mpi1_openmpi.txt")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return db;
}

bool mentions_sql(const std::string& text) {
  return std::regex_search(text, std::regex("PRAGMA|SELECT |INSERT |CREATE TABLE"));
}

// Fills the file system of `dir` with a file "filler", then gives `spare` bytes back.
void fill_leaving(const std::string& dir, long spare) {
  const std::string path = dir + "/filler";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string chunk(4096, 'x');
    while (out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())) && out.flush()) {
    }
  }
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_EQ(truncate(path.c_str(), std::max<long>(0, st.st_size - spare)), 0);
}

const std::vector<std::string> kShortPingPong = {"imb-mpi1", "-iter", "20", "PingPong"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

// b_eff_io's and IMB-IO's files live in the run's own directory: a link planted in --io-dir at the
// name a file would have had there (the run tag is planted with MPISCOPE_FAULT, the real one is
// random, which the second run checks) is neither written through nor removed, and the run
// completes on its own files, leaving nothing behind.
TEST(FileSafety, BeffioNeverWritesThroughAPlantedScratchName) {
  const auto io_dir = temp_dir();
  const PlantedLink planted(io_dir, "b_eff_io_planted_np2_type0");
  const std::vector<std::string> args = {
      "beffio", "-T",           "1",   "--memory-per-node", "256M", "--io-dir",
      io_dir,   "--disk-limit", "34M", "--fs-cache-size",   "0"};
  const auto r = run_mpi(2, args, "MPISCOPE_FAULT=run-tag:planted", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  planted.expect_untouched();
  EXPECT_EQ(files_in(io_dir).size(), 1u) << "left behind: " << files_in(io_dir).back();

  const auto json_path = temp_dir() + "/tag.json";
  const auto ok = run_mpi(2, with(args, {"--json", json_path}), "", 120);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const std::string prefix =
      json::parse(read_file(json_path)).at("run").at("settings").at("file_prefix");
  EXPECT_TRUE(std::regex_match(prefix, std::regex("b_eff_io_[0-9a-f]{16}"))) << prefix;
  planted.expect_untouched();
}

TEST(FileSafety, ImbIoRemovesNoFileItDidNotCreate) {
  const auto io_dir = temp_dir();
  const PlantedLink planted(io_dir, "IMB_out_planted");
  const auto r = run_mpi(2, {"imb-io", "-iter", "2,1,1", "--io-dir", io_dir, "Open_Close"},
                         "MPISCOPE_FAULT=run-tag:planted", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  planted.expect_untouched();
  EXPECT_EQ(files_in(io_dir).size(), 1u) << "left behind: " << files_in(io_dir).back();
}

// Another user who may replace files in --io-dir (group-writable, no sticky bit: a project's
// scratch directory) swaps every new regular file under it for a link to a victim file, for the
// whole run. The reopens by name (MPI-IO's after a create, Open_Close's, b_eff_io's rewrite and
// read) used to write through those links; in the run's own directory (mode 0700) the racer
// cannot reach them. The canary proves the racer works.
class Racer {
 public:
  Racer(const std::string& dir, const std::string& victim) : pid_(fork()) {
    if (pid_ != 0) return;
    constexpr uid_t kNobody = 65534;
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(3);
    namespace fs = std::filesystem;
    for (;;) {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied,
                                               ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->symlink_status(ec).type() != fs::file_type::regular) continue;
        const std::string path = it->path().string(), link = path + ".racer";
        if (symlink(victim.c_str(), link.c_str()) == 0 && rename(link.c_str(), path.c_str()) != 0)
          unlink(link.c_str());
      }
    }
  }
  ~Racer() {
    kill(pid_, SIGKILL);  // our own child
    waitpid(pid_, nullptr, 0);
  }
  Racer(const Racer&) = delete;
  Racer& operator=(const Racer&) = delete;

 private:
  pid_t pid_;
};

struct RacedRun {
  const char* label;
  std::vector<std::string> args;  // after "mpiscope"; --io-dir follows
};

class ScratchRace : public ::testing::TestWithParam<RacedRun> {};

TEST_P(ScratchRace, VictimStaysByteIdenticalWhenFilesAreSwappedForLinks) {
  if (geteuid() != 0) GTEST_SKIP() << "the racer must be another user: needs root to become one";
  const auto io_dir = temp_dir();
  ASSERT_EQ(chmod(io_dir.c_str(), 0777), 0);
  const std::string victim_text(100000, 'v');
  const auto victim = write_file(temp_dir(), "victim", victim_text);
  const auto canary = write_file(io_dir, "canary", "");
  const Racer racer(io_dir, victim);
  ASSERT_TRUE(wait_until(
      [&] {
        struct stat st {};
        return lstat(canary.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
      },
      20))
      << "the racer swaps nothing";
  auto args = GetParam().args;
  args.insert(args.end(), {"--io-dir", io_dir, "--no-db"});
  const auto r = run_mpi(2, args, "", 120);
  EXPECT_TRUE(read_file(victim) == victim_text) << "written through a swapped link";
  // Completed on its own files, or stopped with the one clear error.
  if (r.exit_code != 0) {
    EXPECT_NE(r.err.find("is no longer the one it created"), std::string::npos) << r.err;
  }
  EXPECT_EQ(files_in(io_dir), std::vector<std::string>{"canary"}) << "left behind";
}

INSTANTIATE_TEST_SUITE_P(
    IoSuites, ScratchRace,
    ::testing::Values(RacedRun{"ImbIo",
                               {"imb-io", "-iter", "2,1,1", "-msglog", "2:4", "Open_Close",
                                "S_Write_indv", "P_Write_indv", "P_Read_shared", "C_IWrite_expl"}},
                      RacedRun{"Beffio",
                               {"beffio", "-T", "1", "--memory-per-node", "256M", "--disk-limit",
                                "34M", "--fs-cache-size", "0"}}),
    [](const auto& test) { return std::string(test.param.label); });

// The --io-dir probe had the name .mpiscope-probe-<pid>: files planted for the coming process ids
// blocked every run with "File exists". /proc passed access() for root and failed mid-run.
TEST(FileSafety, IoDirProbeIsARealCreateThatPlantedNamesCannotBlock) {
  const auto io_dir = temp_dir();
  long last_pid = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> last_pid;
  if (last_pid == 0) GTEST_SKIP() << "cannot read /proc/sys/kernel/ns_last_pid";
  for (long pid = last_pid + 1; pid <= last_pid + 400; ++pid)
    write_file(io_dir, ".mpiscope-probe-" + std::to_string(pid), "");
  const auto r = run_mpi(2, {"imb-io", "-iter", "2,1,1", "--io-dir", io_dir, "Open_Close"}, "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_in(io_dir).size(), 400u);

  if (geteuid() != 0) GTEST_SKIP() << "/proc fails access() for a user already";
  for (const auto& suite : std::vector<std::vector<std::string>>{
           {"imb-io", "--io-dir", "/proc"}, {"beffio", "-T", "1", "--io-dir", "/proc"}}) {
    const auto bad = run_mpi(2, suite, "", 60);
    EXPECT_EQ(bad.exit_code, 2) << suite[0] << ": " << bad.err;
    // The errno of the real failing call, with what it means for a directory that exists.
    EXPECT_EQ(count_of(bad.err,
                       "--io-dir '/proc' cannot be used: creating a directory in it "
                       "failed: No such file or directory (the directory exists: its "
                       "file system does not let new entries be made in it"),
              1)
        << bad.err;
  }
}

// `report -o X` and `skampi postproc -o X` wrote X.tmp and followed a link planted there.
TEST(FileSafety, ReportAndPostprocNeverWriteThroughAPlantedTemporaryName) {
  const auto dir = temp_dir();
  const PlantedLink report_tmp(dir, "report.html.tmp");
  const auto db = database_with_a_run(temp_dir());
  const auto r = run_plain({"report", "--db", db, "-o", dir + "/report.html"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(dir + "/report.html").find("<html"), std::string::npos);
  report_tmp.expect_untouched();

  const PlantedLink merged_tmp(dir, "merged.out.tmp");
  const auto input = write_file(dir, "a.out",
                                "#SKAMPI-OUTPUT 1\n@MACHINE m\n@BEGIN_SUITE S\n@TYPE 1\n"
                                "@PATTERN ping-pong\n8 8 2 0 1.5 0.1 1.5 0 8 8 1 0 -\n"
                                "@END_SUITE S\n@END_RUN\n");
  const auto p = run_mpi(1, {"skampi", "postproc", "-o", dir + "/merged.out", input}, "", 60);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(read_file(dir + "/merged.out").find("@BEGIN_SUITE S"), std::string::npos);
  merged_tmp.expect_untouched();
  // Nothing but the outputs, the input and the planted links is left in the directory.
  EXPECT_EQ(files_in(dir).size(), 5u);
}

// A usage error found after the output options were checked (here a --db in a missing folder)
// truncated the --json and --csv files of an earlier run.
TEST(FileSafety, UsageErrorLeavesExistingOutputsIntact) {
  const auto dir = temp_dir();
  const auto json_path = write_file(dir, "old.json", "{\"old\": true}\n");
  const auto csv_path = write_file(dir, "old.csv", "old\n");
  const auto r = run_mpi(
      2, with(kShortPingPong, {"--json", json_path, "--csv", csv_path, "--db", dir + "/no/db"}), "",
      60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_file(json_path), "{\"old\": true}\n");
  EXPECT_EQ(read_file(csv_path), "old\n");
  EXPECT_EQ(files_in(dir).size(), 2u);
}

// /dev/full: every write fails with ENOSPC. The CSV's buffered writes were never checked (exit 0).
TEST(FileSafety, WriteErrorsOnCsvAndJsonNameTheirReason) {
  for (const char* option : {"--csv", "--json"}) {
    const auto r = run_mpi(2, with(kShortPingPong, {option, "/dev/full", "--no-db"}), "", 60);
    EXPECT_NE(r.exit_code, 0) << option;
    EXPECT_NE(r.err.find("cannot write '/dev/full': No space left on device"), std::string::npos)
        << option << ": " << r.err;
  }
}

// A file system that fills up during the run: the JSON keeps its last complete document.
TEST(FileSafety, FullFileSystemLeavesTheLastCompleteJsonDocument) {
  SmallTmpfs fs("size=256k");
  if (!fs.mounted) GTEST_SKIP() << fs.error;
  // The rows take about 26 kB; the library's control variables before them as many as it has
  // (Open MPI about 38 kB, MPICH about 15 kB): measured on a first run.
  const auto first = temp_dir() + "/r.json";
  ASSERT_EQ(run_mpi(2, with(kShortPingPong, {"--json", first, "--no-db"}), "", 60).exit_code, 0);
  const auto variables = json::parse(read_file(first)).at("run").at("control_variables").dump();
  fill_leaving(fs.path, 12 * 1024 + variables.size());
  const auto json_path = fs.path + "/r.json";
  const auto r =
      run_mpi(2, with(kShortPingPong, {"--samples", "--json", json_path, "--no-db"}), "", 60);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cannot write '" + json_path + "': No space left on device"),
            std::string::npos)
      << r.err;
  json doc;
  ASSERT_NO_THROW(doc = json::parse(read_file(json_path)));
  EXPECT_FALSE(doc.at("complete").get<bool>());
  EXPECT_GT(doc.at("benchmarks").at(0).at("rows").size(), 0u);
  EXPECT_EQ(files_in(fs.path).size(), 2u);  // the filler and the JSON, no temporary file
}

// `report` truncated the previous report before it wrote the new one: on a full file system the
// user was left with nothing.
TEST(FileSafety, FailedReportLeavesThePreviousReportIntact) {
  SmallTmpfs fs("size=256k");
  if (!fs.mounted) GTEST_SKIP() << fs.error;
  const auto db = database_with_a_run(temp_dir());
  const std::string previous = "<html>the previous report</html>\n";
  const auto report = write_file(fs.path, "report.html", previous);
  fill_leaving(fs.path, 8 * 1024);  // the report takes about 20 kB
  const auto r = run_plain({"report", "--db", db, "-o", report});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cannot write '" + report + "': No space left on device"), std::string::npos)
      << r.err;
  EXPECT_TRUE(read_file(report) == previous) << "the previous report was replaced";
  EXPECT_EQ(files_in(fs.path).size(), 2u);  // the filler and the report, no temporary file
}

// Another program's SQLite file was switched to WAL mode before being refused.
TEST(FileSafety, RefusedDatabaseIsLeftByteForByte) {
  const auto dir = temp_dir();
  const std::string path = dir + "/other.sqlite";
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "CREATE TABLE mine (x); INSERT INTO mine VALUES (1);", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(other);
  const std::string before = read_file(path);
  const auto r = run_mpi(2, with(kShortPingPong, {"--db", path}), "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not an mpiscope one"), std::string::npos) << r.err;
  EXPECT_FALSE(mentions_sql(r.err)) << r.err;
  EXPECT_TRUE(read_file(path) == before) << "the refused file was changed";
  EXPECT_EQ(files_in(dir).size(), 1u) << "beside it: " << files_in(dir).back();
}

// A database on a read-only file system: runs, report and compare read it and leave no -wal or
// -shm (they could not create them, and failed); recording into it is a usage error.
TEST(FileSafety, ReadOnlyDatabaseCanBeReadAndIsAUsageErrorToWrite) {
  SmallTmpfs fs("size=4m");
  if (!fs.mounted) GTEST_SKIP() << fs.error;
  const auto db = database_with_a_run(fs.path);
  ASSERT_EQ(run_plain({"import", "--db", db, sample("imb_mpi1_mpich.txt")}).exit_code, 0);
  ASSERT_TRUE(fs.remount_read_only()) << fs.error;
  const auto runs = run_plain({"runs", "--db", db, "--long"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(count_of(runs.out, "import:imb"), 2) << runs.out;
  const auto report_path = temp_dir() + "/r.html";
  const auto report = run_plain({"report", "--db", db, "-o", report_path});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  const auto compare = run_plain({"compare", "--db", db, "1", "2"});
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_EQ(files_in(fs.path), std::vector<std::string>{"results.sqlite"});

  const auto record = run_mpi(2, with(kShortPingPong, {"--db", db}), "", 60);
  EXPECT_EQ(record.exit_code, 2) << record.err;
  EXPECT_NE(record.err.find("cannot write the database '" + db + "': Read-only file system"),
            std::string::npos)
      << record.err;
  EXPECT_FALSE(mentions_sql(record.err)) << record.err;
  const auto import = run_plain({"import", "--db", db, sample("imb_mpi1_mpich.txt")});
  EXPECT_EQ(import.exit_code, 2) << import.err;
  EXPECT_FALSE(mentions_sql(import.err)) << import.err;
}
