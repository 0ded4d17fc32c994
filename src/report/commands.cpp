// The subcommands that work on the results database: import, runs, export, label, delete,
// report, summary, compare. None of them measures anything, so none starts MPI: they run directly,
// without a launcher.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/text.hpp"
#include "db/import.hpp"
#include "db/results_db.hpp"
#include "output/files.hpp"
#include "output/text_table.hpp"
#include "output/tidy.hpp"
#include "report/compare.hpp"
#include "report/history.hpp"
#include "report/html_report.hpp"
#include "report/run_sets.hpp"
#include "report/summary.hpp"

namespace mpiscope::report {

namespace {

constexpr const char* kDbHelp =
    "Results database (default: $MPISCOPE_DB, else $XDG_DATA_HOME/mpiscope/results.sqlite, else "
    "~/.local/share/mpiscope/results.sqlite)";

constexpr const char* kRunSetHelp =
    "Runs: ids ('mpiscope runs' lists them), last or last-N, or chosen by what they are: a label, "
    "or label=TEXT, suite=SUITE, benchmark=NAME, mpi=TEXT, since=DAY, until=DAY (a run must match "
    "each; a key twice: either value); several separated by commas";

class CommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int parse(CLI::App& app, const std::string& program, int argc, char** argv) {
  return cli::parse_direct_command(app, program, argc, argv);
}

// The database a command works on and where that choice came from, said by the destructive
// commands: --db FILE, else $MPISCOPE_DB, else the default location.
struct DbChoice {
  std::string path;
  std::string from;  // "--db", "$MPISCOPE_DB" or "the default location"
};

// An empty --db (a script's unset variable) is refused rather than taken as the default: a
// delete must never land in another database than the one named.
DbChoice chosen_db(const CLI::App& app, const std::string& db_path) {
  if (app.count("--db") > 0) {
    if (db_path.empty()) throw CommandError("--db needs a file name, got ''");
    return {db_path, "--db"};
  }
  const char* env = std::getenv("MPISCOPE_DB");
  return {db::default_db_path(), env && *env ? "$MPISCOPE_DB" : "the default location"};
}

// An existing database to read; a missing file is a clear error rather than an empty result.
db::ResultsDb open_for_reading(const DbChoice& db) {
  if (!std::filesystem::exists(db.path))
    throw CommandError("no results database at '" + db.path +
                       "' (runs are recorded there by default; --db FILE chooses another)");
  return db::ResultsDb(db.path, db::ResultsDb::Open::kRead);
}

// Every value of an output option names a file: -o '' is refused, never taken as stdout.
void check_output_name(const CLI::App& app, const std::string& option, const std::string& value) {
  if (app.count(option) > 0 && value.empty())
    throw CommandError(option + " needs a file name, got ''");
}

void print_error(const std::string& program, const char* message) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), core::printable(message).c_str());
}

template <class F>
int guarded(const std::string& program, F&& f) {
  try {
    return f();
  } catch (const CommandError& e) {
    print_error(program, e.what());
  } catch (const RunSetError& e) {
    print_error(program, e.what());
  } catch (const db::ImportError& e) {
    print_error(program, e.what());
  } catch (const db::DbError& e) {
    print_error(program, e.what());
  } catch (const output::OutputError& e) {
    print_error(program, e.what());
  } catch (const std::bad_alloc&) {
    // Inputs are streamed and reports bounded (--max-points): what still does not fit is the
    // machine's limit, said once.
    print_error(program,
                "out of memory (the process's memory limit was reached; for report, a smaller "
                "--max-points or fewer --runs need less)");
    return cli::kRunFailed;
  }
  return cli::kUsage;
}

