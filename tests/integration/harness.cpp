#include "harness.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace harness {

namespace {
Result run_shell(const std::string& command, const std::string& redirect) {
  const std::string dir = temp_dir();
  const std::string full = "cd " + quote(dir) + " && " + command + " " + redirect + " </dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(full.c_str());
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(dir + "/out.txt");
  r.err = read_file(dir + "/err.txt");
  return r;
}
}  // namespace

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Result run_command(const std::string& command, bool merged) {
  return run_shell(command, merged ? ">out.txt 2>&1" : ">out.txt 2>err.txt");
}

std::string bin_dir() {
  const char* override_dir = std::getenv("MPISCOPE_TEST_BIN_DIR");
  return override_dir != nullptr && *override_dir != 0 ? override_dir : MPISCOPE_BIN_DIR;
}

const MpiUnderTest& mpi_under_test() {
  static const MpiUnderTest mpi = [] {
    const std::string path = bin_dir() + "/" + kMpiUnderTestFile;
    const std::string text = read_file(path);
    if (text.empty()) {
      std::fprintf(stderr, "harness: %s is missing or empty: the build writes it (CMake)\n",
                   path.c_str());
      std::exit(2);
    }
    const auto j = nlohmann::json::parse(text);
    return MpiUnderTest{.launcher = j.at("launcher").get<std::string>(),
                        .oversubscribe_flag = j.at("oversubscribe_flag").get<std::string>(),
                        .flavour = j.at("flavour").get<std::string>(),
                        .library_name = j.at("library_name").get<std::string>()};
  }();
  return mpi;
}

bool is_openmpi() {
  return mpi_under_test().flavour == "openmpi";
}

std::string mpi_library_name() {
  return mpi_under_test().library_name;
}

std::string mpiexec_command() {
  const auto& mpi = mpi_under_test();
  return mpi.launcher + (mpi.oversubscribe_flag.empty() ? "" : " " + mpi.oversubscribe_flag);
}

std::string mpiscope_launch(int np) {
  return mpiexec_command() + " -np " + std::to_string(np) + " " + bin_dir() +
         "/mpiscope";  // unquoted: it may go inside '…'
}

static std::string launch_command(int np, const std::vector<std::string>& args,
                                  const std::string& env, int time_limit_s,
                                  const std::string& program) {
  // Tests run as root on CI machines; Open MPI refuses that unless told. LeakSanitizer reports
  // the MPI libraries' own allocations at exit, which are not ours to fix.
  std::string cmd =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 " +
      env + " timeout -k 5 " + std::to_string(time_limit_s) + " " + mpiexec_command() + " -np " +
      std::to_string(np) + " " + quote(program[0] == '/' ? program : bin_dir() + "/" + program);
  for (const auto& a : args) cmd += " " + quote(a);
  return cmd;
}

