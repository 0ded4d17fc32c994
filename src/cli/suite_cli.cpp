#include "cli/suite_cli.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "cli/numbers.hpp"
#include "db/results_db.hpp"
#include "output/csv_reporter.hpp"
#include "output/db_reporter.hpp"
#include "output/files.hpp"
#include "output/json_reporter.hpp"

namespace mpiscope::cli {

namespace {
// The database choice as parsed on this process (rank 0), for suites whose option serialization
// predates --db: add_file_reporters runs on the same rank 0 and falls back to it.
OutputOptions parsed_db_choice;
}  // namespace

std::string output_path(const std::string& text, const std::string& option) {
  if (text.empty()) throw std::invalid_argument(option + " needs a file name, got ''");
  return text;
}

void check_distinct_outputs(const std::string& json_path, const std::string& csv_path) {
  if (json_path.empty() || csv_path.empty()) return;
  std::error_code ignored;
  if (std::filesystem::weakly_canonical(json_path, ignored) ==
      std::filesystem::weakly_canonical(csv_path, ignored))
    throw std::invalid_argument("--json and --csv name the same file '" + csv_path + "'");
}

void add_output_options(CLI::App& app, OutputOptions& o) {
  const auto named_file = CLI::Validator(
      [](std::string& text) { return text.empty() ? "needs a file name, got ''" : ""; }, "FILE");
  app.add_option("--json", o.json_path,
                 "Write the results as mpiscope JSON to FILE (a complete document after every row)")
      ->type_name("FILE")
      ->check(named_file);
  app.add_option("--csv", o.csv_path, "Write one CSV line per row to FILE")
      ->type_name("FILE")
      ->check(named_file);
  app.add_option("--timeout", o.timeout_s,
                 "End the run (exit 4) when one measurement point takes longer than SECONDS")
      ->type_name("SECONDS")
      ->check(number_in(kPositiveSeconds));
  auto* db = app.add_option("--db", o.db_path,
                            "Record the run in the results database FILE (default: $MPISCOPE_DB, "
                            "else ~/.local/share/mpiscope/results.sqlite)")
                 ->type_name("FILE");
  app.add_flag("--no-db", o.no_db, "Record nothing in a results database")->excludes(db);
}

void check_database_choice(const std::string& db_path, bool no_db) {
  if (no_db) return;
  if (db_path.empty())
    db::default_db_path();  // throws when the environment gives no location
  else
    output::check_db_path(db_path);
}

void check_output_options(const OutputOptions& o) {
  check_distinct_outputs(o.json_path, o.csv_path);
  if (!o.json_path.empty()) output::check_writable(o.json_path);
  if (!o.csv_path.empty()) output::check_writable(o.csv_path);
  check_database_choice(o.db_path, o.no_db);
  parsed_db_choice.db_path = o.db_path;
  parsed_db_choice.no_db = o.no_db;
}

ParseResult parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                               const std::function<std::string()>& serialize) {
  // CLI11 parses a reversed vector: it pops arguments from the back.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.allow_extras();  // unexpected arguments are reported below, in the order they were given
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return {ParseResult::kHelp, app.help()};
  } catch (const CLI::ParseError& e) {
    return {ParseResult::kError, e.what()};
  }
  std::multiset<std::string> extra;
  for (const auto& a : app.remaining()) extra.insert(a);
  if (!extra.empty()) {
    std::string list;
    for (const auto& a : args)
      if (const auto it = extra.find(a); it != extra.end()) {
        list += (list.empty() ? "'" : " '") + a + "'";
        extra.erase(it);
      }
    return {ParseResult::kError, "unexpected argument" +
                                     std::string(list.find(' ') != std::string::npos ? "s " : " ") +
                                     list};
  }
  return {ParseResult::kRun, serialize()};
}

void add_file_reporters(core::ReporterList& list, const OutputOptions& o) {
  if (!o.json_path.empty()) list.add(std::make_unique<output::JsonReporter>(o.json_path));
  if (!o.csv_path.empty()) list.add(std::make_unique<output::CsvReporter>(o.csv_path));
  const OutputOptions& db = o.db_path.empty() && !o.no_db ? parsed_db_choice : o;
  if (const auto path = output::db_path_for(db.db_path, db.no_db); !path.empty())
    list.add(std::make_unique<output::DbReporter>(path));
}

}  // namespace mpiscope::cli