int import_main(int argc, char** argv, const std::string& program,
                const std::vector<std::string>&) {
  CLI::App app(
      "Stores IMB, OSU micro-benchmark and SKaMPI text output files in the results "
      "database, one run per file, so that they can be plotted and compared with "
      "mpiscope's own runs. All files are read first; if one cannot be read, nothing is "
      "stored. Files are read as streams, a table at a time, so their size is not bounded by "
      "memory.",
      program);
  std::string db_path;
  std::vector<std::string> files;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("files", files, "Output files of IMB, OSU or SKaMPI")
      ->required()
      ->type_name("FILE");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    const DbChoice db = chosen_db(app, db_path);
    // First pass: every file read and checked, nothing kept but its errors.
    std::vector<std::string> errors;
    for (const auto& f : files) {
      try {
        db::import_file(f, [](core::BenchmarkRun&&) {});
      } catch (const db::ImportError& e) {
        errors.push_back(e.what());
      }
    }
    for (const auto& e : errors) print_error(program, e.c_str());
    if (!errors.empty()) {
      std::fprintf(stderr, "%s: nothing imported\n", program.c_str());
      return static_cast<int>(cli::kUsage);
    }
    // Second pass: each table stored as it is read, all files in one transaction.
    const std::string& path = db.path;
    if (db.from != "--db") db::prepare_default_location(path);
    db::ResultsDb database(path);
    struct Stored {
      std::int64_t id;
      std::string source, file;
      std::size_t tables, rows;
    };
    std::vector<Stored> stored;
    db::Transaction transaction(database.connection());
    for (const auto& f : files) {
      int seq = 0;
      std::size_t rows = 0;
      // The source is known once the format is: the run row is made at the first table.
      std::int64_t id = 0;
      db::StoredRun header = db::import_file(f, [&](core::BenchmarkRun&& b) {
        if (id == 0) id = database.begin_import("import", f);
        rows += b.rows.size();
        database.import_table(id, seq++, b);
      });
      database.end_import(id, header);
      stored.push_back({id, header.source, f, static_cast<std::size_t>(seq), rows});
    }
    transaction.commit();
    for (const auto& s : stored)
      std::printf("%s: run %lld (%s, %zu table%s, %zu row%s) from %s\n", path.c_str(),
                  static_cast<long long>(s.id), s.source.c_str(), s.tables,
                  s.tables == 1 ? "" : "s", s.rows, s.rows == 1 ? "" : "s",
                  core::printable(s.file).c_str());
    return static_cast<int>(cli::kOk);
  });
}

// A cell cut to `width` characters, "..." marking the cut (`mpiscope runs` fits 100 columns).
std::string cut(const std::string& text, std::size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

// classic (IMB's "imb" is the same), accurate, or imported for files of other tools.
std::string run_method(const db::RunListing& r) {
  if (r.source.rfind("import", 0) == 0 && r.method.empty()) return "imported";
  if (r.method.empty() || r.method == "imb") return "classic";
  return r.method;
}

// The filter options of `runs` and `history` (the same filter as a run set's key=value terms):
// --suite, --label, --mpi (and --benchmark for runs) may be given more than once, either value.
void add_filter_options(CLI::App& app, RunFilter& filter, bool benchmark_option) {
  auto each = [&](const char* name, std::vector<std::string>& values, const char* help,
                  const char* type) {
    app.add_option(name, values, help)->type_name(type)->allow_extra_args(false);
  };
  each("--suite", filter.suites, "Only runs of this suite (presta: every presta-* test)", "SUITE");
  each("--label", filter.labels, "Only runs with this label", "TEXT");
  if (benchmark_option)
    each("--benchmark", filter.benchmarks, "Only runs holding a table of this benchmark", "NAME");
  each("--mpi", filter.mpis,
       "Only runs whose MPI library or version contains TEXT (any case: 'Open MPI 4.1.4', "
       "'mpich')",
       "TEXT");
  app.add_option("--since", filter.since, "Only runs made on or after this day (or time)")
      ->type_name("YYYY-MM-DD[THH:MM]");
  app.add_option("--until", filter.until, "Only runs made on or before this day (or time)")
      ->type_name("YYYY-MM-DD[THH:MM]");
}

// An empty --since is refused too (a script's unset variable), not taken as "no limit".
void check_filter_options(const CLI::App& app, const RunFilter& filter,
                          const std::vector<db::RunListing>& listing) {
  if (app.count("--since") > 0) check_day("--since", filter.since);
  if (app.count("--until") > 0) check_day("--until", filter.until);
  filter.check("--", "", listing);
}

int runs_main(int argc, char** argv, const std::string& program, const std::vector<std::string>&) {
  CLI::App app(
      "Lists the runs stored in the results database, one line each within 100 columns (--long "
      "adds the table count, completion, where each run came from, the MPI environment variables "
      "set and the ranks' CPU binding).",
      program);
  std::string db_path;
  RunFilter filter;
  bool long_listing = false;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  add_filter_options(app, filter, true);
  app.add_flag("--long", long_listing,
               "Add tables, completion, source (file), MPI environment and CPU binding columns");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    auto database = open_for_reading(chosen_db(app, db_path));
    const auto listing = database.list_runs();
    check_filter_options(app, filter, listing);
    const auto chosen = filter.select(database, listing);
    std::vector<std::string> headings = {"run",   "date", "suite", "method",
                                         "ranks", "rows", "label", "MPI library"};
    if (long_listing)
      headings.insert(headings.end(),
                      {"tables", "complete", "source", "MPI environment", "CPU binding"});
    output::TextTable t(headings);
    bool unfinished = false;
    for (const auto& r : listing) {
      if (std::find(chosen.begin(), chosen.end(), r.id) == chosen.end()) continue;
      const std::string date = run_date(r);
      const std::string lib = short_library_name(r.mpi_library);
      std::vector<std::string> cells = {std::to_string(r.id),
                                        date,
                                        cut(r.suite, 15),
                                        run_method(r),
                                        std::to_string(r.world_size),
                                        std::to_string(r.rows) + (r.complete ? "" : "*"),
                                        r.label.empty() ? "-" : cut(r.label, 16),
                                        lib.empty() ? "-" : cut(lib, 16)};
      // "-": recorded without provenance; "none": recorded, no variable of MPI's set.
      const bool provenance = !r.cpu_binding.empty();
      if (long_listing)
        cells.insert(cells.end(), {std::to_string(r.tables), r.complete ? "yes" : "no",
                                   r.source + (r.source_file.empty() ? "" : ":" + r.source_file),
                                   !provenance             ? "-"
                                   : r.environment.empty() ? "none"
                                                           : cut(r.environment, 40),
                                   provenance ? cut(r.cpu_binding, 40) : "-"});
      t.add_row(cells);
      unfinished |= !r.complete;
    }
    std::printf("# %s\n%s", database.path().c_str(), core::printable(t.render()).c_str());
    if (unfinished && !long_listing) std::printf("# rows*: the run did not finish\n");
    return static_cast<int>(cli::kOk);
  });
}

