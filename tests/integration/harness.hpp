// Starts the real launcher on the real executable and reads what it printed.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace harness {

struct Result {
  int exit_code = -1;  // 124: killed by the harness's own time limit
  std::string out, err;
  double seconds = 0;
};

// mpirun -np N <bin/program> args…, with extra environment assignments ("A=1 B=2"). An absolute
// program path (a wrapper script) is used as it is.
Result run_mpi(int np, const std::vector<std::string>& args, const std::string& env = "",
               int time_limit_s = 120, const std::string& program = "mpiscope");
// The same with the launcher's stdout and stderr in one file, as `2>&1` and Slurm do: Result::out
// holds both, Result::err is empty.
Result run_mpi_merged(int np, const std::vector<std::string>& args, const std::string& env = "",
                      int time_limit_s = 120, const std::string& program = "mpiscope");
// A shell command (sh -c), run in a fresh temporary folder; `merged`: stderr into Result::out.
Result run_command(const std::string& command, bool merged = false);
// `s` in single quotes for sh.
std::string quote(const std::string& s);
// The program alone, without a launcher.
Result run_plain(const std::vector<std::string>& args, const std::string& program = "mpiscope");
// mpiscope started without a launcher, as an MPI singleton (a usage error there costs no
// launcher's 1 to 2 s); as under run_mpi, the MPI library's own leaks are not reported.
Result run_singleton(const std::vector<std::string>& args);
// `head` followed by each of `tails`, run as a singleton: each a usage error (exit 2) with exactly
// one "error" line that names one of the tail's options (the singleton's own process count is
// not the reason); a failure names the arguments.
void expect_usage_errors(const std::vector<std::string>& head,
                         const std::vector<std::vector<std::string>>& tails);
// The same with its address space limited to `kib` KiB (`ulimit -v`), as a batch system's
// memory limit would.
Result run_plain_limited(std::size_t kib, const std::vector<std::string>& args);
// True when the executables under test carry AddressSanitizer, which reserves terabytes of
// address space and so cannot run under `ulimit -v`.
bool sanitized_executables();

struct Table {
  std::string name;                 // after "# Benchmarking "
  std::vector<std::string> header;  // lines between the dash lines
  int nprocs = 0;                   // active processes (per group)
  int groups = 1;
  std::string mode;                             // "AGGREGATE", "NON-AGGREGATE" or empty
  std::vector<std::string> columns;             // column headings
  std::string column_line;                      // as printed
  std::vector<std::string> rows;                // printed rows, blank lines dropped
  std::vector<std::vector<std::string>> cells;  // rows split on blanks
  double megabyte = 1048576;  // bytes in its Mbytes/sec (the output's "# Units:" line)
};
std::vector<Table> parse_imb(const std::string& out);
std::vector<const Table*> tables_named(const std::vector<Table>& t, const std::string& name);

// The folder of the executables under test: this build's own, or $MPISCOPE_TEST_BIN_DIR when set
// (scripts/test-all runs these tests against the sanitizer and MPICH builds' executables that
// way, so that the tests are compiled once).
std::string bin_dir();
// "<launcher> [--oversubscribe] -np N <bin>/mpiscope", for tests that write their own shell line.
std::string mpiscope_launch(int np);
// "<launcher> [--oversubscribe]": the MPI library's launcher as the tests start it.
std::string mpiexec_command();

// A fresh folder under `parent`, removed when the test program ends.
std::string temp_dir(const std::string& parent = "/tmp");
// A small tmpfs mounted in a fresh folder (we run as root in CI); `error` says why it is not.
struct SmallTmpfs {
  explicit SmallTmpfs(const std::string& options);
  ~SmallTmpfs();
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  // Makes it read-only (for root too, which permission bits do not stop); false on failure.
  bool remount_read_only();
  std::string path, options, error;
  bool mounted = false;
};
// The names in a folder (without . and ..); empty if it cannot be read.
std::vector<std::string> files_in(const std::string& dir);
// Polls `done` every 100 ms for at most `seconds`; says whether it came true.
bool wait_until(const std::function<bool()>& done, double seconds);

// A shell command (sh -c) started in the background, for tests that signal a running job.
class BackgroundCommand {
 public:
  explicit BackgroundCommand(const std::string& command);
  ~BackgroundCommand();  // a command still running is killed (SIGKILL)
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;
  int pid() const { return pid_; }
  // Waits up to `seconds` for the command to end; if it does not, kills it and returns false.
  bool ends_within(double seconds);
  // Whether the command has ended, without waiting.
  bool has_ended();

 private:
  int pid_ = -1;
  bool ended_ = false;
};
// A script in dir that runs mpiscope with the project's PMPI library (tests/pmpi) preloaded; pass
// it as run_mpi's program, and MPISCOPE_DELAY / MPISCOPE_TRACE in its env.
std::string with_pmpi_library(const std::string& dir);
// A file of tests/data/import/: real output of Intel's IMB, OSU and SKaMPI to import.
std::string sample(const std::string& name);
// IMB 3.2.4's PingPong output for one night of March 2026 (night 1 = the 1st), the three lengths'
// times (0, 16, 32 bytes) multiplied by `factor` and a small deterministic spread, on kernel
// `release`: nightly files to import with a known shift.
std::string imb_pingpong_night(int night, double factor, const std::string& release);
// Imports `capture` (a path, see sample()) into the database `db`: exit 0 and `summary`
// ("N tables, M rows") in what it prints; returns the database exported as tidy CSV.
std::string import_then_export(const std::string& db, const std::string& capture,
                               const std::string& summary);
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);
std::string read_file(const std::string& path);
// Rows of a read-only SQLite query (SQLite's C API, independent of mpiscope's reader); a test
// failure when the file cannot be opened or the query is bad.
std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql);
int count_of(const std::string& haystack, const std::string& needle);
std::vector<std::string> lines_of(const std::string& text);
// The words of a line, split on blanks.
std::vector<std::string> words_of(const std::string& line);
// OSU's lines of an `mpiscope osu` output: from the first "# OSU " title up to mpiscope's closing
// "# mpiscope: …" line.
std::vector<std::string> osu_lines(const std::string& out);
// The shape of OSU-style text, what must match a capture of OSU's own binary whatever the figures:
// every comment line whole, every row by its first column (the size), blank lines left out.
std::vector<std::string> osu_shape(const std::string& text);
// `mpiscope osu PROGRAM` with -c on every -T type, sizes 1 to 64 bytes, on `processes` ranks: every
// row passes (7 of MPI_CHAR, 5 each of MPI_INT and MPI_FLOAT), and a planted corrupt byte
// (MPISCOPE_FAULT=corrupt:0) fails the run with exit 3. `options` are added to the command line.
void expect_osu_validation_on_every_type(const std::string& program, int processes,
                                         const std::vector<std::string>& options = {});
// The one place that names the MPI library under test: the file the build writes beside its
// executables (CMakeLists.txt), read from bin_dir(), so that one test program runs against any
// build. A third library needs no change here.
inline constexpr const char* kMpiUnderTestFile = "mpi-under-test.json";
struct MpiUnderTest {
  std::string launcher;            // e.g. /usr/bin/mpirun.openmpi
  std::string oversubscribe_flag;  // how it is told that ranks may outnumber cores, or empty
  std::string flavour;             // "openmpi" (Open MPI's mpirun options) or "mpich" (Hydra's)
  std::string library_name;        // what MPI_Get_library_version calls it: "Open MPI", "MPICH"
};
const MpiUnderTest& mpi_under_test();
bool is_openmpi();
std::string mpi_library_name();

}  // namespace harness