namespace {
// MPICH's ranks poll without yielding the CPU: two launches at once on CI's 2 cores (ctest -j 2)
// make every message of both wait for a time slice (ImbRules' IMB-MPI1 -iter_policy captures at 2
// ranks: 0.4 s alone, 124 s each beside the other, stop 51). Its launches therefore take turns
// across the test processes, through an exclusive lock on one file; Open MPI's ranks yield when
// they oversubscribe the cores and run side by side.
class LaunchTurn {
 public:
  LaunchTurn() {
    if (is_openmpi()) return;
    fd_ = ::open("/tmp/mpiscope-tests-mpich-launch.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~LaunchTurn() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  LaunchTurn(const LaunchTurn&) = delete;
  LaunchTurn& operator=(const LaunchTurn&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

Result run_mpi(int np, const std::vector<std::string>& args, const std::string& env,
               int time_limit_s, const std::string& program) {
  const LaunchTurn turn;
  return run_command(launch_command(np, args, env, time_limit_s, program));
}

Result run_mpi_merged(int np, const std::vector<std::string>& args, const std::string& env,
                      int time_limit_s, const std::string& program) {
  const LaunchTurn turn;
  return run_command(launch_command(np, args, env, time_limit_s, program), true);
}

Result run_plain(const std::vector<std::string>& args, const std::string& program) {
  std::string cmd = "timeout -k 5 60 " + quote(bin_dir() + "/" + program);
  for (const auto& a : args) cmd += " " + quote(a);
  return run_command(cmd);
}

Result run_singleton(const std::vector<std::string>& args) {
  std::string cmd = "ASAN_OPTIONS=detect_leaks=0 timeout -k 5 60 " + quote(bin_dir() + "/mpiscope");
  for (const auto& a : args) cmd += " " + quote(a);
  return run_command(cmd);
}

void expect_usage_errors(const std::vector<std::string>& head,
                         const std::vector<std::vector<std::string>>& tails) {
  for (const auto& tail : tails) {
    auto args = head;
    args.insert(args.end(), tail.begin(), tail.end());
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    const auto r = run_singleton(args);
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err;
    EXPECT_EQ(count_of(r.err, "error"), 1) << shown << "\n" << r.err;
    // Refused for an option it names, not for a singleton's one process (which the two-rank
    // programs refuse whatever their options are).
    const bool names_an_option = std::any_of(tail.begin(), tail.end(), [&](const std::string& a) {
      return a.size() > 1 && a[0] == '-' && r.err.find(a) != std::string::npos;
    });
    EXPECT_TRUE(names_an_option) << shown << "\n" << r.err;
  }
}

Result run_plain_limited(std::size_t kib, const std::vector<std::string>& args) {
  std::string cmd = "ulimit -v " + std::to_string(kib) + " && exec timeout -k 5 120 " +
                    quote(bin_dir() + "/mpiscope");
  for (const auto& a : args) cmd += " " + quote(a);
  return run_command("sh -c " + quote(cmd));
}

bool sanitized_executables() {
  std::ifstream in(bin_dir() + "/mpiscope", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes.find("__asan_init") != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::vector<std::string> osu_lines(const std::string& out) {
  std::vector<std::string> osu;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("# mpiscope", 0) == 0) break;
    if (!osu.empty() || line.rfind("# OSU ", 0) == 0) osu.push_back(line);
  }
  return osu;
}

std::vector<std::string> osu_shape(const std::string& text) {
  std::vector<std::string> shape;
  for (const auto& line : lines_of(text))
    if (!line.empty()) shape.push_back(line[0] == '#' ? line : line.substr(0, line.find(' ')));
  return shape;
}

void expect_osu_validation_on_every_type(const std::string& program, int processes,
                                         const std::vector<std::string>& options) {
  SCOPED_TRACE(program);
  std::vector<std::string> args = {"osu", program, "-m", "1:64", "-i",  "2",
                                   "-x",  "1",     "-c", "-T",   "all", "--no-db"};
  args.insert(args.end(), options.begin(), options.end());
  const auto clean = run_mpi(processes, args, "", 60);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(count_of(clean.out, "Pass"), 7 + 5 + 5) << clean.out;
  const auto bad = run_mpi(processes, args, "MPISCOPE_FAULT=corrupt:0", 60);
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_GE(count_of(bad.out, "Fail"), 3) << bad.out;
}

std::vector<Table> parse_imb(const std::string& out) {
  std::vector<Table> tables;
  const auto lines = lines_of(out);
  double megabyte = 1048576;  // IMB 3.1's, unless the header says current IMB's
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("# Units:", 0) == 0 &&
        lines[i].find("Mbytes/sec = 10^6") != std::string::npos)
      megabyte = 1e6;
    if (lines[i].rfind("# Benchmarking ", 0) != 0) continue;
    Table t;
    t.megabyte = megabyte;
    t.name = lines[i].substr(15);
    while (!t.name.empty() && t.name.back() == ' ') t.name.pop_back();
    std::size_t j = i + 1;
    for (; j < lines.size() && lines[j].rfind("#---", 0) != 0; ++j) {
      t.header.push_back(lines[j]);
      int n = 0, g = 0;
      if (std::sscanf(lines[j].c_str(), "# #processes = %d", &n) == 1) t.nprocs = n;
      if (std::sscanf(lines[j].c_str(), "# ( %d groups of %d processes", &g, &n) == 2)
        t.nprocs = n, t.groups = g;
    }
    // IMB-EXT/IO: "#", "#    MODE: AGGREGATE ", "#" between the dash line and the headings.
    for (++j; j < lines.size() && lines[j].rfind("#", 0) == 0 && lines[j].rfind("       ", 0) != 0;
         ++j) {
      const auto at = lines[j].find("MODE: ");
      if (at != std::string::npos) {
        t.mode = lines[j].substr(at + 6);
        while (!t.mode.empty() && t.mode.back() == ' ') t.mode.pop_back();
      }
    }
    if (j >= lines.size()) break;
    t.column_line = lines[j];
    std::istringstream cols(lines[j]);
    for (std::string c; cols >> c;) t.columns.push_back(c);
    for (++j; j < lines.size(); ++j) {
      const std::string& l = lines[j];
      if (l.empty()) continue;
      if (l.rfind("#-", 0) == 0 || l[0] == '!') break;  // the next table, or a check verdict
      if (l[0] == '#') continue;                        // a note under a row
      t.rows.push_back(l);
      std::istringstream cells(l);
      std::vector<std::string> row;
      for (std::string c; cells >> c;) row.push_back(c);
      t.cells.push_back(row);
    }
    tables.push_back(t);
    i = j - 1;
  }
  return tables;
}

std::vector<const Table*> tables_named(const std::vector<Table>& t, const std::string& name) {
  std::vector<const Table*> out;
  for (const auto& x : t)
    if (x.name == name) out.push_back(&x);
  return out;
}

// Every folder a test makes is removed when the test program ends. The last launch's Open MPI
// daemon may still be removing its session files in TMPDIR (one of these folders): a file gone
// between listing and removal is tried again, never thrown from here (CI: "filesystem error:
// cannot remove all" aborted a test that had passed).
struct TempDirs {
  std::vector<std::string> made;
  ~TempDirs() {
    for (const auto& d : made) {
      std::error_code error;
      for (int attempt = 0; attempt < 5; ++attempt) {
        std::filesystem::remove_all(d, error);
        if (!error) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }
};
TempDirs temp_dirs;

std::string temp_dir(const std::string& parent) {
  std::string tmpl = parent + "/mpiscope_test_XXXXXX";
  const char* d = mkdtemp(tmpl.data());
  if (!d) throw std::runtime_error("mkdtemp failed");
  temp_dirs.made.push_back(d);
  return d;
}

// ctest gives every test MPISCOPE_DB in the build tree; run directly, the test program would
// otherwise record into the user's own results database. A test that wants another location
// passes MPISCOPE_DB in its env.
[[maybe_unused]] const bool test_database_chosen = [] {
  if (std::getenv("MPISCOPE_DB") == nullptr)
    setenv("MPISCOPE_DB", (temp_dir() + "/test-results.sqlite").c_str(), 0);
  return true;
}();

// Open MPI's launchers share one session folder per host and user under $TMPDIR
// (/tmp/ompi.<host>.<uid>); one mpirun removing it as it ends while another, from a test running
// beside it, is creating it fails the second one's start ("mkdir … File exists"). Each test
// program's launchers get a folder of their own (short, as it holds Unix sockets).
[[maybe_unused]] const bool launcher_tmpdir_chosen = [] {
  setenv("TMPDIR", temp_dir().c_str(), 1);
  return true;
}();

SmallTmpfs::SmallTmpfs(const std::string& mount_options)
    : path(temp_dir() + "/fs"), options(mount_options) {
  mkdir(path.c_str(), 0755);
  mounted = mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
  if (!mounted) error = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
}

SmallTmpfs::~SmallTmpfs() {
  if (mounted) umount2(path.c_str(), MNT_DETACH);
}

bool SmallTmpfs::remount_read_only() {
  if (mount("tmpfs", path.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, options.c_str()) == 0)
    return true;
  error = std::string("cannot remount the tmpfs read-only: ") + std::strerror(errno);
  return false;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    names.push_back(entry.path().filename().string());
  return names;
}

bool wait_until(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

BackgroundCommand::BackgroundCommand(const std::string& command) : pid_(fork()) {
  if (pid_ == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid_ < 0) throw std::runtime_error("fork failed");
}

BackgroundCommand::~BackgroundCommand() {
  if (!ended_) ends_within(0);
}

bool BackgroundCommand::has_ended() {
  int status = 0;
  if (!ended_ && waitpid(pid_, &status, WNOHANG) != 0) ended_ = true;
  return ended_;
}

bool BackgroundCommand::ends_within(double seconds) {
  if (!wait_until([&] { return has_ended(); }, seconds)) {
    int status = 0;
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  const bool on_time = ended_;
  ended_ = true;
  return on_time;
}

std::string with_pmpi_library(const std::string& dir) {
  const std::string path = write_file(
      dir, "with_pmpi.sh",
      std::string("#!/bin/sh\nASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 LD_PRELOAD=") +
          bin_dir() + "/libmpiscope_delay.so exec " + bin_dir() + "/mpiscope \"$@\"\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add);
  return path;
}

std::string sample(const std::string& name) {
  return std::string(MPISCOPE_TEST_DATA) + "/import/" + name;
}

std::string import_then_export(const std::string& db, const std::string& capture,
                               const std::string& summary) {
  const auto imported = run_plain({"import", "--db", db, capture});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find(summary), std::string::npos) << imported.out;
  const auto tidy = run_plain({"export", "--db", db});
  EXPECT_EQ(tidy.exit_code, 0) << tidy.err;
  return tidy.out;
}

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count_of(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + 1))
    ++n;
  return n;
}

// Rows of a read-only SQLite query (SQLite's C API, independent of mpiscope's reader).
std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::vector<std::string>> rows;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    ADD_FAILURE() << "cannot open " << db_path;
    return rows;
  }
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const auto* t = sqlite3_column_text(s, c);
        row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      rows.push_back(row);
    }
  } else {
    ADD_FAILURE() << "bad query: " << sqlite3_errmsg(db);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

std::string imb_pingpong_night(int night, double factor, const std::string& release) {
  const double spread = 1 + 0.01 * ((night * 7) % 5 - 2);  // -2 % to +2 %
  static const char* const weekdays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  char date[64];  // 1 March 2026 is a Sunday
  std::snprintf(date, sizeof date, "%s Mar %2d 02:00:00 2026", weekdays[(night - 1) % 7], night);
  std::string rows;
  for (const auto& [bytes, us] :
       std::vector<std::pair<int, double>>{{0, 0.5}, {16, 0.64}, {32, 0.8}}) {
    const double t = us * factor * spread;
    char line[128];
    std::snprintf(line, sizeof line, "%13d %12d %12.2f %12.2f\n", bytes, 1000, t,
                  bytes / t / 1.048576);
    rows += line;
  }
  return "#---------------------------------------------------\n"
         "#    Intel (R) MPI Benchmark Suite V3.2.4, MPI-1 part\n"
         "#---------------------------------------------------\n"
         "# Date                  : " +
         std::string(date) +
         "\n"
         "# Machine               : x86_64\n"
         "# System                : Linux\n"
         "# Release               : " +
         release +
         "\n"
         "# Version               : #1 SMP\n"
         "# MPI Version           : 3.1\n"
         "# MPI Thread Environment: MPI_THREAD_SINGLE\n\n"
         "# Calling sequence was: \n\n# ./IMB-MPI1 PingPong -msglog 4:5\n\n"
         "# List of Benchmarks to run:\n\n# PingPong\n\n"
         "#---------------------------------------------------\n"
         "# Benchmarking PingPong \n"
         "# #processes = 2 \n"
         "#---------------------------------------------------\n"
         "       #bytes #repetitions      t[usec]   Mbytes/sec\n" +
         rows + "\n\n# All processes entering MPI_Finalize\n";
}

}  // namespace harness