// An existing database opened for writing (label, delete): never created by a typo in --db.
db::ResultsDb open_for_writing(const DbChoice& db) {
  if (!std::filesystem::exists(db.path))
    throw CommandError("no results database at '" + db.path + "' (from " + db.from + ")");
  return db::ResultsDb(db.path);
}

int label_main(int argc, char** argv, const std::string& program, const std::vector<std::string>&) {
  CLI::App app("Sets the label of a stored run (an empty TEXT removes it).", program);
  std::string db_path, run, label;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("RUN", run, "The run: an id ('mpiscope runs' lists them), last or last-N")
      ->required();
  app.add_option("TEXT", label, "The label")->required();
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    try {
      cli::check_label(label);
    } catch (const std::invalid_argument& e) {
      throw CommandError(e.what());
    }
    const DbChoice db = chosen_db(app, db_path);
    auto database = open_for_writing(db);
    const auto id = resolve_run(database, run);
    database.set_label(id, label);
    std::printf("%s (from %s): run %lld labelled '%s'\n", database.path().c_str(), db.from.c_str(),
                static_cast<long long>(id), core::printable(label).c_str());
    return static_cast<int>(cli::kOk);
  });
}

int delete_main(int argc, char** argv, const std::string& program,
                const std::vector<std::string>&) {
  CLI::App app(
      "Deletes stored runs with all their tables and rows, in one transaction: when one RUN is "
      "unknown, nothing is deleted (exit 2).",
      program);
  std::string db_path;
  std::vector<std::string> runs;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("RUN", runs, "Runs: ids ('mpiscope runs' lists them), last or last-N")->required();
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    const DbChoice db = chosen_db(app, db_path);
    auto database = open_for_writing(db);
    std::vector<std::int64_t> ids;
    for (const auto& spec : runs) {  // every name resolved before anything is deleted
      const auto id = resolve_run(database, spec);
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    database.delete_runs(ids);
    std::string list;
    for (auto id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    std::printf("%s (from %s): deleted run%s %s\n", database.path().c_str(), db.from.c_str(),
                ids.size() > 1 ? "s" : "", list.c_str());
    return static_cast<int>(cli::kOk);
  });
}

