// `mpiscope tune-check`: whether a tuning helps across launches (issue 37, item 3). It starts no
// MPI itself: it launches IMB-MPI1's collectives with the accurate meter, alternately without and
// with the tuning (the library's tuning file, or environment variables such as MPICH's
// MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM), records every launch in the results database, and rules
// with compare's gate: a row slower with the tuning beyond the noise fails it (exit 3), rows that
// cannot tell are said (exit 6), rows faster beyond the noise are the tuning's proof.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/provenance.hpp"
#include "core/text.hpp"
#include "db/results_db.hpp"
#include "report/compare.hpp"

namespace mpiscope::tune {
namespace {

constexpr const char* kLibraryLabel = "tune-check: library's own";
constexpr const char* kTunedLabel = "tune-check: tuned";

class CheckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string this_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw CheckError("cannot find this executable (/proc/self/exe)");
  return path.string();
}

// Runs argv with `overrides` in its environment, its standard output discarded; the exit code.
int launch(const std::vector<std::string>& argv,
           const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> environment = core::environment_with(overrides);
  std::vector<std::string> owned_argv = argv;
  std::vector<char*> args, envp;
  for (auto& a : owned_argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw CheckError("cannot start '" + argv[0] + "': " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw CheckError("lost the launch of '" + argv[0] + "'");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The newest run of the database, which must carry `label` (the launch just recorded it).
std::int64_t newest_run(const std::string& db_path, const std::string& label) {
  db::ResultsDb database(db_path, db::ResultsDb::Open::kRead);
  const auto runs = database.list_runs();
  if (runs.empty() || runs.back().label != label)
    throw CheckError("the launch recorded no run labelled '" + label + "' in " + db_path);
  return runs.back().id;
}

int check_main(int argc, char** argv, const std::string& program, const std::vector<std::string>&) {
  CLI::App app(
      "Checks a tuning across launches: IMB-MPI1's collectives with the accurate meter, launched "
      "alternately without and with the tuning (--rules: the library's tuning file, as mpiscope "
      "tune --rules writes it; --env NAME=VALUE: any environment, e.g. MPICH's "
      "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling), every launch recorded in the "
      "results database, then compare's verdict per row: a row slower with the tuning by more "
      "than --fail-above beyond the run-to-run noise fails the check.",
      program);
  std::string launcher, rules,
      collectives = "Allreduce,Bcast,Reduce,Allgather,Alltoall,Gather,Scatter";
  std::string msglog = "2:20", db_path;
  std::vector<std::string> env;
  int launches = 0;     // 0: as many as compare's gate needs for the rows
  double budget = 1.0;  // the accurate meter's default: 0.2 s left 1 MiB rows unconverged here
  report::CompareSettings settings;
  settings.fail_above_percent = 0;
  app.add_option("--launcher", launcher,
                 "How to launch the ranks, as one string: 'mpirun -np 4', 'srun -n 64'")
      ->required();
  app.add_option("--rules", rules,
                 "The tuning file: Open MPI's dynamic rules, or MPICH's JSON selection file (a "
                 "file that starts with '{')")
      ->type_name("FILE");
  app.add_option("--env", env, "An environment variable of the tuning (repeatable)")
      ->type_name("NAME=VALUE");
  app.add_option("--collectives", collectives, "IMB-MPI1's collectives to time, comma-separated")
      ->capture_default_str();
  app.add_option("--msglog", msglog, "IMB-MPI1's -msglog: lengths 2^MIN to 2^MAX bytes")
      ->capture_default_str();
  app.add_option("--launches", launches,
                 "Launches per side (default: as many as the gate needs to be able to fail a "
                 "row among all the rows, at least 4)")
      ->check(CLI::Range(1, 100));
  app.add_option("--budget", budget, "The accurate meter's seconds per point")
      ->capture_default_str()
      ->check(cli::number_in({0.001, 60}));
  app.add_option("--fail-above", settings.fail_above_percent,
                 "Fail (exit 3) when a row is slower with the tuning by more than PERCENT "
                 "beyond the noise")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(cli::number_in({0, 1e6}));
  app.add_option("--db", db_path,
                 "Results database the launches are recorded in (default: $MPISCOPE_DB, else "
                 "$XDG_DATA_HOME/mpiscope/results.sqlite, else "
                 "~/.local/share/mpiscope/results.sqlite)")
      ->type_name("FILE");
  app.footer(
      "Exit status: 0 no row slower beyond the noise, 2 bad command line, 1 a launch failed, 3 "
      "a row slower beyond the noise, 6 none found slower but some row could not have shown "
      "it. docs/tune.md.");
  if (int rc = cli::parse_direct_command(app, program, argc, argv); rc >= 0) return rc;
  try {
    std::map<std::string, std::string> tuning;
    if (!rules.empty()) {
      std::error_code error;
      if (!std::filesystem::is_regular_file(rules, error))
        throw cli::UsageError("--rules: no file '" + rules + "'");
      const auto path = std::filesystem::absolute(rules).string();
      // MPICH's selection file is a JSON object; Open MPI's rules begin with a number.
      std::ifstream in(path);
      char first = '\0';
      in >> first;
      if (first == '{') {
        tuning["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"] = path;
      } else {
        tuning["OMPI_MCA_coll_tuned_use_dynamic_rules"] = "1";
        tuning["OMPI_MCA_coll_tuned_dynamic_rules_filename"] = path;
      }
    }
    for (const auto& e : env) {
      const auto eq = e.find('=');
      if (eq == 0 || eq == std::string::npos)
        throw cli::UsageError("--env: '" + e + "' is not NAME=VALUE");
      tuning[e.substr(0, eq)] = e.substr(eq + 1);
    }
    if (tuning.empty()) throw cli::UsageError("no tuning to check: give --rules FILE or --env");
    std::vector<std::string> base;
    std::istringstream words(launcher);
    for (std::string w; words >> w;) base.push_back(w);
    if (base.empty()) throw cli::UsageError("--launcher is empty");
    if (db_path.empty()) {
      db_path = db::default_db_path();
      db::prepare_default_location(db_path);
    }
    { db::ResultsDb create(db_path); }  // the file and schema, before any launch writes it
    base.push_back(this_executable());
    base.push_back("imb-mpi1");
    std::size_t tables = 0;
    for (const auto& c : core::split(collectives, ','))
      if (!core::trim(c).empty()) {
        base.push_back(core::trim(c));
        ++tables;
      }
    const auto colon = msglog.find(':');
    const long low = std::strtol(msglog.c_str(), nullptr, 10);
    const long high =
        colon == std::string::npos ? low : std::strtol(msglog.c_str() + colon + 1, nullptr, 10);
    if (launches == 0) {
      // Rows: each collective at 0 bytes and 2^low .. 2^high (IMB's -msglog).
      const auto rows = tables * static_cast<std::size_t>(std::max(1L, high - low + 2));
      launches = static_cast<int>(
          std::max<std::size_t>(4, report::runs_for_gate(rows, settings.gate_level)));
      std::printf("# %s: %d launches per side, so that compare's gate can fail one of %zu rows\n",
                  program.c_str(), launches, rows);
    }
    for (const std::string a : {"-msglog", msglog.c_str(), "--method", "accurate", "--budget"})
      base.push_back(a);
    base.push_back(cli::number_text(budget));
    for (const std::string a : {"--db", db_path.c_str(), "--label"}) base.push_back(a);

    std::vector<db::StoredRun> library, tuned;
    std::vector<std::int64_t> library_ids, tuned_ids;
    for (int i = 0; i < 2 * launches; ++i) {
      const bool with = i % 2 == 1;  // alternately, the library's own choices first
      auto argv_of = base;
      argv_of.push_back(with ? kTunedLabel : kLibraryLabel);
      const int rc = launch(argv_of, with ? tuning : std::map<std::string, std::string>{});
      if (rc != 0)
        throw CheckError("launch " + std::to_string(i + 1) + " (" +
                         (with ? "with the tuning" : "without") + ") failed with exit code " +
                         std::to_string(rc));
      const auto id = newest_run(db_path, with ? kTunedLabel : kLibraryLabel);
      (with ? tuned_ids : library_ids).push_back(id);
      std::printf("# %s: launch %d of %d, %s: run %lld\n", program.c_str(), i + 1, 2 * launches,
                  with ? "with the tuning" : "the library's own choices",
                  static_cast<long long>(id));
      std::fflush(stdout);
    }
    db::ResultsDb database(db_path, db::ResultsDb::Open::kRead);
    for (auto id : library_ids) library.push_back(database.load_run(id));
    for (auto id : tuned_ids) tuned.push_back(database.load_run(id));
    const auto c = report::compare_runs(library, tuned, settings);
    std::fputs(core::printable(report::render_comparison(library, tuned, c, settings)).c_str(),
               stdout);
    std::size_t faster = 0, slower = 0;
    for (const auto& r : c.rows) {
      faster += r.beyond && r.ratio < 1;
      slower += r.slowdown_over_limit;
    }
    std::printf(
        "# %s: with the tuning, %zu rows faster beyond the noise, %zu slower; %zu of %zu "
        "cannot tell\n",
        program.c_str(), faster, slower, c.inconclusive, c.rows.size());
    if (slower > 0) return static_cast<int>(cli::kCheckFailed);
    return c.inconclusive > 0 ? static_cast<int>(cli::kCannotTell) : static_cast<int>(cli::kOk);
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), core::printable(e.what()).c_str());
    return cli::kUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), core::printable(e.what()).c_str());
    return cli::kRunFailed;
  }
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "tune-check",
    "Check a tuning across launches: IMB-MPI1's collectives without and with it, compare's verdict",
    {},
    59,
    check_main});

}  // namespace mpiscope::tune
