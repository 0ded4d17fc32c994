// The standing adversarial set of issue 29: what an audit tried against the database commands and
// the inputs, one test per family, so that the next audit finds none of it again. Plain commands
// on real SQLite files in fresh folders (no MPI job), but for the one test that compares with a
// live run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness.hpp"

using namespace harness;

namespace {

const std::vector<std::string> kCommands = {"import", "runs",   "export",  "label",
                                            "delete", "report", "compare", "history"};

// The arguments of each database command that would otherwise succeed on a database of two
// runs; "{dir}" is the test's folder.
std::vector<std::string> working_args(const std::string& command, const std::string& dir) {
  if (command == "import") return {"import", sample("osu_latency_a.txt")};
  if (command == "label") return {"label", "1", "x"};
  if (command == "delete") return {"delete", "1"};
  if (command == "report") return {"report", "-o", dir + "/r.html"};
  if (command == "compare") return {"compare", "1", "2"};
  if (command == "history") return {"history", "osu_latency"};
  return {command};
}

// A database of two imported runs.
std::string two_runs(const std::string& dir) {
  const auto db = dir + "/work.sqlite";
  const auto r =
      run_plain({"import", "--db", db, sample("osu_latency_a.txt"), sample("osu_latency_b.txt")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return db;
}

std::string shell_line(const std::string& env, const std::vector<std::string>& args) {
  std::string line = env + " " + quote(bin_dir() + "/mpiscope");
  for (const auto& a : args) line += " " + quote(a);
  return line;
}

// `MPISCOPE_DB=work.sqlite mpiscope delete 1 --db ""` deleted from work.sqlite: every command now
// refuses an empty --db (a script's unset variable) before it touches any database.
TEST(Adversarial, EveryDatabaseCommandRefusesAnEmptyDb) {
  const auto dir = temp_dir();
  const auto db = two_runs(dir);
  for (const auto& command : kCommands) {
    auto args = working_args(command, dir);
    args.insert(args.end(), {"--db", ""});
    const auto r = run_command(shell_line("MPISCOPE_DB=" + quote(db), args));
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(count_of(r.err, "error: "), 1) << command << ": " << r.err;
    EXPECT_EQ(count_of(r.err, "--db needs a file name, got ''"), 1) << command << ": " << r.err;
  }
  const auto listing = run_plain({"runs", "--db", db});
  EXPECT_EQ(count_of(listing.out, "osu"), 2) << listing.out;  // both runs, unlabelled
  EXPECT_EQ(listing.out.find(" x "), std::string::npos) << listing.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.html"));
}

// A folder given as the database: the same words from every command and from a suite.
TEST(Adversarial, ADirectoryAsTheDatabaseGivesOneMessageEverywhere) {
  const auto dir = temp_dir();
  const std::string message = "'" + dir + "' is a directory, not a results database file";
  for (const auto& command : kCommands) {
    auto args = working_args(command, dir);
    args.insert(args.end(), {"--db", dir});
    const auto r = run_plain(args);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(count_of(r.err, "error: "), 1) << command << ": " << r.err;
    EXPECT_EQ(count_of(r.err, message), 1) << command << ": " << r.err;
  }
  const auto suite = run_mpi(2, {"imb-mpi1", "PingPong", "--db", dir}, "", 60);
  EXPECT_EQ(suite.exit_code, 2) << suite.err;
  EXPECT_EQ(count_of(suite.err, message), 1) << suite.err;
}

// The destructive commands say which database they changed and where that choice came from.
TEST(Adversarial, DeleteAndLabelStateTheDatabaseTheyActOn) {
  const auto dir = temp_dir();
  const auto db = two_runs(dir);
  const auto label = run_command(shell_line("MPISCOPE_DB=" + quote(db), {"label", "1", "x"}));
  EXPECT_EQ(label.exit_code, 0) << label.err;
  EXPECT_EQ(count_of(label.out, db + " (from $MPISCOPE_DB): run 1 labelled 'x'"), 1) << label.out;
  const auto deleted = run_plain({"delete", "--db", db, "2"});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(count_of(deleted.out, db + " (from --db): deleted run 2"), 1) << deleted.out;
}

// A database this run created on a full disk is removed again, not left as an empty file that
// every later command calls "not an mpiscope results database".
TEST(Adversarial, ADatabaseThatCouldNotBeInitialisedIsRemoved) {
  SmallTmpfs fs("size=64k");
  if (!fs.mounted) GTEST_SKIP() << fs.error;
  {
    std::ofstream fill(fs.path + "/fill", std::ios::binary);
    const std::string block(4096, 'x');
    for (int i = 0; i < 64 && fill; ++i) fill << block << std::flush;
  }
  const auto db = fs.path + "/new.sqlite";
  const auto import = run_plain({"import", "--db", db, sample("osu_latency_a.txt")});
  EXPECT_NE(import.exit_code, 0) << import.out;
  EXPECT_EQ(count_of(import.err, "error: "), 1) << import.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "a database without tables was left behind";
  const auto suite = run_mpi(2, {"imb-mpi1", "PingPong", "-iter", "10", "--db", db}, "", 60);
  EXPECT_EQ(suite.exit_code, 2) << suite.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "a database without tables was left behind";
}

struct BadCommand {
  const char* label;
  std::vector<std::string> args;  // after the command's --db; "{dir}" is the test's folder
  const char* message;
};

std::ostream& operator<<(std::ostream& os, const BadCommand& b) {
  return os << b.label;
}

class RefusesBadCommand : public ::testing::TestWithParam<BadCommand> {};

// Issue 29's lows of the database commands: each one message and exit 2, nothing written.
TEST_P(RefusesBadCommand, OneMessageAndExitTwo) {
  const auto dir = temp_dir();
  const auto db = two_runs(dir);
  std::vector<std::string> args = {GetParam().args[0], "--db", db};
  for (std::size_t k = 1; k < GetParam().args.size(); ++k) {
    auto a = GetParam().args[k];
    if (auto p = a.find("{dir}"); p != std::string::npos) a.replace(p, 5, dir);
    args.push_back(a);
  }
  const auto r = run_plain(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_EQ(count_of(r.err, GetParam().message), 1) << r.err;
  EXPECT_EQ(r.out, "") << "nothing written when refused";
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

INSTANTIATE_TEST_SUITE_P(
    DatabaseCommands, RefusesBadCommand,
    ::testing::Values(
        BadCommand{"ExportToAnEmptyName", {"export", "-o", ""}, "-o needs a file name, got ''"},
        BadCommand{"ReportToAnEmptyName", {"report", "-o", ""}, "-o needs a file name, got ''"},
        BadCommand{
            "ExportARunTwice", {"export", "-o", "{dir}/out", "1", "1"}, "run 1 is given twice"},
        BadCommand{"ReportARunTwice",
                   {"report", "-o", "{dir}/out", "--runs", "1,last-1"},
                   "run 1 is given twice"},
        BadCommand{"CompareARunTwiceOnOneSide", {"compare", "1,1", "2"}, "run 1 is given twice"},
        BadCommand{"CompareARunOnBothSides",
                   {"compare", "1,2", "2"},
                   "run 2 is on both sides of the comparison"},
        BadCommand{"ReportCompareARunWithItself",
                   {"report", "-o", "{dir}/out", "--compare", "1:1"},
                   "run 1 is on both sides of the comparison"},
        BadCommand{"ReportRunsEndingInAComma",
                   {"report", "-o", "{dir}/out", "--runs", "1,"},
                   "--runs '1,': an empty run between commas"},
        BadCommand{"SinceADayThatDoesNotExist",
                   {"runs", "--since", "2024-02-30"},
                   "--since '2024-02-30': no such day"},
        BadCommand{"SinceEmpty", {"runs", "--since", ""}, "--since takes YYYY-MM-DD"},
        BadCommand{"AnUnknownSuite",
                   {"runs", "--suite", "nosuch"},
                   "--suite 'nosuch': no such suite (known: "},
        BadCommand{"AHundredThousandCharacterLabel",
                   {"label", "1", std::string(100000, 'x')},
                   "--label takes at most 256 bytes, got 100000"}),
    [](const auto& test) { return std::string(test.param.label); });

// The suites known are listed, so the typo can be corrected; a family name still filters.
TEST(Adversarial, RunsSuiteFilterListsTheKnownSuites) {
  const auto dir = temp_dir();
  const auto db = two_runs(dir);
  const auto typo = run_plain({"runs", "--db", db, "--suite", "osu_latency"});
  EXPECT_EQ(typo.exit_code, 2);
  for (const char* known : {"imb-mpi1", "osu", "skampi", "presta", "beffio"})
    EXPECT_NE(typo.err.find(known), std::string::npos) << known << ": " << typo.err;
  const auto osu = run_plain({"runs", "--db", db, "--suite", "osu"});
  EXPECT_EQ(osu.exit_code, 0) << osu.err;
  EXPECT_EQ(run_plain({"runs", "--db", db, "--suite", "presta-com"}).exit_code, 0);
  EXPECT_EQ(run_plain({"runs", "--db", db, "--since", "2024-02-29"}).exit_code, 0);
}

// Imports: a device, a pipe, a huge line or a binary file is refused at once, with the byte
// escaped, in bounded memory; nothing is stored.
TEST(Adversarial, ImportRefusesWhatIsNotATextFileAtOnce) {
  const auto dir = temp_dir();
  const auto db = dir + "/i.sqlite";
  const auto zero = run_plain({"import", "--db", db, "/dev/zero"});
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_EQ(count_of(zero.err,
                     "/dev/zero: is a character device, not an IMB, OSU or SKaMPI "
                     "output file (only a regular file is read)"),
            1)
      << zero.err;
  const auto fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto pipe = run_plain({"import", "--db", db, fifo});
  EXPECT_EQ(pipe.exit_code, 2) << pipe.err;
  EXPECT_EQ(count_of(pipe.err, fifo + ": is a pipe"), 1) << pipe.err;

  // 2 GB of NUL bytes (sparse), and 3 MiB on one line, under a 1 GiB address-space limit.
  const auto sparse = write_file(dir, "sparse", "");
  std::filesystem::resize_file(sparse, std::uintmax_t{2} << 30);
  const auto binary = run_plain({"import", "--db", db, sparse});
  EXPECT_EQ(binary.exit_code, 2) << binary.err;
  EXPECT_EQ(count_of(binary.err, "sparse:1: byte 0 is \\x00 (NUL), not text"), 1) << binary.err;
  EXPECT_LT(binary.seconds, 10);
  write_file(dir, "one-line", "# OSU MPI Latency Test v7.4 " + std::string(3 << 20, 'a'));
  const std::size_t limit_kib = std::size_t{1} << 20;
  if (!sanitized_executables()) {
    const auto line = run_plain_limited(limit_kib, {"import", "--db", db, dir + "/one-line"});
    EXPECT_EQ(line.exit_code, 2) << line.err;
    EXPECT_EQ(count_of(line.err, "one-line:1: a line longer than 1048576 bytes"), 1) << line.err;
  }
  // Random bytes with a C1 control (0x9B, CSI to some terminals): escaped, never echoed raw.
  write_file(dir, "random", "# OSU MPI Latency Test v7.4\n0  1.0\x9b[2J\n");
  const auto random = run_plain({"import", "--db", db, dir + "/random"});
  EXPECT_EQ(random.exit_code, 2) << random.err;
  EXPECT_EQ(count_of(random.err, "random:2: byte 34 is \\x9B, not text"), 1) << random.err;
  EXPECT_EQ(random.err.find('\x9b'), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(db));
}

// Issue 36: an imported capture of OSU 7.4 with its "# HOST/POSIX_MEMALIGN: … at 0x…" lines (the
// format of OSU 7.4's omb_host_alloc, crafted: tests/data/import/osu_latency_7.4_memalign.txt)
// lands in the same table as mpiscope's own run of osu_latency, so compare matches its rows and no
// card is titled with a memory address.
TEST(Adversarial, ImportedOsuOutputComparesWithALiveRun) {
  const auto dir = temp_dir();
  const auto db = dir + "/osu.sqlite";
  const auto live =
      run_mpi(2, {"osu", "osu_latency", "-m", "8", "-i", "10", "-x", "1", "--db", db}, "", 60);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  const auto imported = run_plain({"import", "--db", db, sample("osu_latency_7.4_memalign.txt")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  EXPECT_EQ(c.err.find("in common"), std::string::npos) << c.err;
  EXPECT_NE(c.out.find("# osu_latency, 2 processes, datatype=MPI_CHAR"), std::string::npos)
      << c.out;
  EXPECT_EQ(c.out.find("POSIX_MEMALIGN"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("0x55d0"), std::string::npos) << c.out;
  int rows = 0;
  for (const auto& line : lines_of(c.out)) {
    std::istringstream in(line);
    std::string bytes, a, b;
    if (in >> bytes >> a >> b && (bytes == "1" || bytes == "2" || bytes == "4" || bytes == "8"))
      ++rows;
  }
  EXPECT_EQ(rows, 4) << c.out;  // OSU 7.4's osu_latency starts at 1 byte, and so does mpiscope's
  const auto report = run_plain({"report", "--db", db, "-o", dir + "/r.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(read_file(dir + "/r.html").find("POSIX_MEMALIGN"), std::string::npos);
}

}  // namespace