int export_main(int argc, char** argv, const std::string& program,
                const std::vector<std::string>&) {
  CLI::App app(
      "Writes stored runs in the long (tidy) layout: one measured quantity per row with its run, "
      "suite, benchmark, mode, processes, bytes, quantity, value and unit, and every table "
      "parameter in a column of its own (docs/results-db.md shows how to load it with pandas).",
      program);
  std::string db_path, format = "csv", out;
  std::vector<std::string> run_specs;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("--format", format, "csv (a header line, then rows) or json (an array of objects)")
      ->check(CLI::IsMember({"csv", "json"}))
      ->capture_default_str();
  app.add_option("-o,--output", out, "Write to FILE instead of standard output")->type_name("FILE");
  app.add_option("RUN", run_specs, std::string(kRunSetHelp) + " (default: every run)")
      ->type_name("RUNS");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    check_output_name(app, "-o", out);
    auto database = open_for_reading(chosen_db(app, db_path));
    std::vector<std::int64_t> ids = select_runs(database, run_specs, "RUN");
    if (run_specs.empty())
      for (const auto& r : database.list_runs()) ids.push_back(r.id);
    // Written run by run, never held whole: stdout, or a file replaced only when complete.
    std::unique_ptr<output::ReplacementFile> file;
    if (!out.empty()) file = std::make_unique<output::ReplacementFile>(out);
    auto write = [&](const std::string& text) {
      if (file)
        file->write(text);
      else
        std::fputs(text.c_str(), stdout);
    };
    const bool csv = format == "csv";
    const auto parameters = csv ? database.parameter_names(ids) : std::vector<std::string>{};
    bool first = true;
    auto emit = [&](const output::TidyRun& run, const output::TidyRow& row) {
      if (csv)
        write(output::tidy_csv_line(run, row, parameters));
      else
        write((first ? "\n" : ",\n") + output::tidy_json(run, row).dump());
      first = false;
    };
    write(csv ? output::tidy_csv_header(parameters) : "[");
    for (auto id : ids) {
      const auto run = database.load_run(id);
      const auto context = output::tidy_run(run.info);
      for (const auto& b : run.benchmarks) {
        for (const auto& m : b.rows)
          for (const auto& row : output::tidy_rows(b, m)) emit(context, row);
        for (const auto& row : output::tidy_model_rows(b)) emit(context, row);
      }
      for (const auto& v : run.summary) emit(context, output::tidy_summary(v));
    }
    if (!csv) write("\n]\n");
    if (file) file->close();
    return static_cast<int>(cli::kOk);
  });
}

// "3,4,5", "last-2,last-1,last", "baseline", "mpi=4.1.5,suite=imb-mpi1": the runs of one side
// of a comparison, each once.
std::vector<db::StoredRun> load_side(db::ResultsDb& database, const std::string& specs,
                                     const std::string& what) {
  const std::vector<std::int64_t> ids = select_runs(database, {specs}, what);
  // The rank test's exact distribution grows with the square of the number of runs.
  constexpr std::size_t kMostRuns = 100;
  if (ids.size() > kMostRuns)
    throw CommandError("'" + specs + "': at most " + std::to_string(kMostRuns) + " runs per side");
  std::vector<db::StoredRun> runs;
  for (auto id : ids) runs.push_back(database.load_run(id));
  return runs;
}

// A comparison of a run with itself tells nothing: no run may be on both sides.
void check_sides_apart(const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.id == y.id)
        throw CommandError("run " + std::to_string(x.id) +
                           " is on both sides of the comparison; compare different runs");
}

