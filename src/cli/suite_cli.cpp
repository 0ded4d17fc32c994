#include "cli/suite_cli.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

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

void add_output_options(CLI::App& app, OutputOptions& o) {
  app.add_option("--json", o.json_path,
                 "Write the results as mpiscope JSON to FILE (a complete document after every row)")
      ->type_name("FILE");
  app.add_option("--csv", o.csv_path, "Write one CSV line per row to FILE")->type_name("FILE");
  app.add_option("--timeout", o.timeout_s,
                 "End the run (exit 4) when one measurement point takes longer than SECONDS")
      ->type_name("SECONDS")
      ->check(CLI::Validator(
          [](std::string& value) {
            char* end = nullptr;
            const double seconds = std::strtod(value.c_str(), &end);
            return end != value.c_str() && *end == '\0' && seconds >= 0
                       ? std::string()
                       : "must be a non-negative number of seconds, got '" + value + "'";
          },
          "SECONDS"));
  auto* db = app.add_option("--db", o.db_path,
                            "Record the run in the results database FILE (default: $MPISCOPE_DB, "
                            "else ~/.local/share/mpiscope/results.sqlite)")
                 ->type_name("FILE");
  app.add_flag("--no-db", o.no_db, "Record nothing in a results database")->excludes(db);
}

void check_output_options(const OutputOptions& o) {
  if (!o.json_path.empty()) output::check_writable(o.json_path);
  if (!o.csv_path.empty()) output::check_writable(o.csv_path);
  if (!o.no_db && !o.db_path.empty()) output::check_db_path(o.db_path);
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
