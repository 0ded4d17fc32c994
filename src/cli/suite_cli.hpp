// What the front ends after IMB share: a CLI11 command line parsed on rank 0, the output options
// every suite has (--json, --csv, --timeout), and the reporters they select. The IMB front ends
// keep IMB's own single-dash syntax (suites/imb/options.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "core/reporter.hpp"

namespace mpiscope::cli {

struct OutputOptions {
  std::string json_path;  // --json FILE: the mpiscope JSON, complete after every row
  std::string csv_path;   // --csv FILE: one line per row, flushed as measured
  double timeout_s = 0;   // --timeout SECONDS per measurement point (0: none)
  std::string db_path;    // --db FILE: the results database (empty: the default location)
  bool no_db = false;     // --no-db: record nothing in a database
};

// For the suites' option serialization: `j["output"] = o.output` carries every field above.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OutputOptions, json_path, csv_path, timeout_s, db_path, no_db)

void add_output_options(CLI::App& app, OutputOptions& o);
// --json/--csv FILE: an empty name is an error (not "no file"); throws std::invalid_argument.
std::string output_path(const std::string& text, const std::string& option);
// --json and --csv naming one file would interleave two formats: throws std::invalid_argument.
void check_distinct_outputs(const std::string& json_path, const std::string& csv_path);
// --db FILE must be usable; without --db the default location must exist (HOME or
// XDG_DATA_HOME, db::default_db_path()). Nothing with --no-db. Throws.
void check_database_choice(const std::string& db_path, bool no_db);
// Creates the output files now, so that an unwritable path is an error before anything runs.
void check_output_options(const OutputOptions& o);

// Parses args (without the program name) into `app` on rank 0. Help becomes kHelp with the help
// text; a CLI11 error becomes kError with its message; otherwise `serialize` (called after the
// parse) gives the options to broadcast. Exceptions from `serialize` are the caller's errors.
ParseResult parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                               const std::function<std::string()>& serialize);

// JSON, CSV and results-database reporters for the options (rank 0 only), added to `list`.
void add_file_reporters(core::ReporterList& list, const OutputOptions& o);

}  // namespace mpiscope::cli