int report_main(int argc, char** argv, const std::string& program,
                const std::vector<std::string>&) {
  CLI::App app(
      "Writes one self-contained HTML page (no network needed; the plotting library Vega is "
      "inside it) with log-scale plots of the stored runs: time and bandwidth over message "
      "size (or SKaMPI's process count or chunks) with accurate mode's intervals and "
      "SKaMPI's standard errors, time over process count across launches, b_eff as one card "
      "per run, runs overlaid, a run picker, series toggles, zoom, SVG, PNG and CSV export, "
      "each run's metadata and its summary figures; with --compare, compare's verdicts. The "
      "newest --detail runs are drawn in full; every run is in the history view (each "
      "benchmark's figure over the dates, with the changes 'mpiscope history' finds), so that "
      "a year of nightly runs stays a page of a few megabytes.",
      program);
  std::string db_path, out = "mpiscope-report.html";
  std::vector<std::string> run_specs;
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("--runs", run_specs,
                 "Runs to include. " + std::string(kRunSetHelp) + " (default: every run)")
      ->type_name("RUNS");
  app.add_option("-o,--output", out, "The HTML file to write")
      ->capture_default_str()
      ->type_name("FILE");
  std::size_t max_points = 20000;
  app.add_option("--max-points", max_points,
                 "At most this many points per run (and 1000 per table, thinned evenly); a "
                 "larger run is shown in part, with a note saying what was left out, and the "
                 "database keeps all of it")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000000}))
      ->type_name("N");
  std::string units = "mib";
  app.add_option("--units", units,
                 "The page's one bandwidth unit: mib (MiB/s, 2^20 bytes per second) or mb (MB/s, "
                 "10^6 bytes per second); every bandwidth is converted to it")
      ->capture_default_str()
      ->check(CLI::IsMember({"mib", "mb"}))
      ->type_name("mib|mb");
  std::size_t detail = 25;
  app.add_option("--detail", detail,
                 "Draw the newest N of the runs in full (curves, tables, metadata); the older "
                 "ones are in the history view only")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}))
      ->type_name("N");
  std::string compare_spec;
  app.add_option("--compare", compare_spec,
                 "Add a comparison of two runs or sets of runs, as 'mpiscope compare' makes it: "
                 "B/A per benchmark and length, marked where beyond the noise")
      ->type_name("RUNS_A:RUNS_B");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    // Checked without touching it: the report it replaces stays as it is until the new one is
    // whole.
    check_output_name(app, "-o", out);
    output::check_writable(out);
    auto database = open_for_reading(chosen_db(app, db_path));
    ReportOptions options;
    options.units = units == "mb" ? BandwidthUnit::kMB : BandwidthUnit::kMiB;
    if (!compare_spec.empty()) {
      // The colon between the sides, not one of a time (since=2026-03-14T02:00).
      std::size_t colon = compare_spec.find(':');
      while (colon != std::string::npos && colon >= 3 && compare_spec[colon - 3] == 'T' &&
             std::isdigit(static_cast<unsigned char>(compare_spec[colon - 2])) &&
             std::isdigit(static_cast<unsigned char>(compare_spec[colon - 1])))
        colon = compare_spec.find(':', colon + 1);
      if (colon == std::string::npos)
        throw CommandError("--compare '" + compare_spec +
                           "': use RUNS_A:RUNS_B, e.g. 1,2:3,4 or baseline:candidate");
      PageComparison c;
      c.a = load_side(database, compare_spec.substr(0, colon), "--compare");
      c.b = load_side(database, compare_spec.substr(colon + 1), "--compare");
      check_sides_apart(c.a, c.b);
      c.result = compare_runs(c.a, c.b, CompareSettings{});
      options.comparison = std::move(c);
    }
    std::vector<std::int64_t> ids = select_runs(database, run_specs, "--runs");
    const auto listing = database.list_runs();
    if (run_specs.empty())
      for (const auto& r : listing) ids.push_back(r.id);
    if (ids.empty()) throw CommandError("the database '" + database.path() + "' holds no run yet");
    // Date order (history's), then the order of recording; the newest `detail` in full.
    std::vector<std::pair<std::string, std::int64_t>> by_date;
    for (const auto& r : listing)
      if (std::find(ids.begin(), ids.end(), r.id) != ids.end())
        by_date.emplace_back(run_date(r), r.id);
    std::stable_sort(by_date.begin(), by_date.end());
    std::set<std::int64_t> in_full;
    for (std::size_t i = by_date.size() > detail ? by_date.size() - detail : 0; i < by_date.size();
         ++i)
      in_full.insert(by_date[i].second);
    std::erase_if(ids, [&](std::int64_t id) { return !in_full.count(id); });
    // The history view, when its series can show a change (2 x min_segment runs) or runs are
    // left out of the full detail: each run read within the page's limits (a run of millions of
    // rows is thinned as its full view is), its figures kept, its tables let go.
    const db::LoadLimits limits{.max_points = max_points,
                                .max_rows_per_table = std::min<std::size_t>(1000, max_points),
                                .benchmark = {}};
    HistoryView view;
    if (by_date.size() > detail || by_date.size() >= 2 * view.settings.min_segment) {
      for (const auto& [date, id] : by_date) view.runs.add(database.load_run(id, limits));
      view.history = history_of("every benchmark", view.runs, view.settings);
      view.detail_runs = in_full.size();
      options.history = &view;
    }
    std::vector<db::StoredRun> runs;
    for (auto id : ids) {
      auto run = database.load_run(id, limits);
      if (run.tables_left_out > 0 || run.rows_left_out > 0) {
        const std::string note = "the report shows part of this run (--max-points " +
                                 std::to_string(max_points) +
                                 "): " + std::to_string(run.tables_left_out) + " tables and " +
                                 std::to_string(run.rows_left_out) +
                                 " rows of longer tables left out; the database keeps them all";
        std::fprintf(stderr, "%s: run %lld: %s\n", program.c_str(), static_cast<long long>(id),
                     note.c_str());
        run.notes.push_back(note);
      }
      runs.push_back(std::move(run));
    }
    output::replace_file(out, render_html(runs, database.path(), options));
    std::printf("%s: wrote %s (%zu runs from %s", program.c_str(), out.c_str(), runs.size(),
                database.path().c_str());
    if (options.history)
      std::printf("; the history of %zu runs, %zu series, %zu changes reported",
                  view.runs.runs.size(), view.history.series.size(), [&] {
                    std::size_t n = 0;
                    for (const auto& s : view.history.series)
                      for (const auto& c : s.changes) n += c.reported;
                    return n;
                  }());
    std::printf(")\n");
    return static_cast<int>(cli::kOk);
  });
}

std::string ids_of(const std::vector<db::StoredRun>& runs) {
  std::string s;
  for (const auto& r : runs) s += (s.empty() ? "" : ",") + std::to_string(r.id);
  return s;
}

int compare_main(int argc, char** argv, const std::string& program,
                 const std::vector<std::string>&) {
  CLI::App app(
      "Compares two sets of stored runs: for every benchmark table and message length the "
      "ratio B/A of the reported time, whether the difference is larger than the run-to-run "
      "noise (a rank test on the runs' figures, with the bounds of B/A it gives; with fewer "
      "than 4 runs per side only a change beyond 3x counts), and whether the runs could have "
      "shown a change of the size asked about at all (else: cannot tell). With --fail-above it "
      "is a regression gate: exit 3 when B is slower than A by more than PERCENT beyond the "
      "noise, exit 6 when no row is but some row cannot tell.",
      program);
  std::string db_path, a, b;
  CompareSettings settings;
  app.add_option("RUN_A", a, "The reference. " + std::string(kRunSetHelp))
      ->type_name("RUNS")
      ->required();
  app.add_option("RUN_B", b, "The runs compared with it, in the same form")
      ->type_name("RUNS")
      ->required();
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("--fail-above", settings.fail_above_percent,
                 "Exit 3 if some row of B is slower than A by more than PERCENT and beyond "
                 "the run-to-run noise; else exit 6 if some row's runs could not have shown "
                 "such a slowdown")
      ->type_name("PERCENT")
      ->check(cli::number_in({0, 1e6}));
  app.add_option("--noise-floor", settings.noise_floor_percent,
                 "Without --fail-above: the smallest change a row's runs must be able to show "
                 "for the row to be called within the noise (else: cannot tell)")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(cli::number_in({0, 1e6}));
  bool as_json = false;
  app.add_flag("--json", as_json,
               "Print the comparison as one JSON object: every row with its verdict and, where it "
               "cannot tell, why");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    auto database = open_for_reading(chosen_db(app, db_path));
    const auto runs_a = load_side(database, a, "RUN_A");
    const auto runs_b = load_side(database, b, "RUN_B");
    check_sides_apart(runs_a, runs_b);
    const auto c = compare_runs(runs_a, runs_b, settings);
    const std::string shown = as_json ? comparison_json(runs_a, runs_b, c).dump(1) + "\n"
                                      : render_comparison(runs_a, runs_b, c, settings);
    std::fputs(core::printable(shown).c_str(), stdout);
    if (c.rows.empty()) {
      std::fprintf(stderr,
                   "%s: error: runs %s and %s have no benchmark table and length in common\n",
                   program.c_str(), ids_of(runs_a).c_str(), ids_of(runs_b).c_str());
      return static_cast<int>(cli::kUsage);
    }
    for (const auto& r : c.rows)
      if (r.slowdown_over_limit) return static_cast<int>(cli::kCheckFailed);
    if (settings.fail_above_percent >= 0 && c.inconclusive > 0)
      return static_cast<int>(cli::kCannotTell);
    return static_cast<int>(cli::kOk);
  });
}

int summary_main(int argc, char** argv, const std::string& program,
                 const std::vector<std::string>&) {
  CLI::App app(
      "Prints the machine on one screen from the stored runs: latency and bandwidth as the "
      "PingPong curve's model fits them, where the MPI library switches protocol, the peak "
      "bandwidth and where, b_eff, the I/O bandwidth, the library and its configuration, and "
      "where the ranks ran; each figure from the newest run that measured it, naming the run "
      "and table (the report's first card says the same).",
      program);
  std::string db_path;
  std::vector<std::string> run_specs;
  bool as_json = false;
  app.add_option("RUN", run_specs,
                 "Runs to draw from. " + std::string(kRunSetHelp) + " (default: every run)")
      ->type_name("RUNS");
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_flag("--json", as_json, "Print the figures as one JSON object");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    auto database = open_for_reading(chosen_db(app, db_path));
    std::vector<std::int64_t> ids = select_runs(database, run_specs, "RUN");
    if (run_specs.empty())
      for (const auto& r : database.list_runs()) ids.push_back(r.id);
    if (ids.empty()) throw CommandError("the database '" + database.path() + "' holds no run yet");
    std::vector<db::StoredRun> runs;
    for (auto id : ids) runs.push_back(database.load_run(id));
    const auto summary = machine_summary(runs);
    const std::string text =
        as_json ? summary_json(summary).dump(1) + "\n" : summary_text(summary, database.path());
    std::fputs(core::printable(text).c_str(), stdout);
    return static_cast<int>(cli::kOk);
  });
}

int history_main(int argc, char** argv, const std::string& program,
                 const std::vector<std::string>&) {
  CLI::App app(
      "Prints one benchmark's figure over the stored runs in date order, a series per table "
      "and length, and the changes found in each series: where (the runs either side), how "
      "large (after/before with 95 % bounds), and what else changed with it (MPI library, "
      "mpiscope's version, hosts, environment, rules). A change needs --min-segment runs on "
      "each side; each series is tested by binary segmentation with a permutation test, at a "
      "level all series share (docs/results-db.md, \"History\"). With --fail-on-change it is a "
      "nightly gate: exit 3 when a change lies among the newest --recent runs of a series, "
      "exit 6 when none does but a possible change does (its test's p above the level, within "
      "20 times it) or some series could not show one.",
      program);
  std::string db_path, benchmark;
  RunFilter filter;
  long long bytes = -1;
  int procs = 0;
  HistorySettings settings;
  bool as_json = false, fail_on_change = false;
  app.add_option("BENCHMARK", benchmark,
                 "The benchmark (PingPong, Allreduce, osu_bw, ...); left out: every benchmark, "
                 "all its series sharing the level");
  app.add_option("--db", db_path, kDbHelp)->type_name("FILE");
  app.add_option("--bytes", bytes, "Only this message length")
      ->type_name("N")
      ->check(cli::number_in({0, 1e18}));
  app.add_option("--procs", procs, "Only tables of this many processes")
      ->type_name("N")
      ->check(cli::number_in({1, 1e9}));
  add_filter_options(app, filter, false);
  app.add_option("--min-segment", settings.min_segment,
                 "Runs needed on each side of a change (at least 2)")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::number_in({2, 1e6}));
  app.add_option("--min-change", settings.min_change_percent,
                 "Changes smaller than this are counted, not shown")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(cli::number_in({0, 1e6}));
  app.add_option("--level", settings.level,
                 "The chance that identical runs show a change somewhere, over all series")
      ->type_name("P")
      ->capture_default_str()
      ->check(cli::number_in({1e-6, 0.5}));
  app.add_option("--recent", settings.recent_runs,
                 "--fail-on-change: a change among the newest this many runs of a series fails")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::number_in({1, 1e9}));
  app.add_flag("--fail-on-change", fail_on_change,
               "Exit 3 when a change lies among the newest --recent runs of a series; else exit "
               "6 when a possible change does, or some series could not show a change");
  app.add_flag("--json", as_json, "Print the series and their changes as one JSON object");
  if (int rc = parse(app, program, argc, argv); rc >= 0) return rc;
  return guarded(program, [&] {
    auto database = open_for_reading(chosen_db(app, db_path));
    auto listing = database.list_runs();
    check_filter_options(app, filter, listing);
    const auto chosen = filter.select(database, listing);
    // Date order ("2026-03-14 02:00": text order is time order), then the order of recording.
    std::vector<std::pair<std::string, std::int64_t>> order;
    for (const auto& r : listing) {
      if (std::find(chosen.begin(), chosen.end(), r.id) != chosen.end())
        order.emplace_back(run_date(r), r.id);
    }
    std::stable_sort(order.begin(), order.end());
    HistoryRuns runs;
    for (const auto& [date, id] : order) {
      auto run = database.load_run(id, {.max_points = static_cast<std::size_t>(-1),
                                        .max_rows_per_table = static_cast<std::size_t>(-1),
                                        .benchmark = benchmark});
      std::erase_if(run.benchmarks,
                    [&](const core::BenchmarkRun& b) { return procs > 0 && b.nprocs != procs; });
      if (bytes >= 0)
        for (auto& b : run.benchmarks)
          std::erase_if(b.rows, [&](const core::Measurement& m) {
            return m.bytes != static_cast<std::size_t>(bytes);
          });
      std::erase_if(run.benchmarks, [](const core::BenchmarkRun& b) { return b.rows.empty(); });
      if (!run.benchmarks.empty()) runs.add(std::move(run));
    }
    if (runs.runs.empty())
      throw CommandError("no run in '" + database.path() + "' measured " +
                         (benchmark.empty() ? "anything" : benchmark) +
                         (procs > 0 ? " on " + std::to_string(procs) + " processes" : "") +
                         (bytes >= 0 ? " at " + std::to_string(bytes) + " bytes" : "") +
                         (order.size() < listing.size() ? " among the runs chosen" : "") +
                         " ('mpiscope runs' lists the runs)");
    const auto h = history_of(benchmark.empty() ? "every benchmark" : benchmark, runs, settings);
    const std::string shown = as_json ? history_json(h, settings).dump(1) + "\n"
                                      : render_history(h, settings, database.path());
    std::fputs(core::printable(shown).c_str(), stdout);
    if (!fail_on_change) return static_cast<int>(cli::kOk);
    if (recent_changes(h, settings) > 0) return static_cast<int>(cli::kCheckFailed);
    if (recent_possible_changes(h, settings) > 0) return static_cast<int>(cli::kCannotTell);
    for (const auto& s : h.series)
      if (!s.cannot_tell.empty()) return static_cast<int>(cli::kCannotTell);
    return static_cast<int>(cli::kOk);
  });
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "import",
    "Store IMB, OSU or SKaMPI output files in the results database",
    {},
    60,
    import_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "runs", "List the runs in the results database", {}, 62, runs_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "export", "Write stored runs as tidy CSV or JSON (one quantity per row)", {}, 63, export_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "label", "Set the label of a stored run", {}, 64, label_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{"delete", "Delete stored runs", {}, 65, delete_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "report", "Write an HTML page of plots of the stored runs", {}, 66, report_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "summary", "Print the machine on one screen from the stored runs", {}, 67, summary_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "compare",
    "Compare two stored runs or sets of runs (ratio B/A per benchmark and length)",
    {},
    70,
    compare_main});
MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "history",
    "One benchmark's figure over the stored runs, and where it changed",
    {},
    71,
    history_main});

}  // namespace mpiscope::report
