// What every suite's front end shares: the output options (a file per registered output format,
// --db/--no-db, --label, --timeout) declared once as a table that drives CLI11, IMB's own parser,
// the help screens, the hand-off to the other ranks (one JSON member) and the checks; a CLI11
// command line parsed on rank 0; and the reporters the options select.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/option_table.hpp"
#include "core/reporter.hpp"

namespace mpiscope::core {
struct EngineSettings;
struct SuitePlan;
}  // namespace mpiscope::core

namespace mpiscope::cli {

struct OutputOptions {
  // Output format (output/registry.hpp: "json", "csv", …) -> FILE of its --NAME FILE option.
  std::map<std::string, std::string> files;
  double timeout_s = 0;  // --timeout SECONDS per measurement point (0: none; 0 is not accepted)
  std::string db_path;   // --db FILE: the results database (empty: the default location)
  bool no_db = false;    // --no-db: record nothing in a database
  std::string label;     // --label TEXT: stored with the run (database, JSON, CSV)

  // The FILE of a format's option; empty when not asked for.
  std::string file(const std::string& format) const;
  // Everything that can be checked before the run (rank 0): the files are distinct and can be
  // written (created and removed, nothing overwritten), --db and --no-db are not both given, the
  // database can be opened or the default location exists. Throws std::invalid_argument or
  // output::OutputError / db::DbError with a message naming the option or file.
  void validate() const;
};

// The rank hand-off: `j["output"] = o.output` carries every field above.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OutputOptions, files, timeout_s, db_path, no_db, label)

// The table of the output options, one entry per registered format first.
const std::vector<OptionSpec<OutputOptions>>& output_option_table();
void add_output_options(CLI::App& app, OutputOptions& o);
// Help lines and a synopsis for hand-written help screens (IMB, PRESTA).
std::string output_options_help();
std::string output_options_synopsis(const std::string& indent);

// --label TEXT and `mpiscope label`: one line of text of at most kMaxLabelBytes (a label names a
// run in a listing, it is not a notebook); throws std::invalid_argument.
inline constexpr std::size_t kMaxLabelBytes = 256;
void check_label(const std::string& label);
// --json/--csv FILE: an empty name is an error (not "no file"); throws std::invalid_argument.
std::string output_path(const std::string& text, const std::string& option);
// Two outputs naming one file would interleave two formats: throws std::invalid_argument.
void check_distinct_outputs(const std::map<std::string, std::string>& files);

// Parses args (without the program name) into `app` on rank 0, with -h and --help as the help
// flag. Help becomes kHelp with the help text; a CLI11 error becomes kError with its message;
// otherwise `serialize` (called after the parse) gives the options to broadcast. Exceptions from
// `serialize` are the caller's errors.
ParseResult parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                               const std::function<std::string()>& serialize);

// The commands that start no MPI (report, compare, tune-check, ...): parses argv (after the
// command's name) into `app`; returns -1 to go on, else the exit code: help printed (0), or a
// CLI11 error said once on stderr with the way to the options (2).
int parse_direct_command(CLI::App& app, const std::string& program, int argc, char** argv);

// The file reporters of the options (rank 0 only), added to `list`: one per format asked for and
// the results database (unless --no-db), all seeing the run's --label.
void add_file_reporters(core::ReporterList& list, const OutputOptions& o);

// The reporters of one run, alike in every suite. On rank 0: the suite's own text reporter (made
// by `text`, which only rank 0 calls; it may return null) and the file reporters of `output`,
// started with `info`; on the other ranks none, and out() is a reporter that drops everything.
// The end takes two calls: measured(), collective, once every rank has measured (before a
// watchdog stops and before rank 0's own writing, so that no rank waits on it unwatched): it
// gathers the settings only the end of a run knows (core::gather_end_of_run_settings); then
// finish() on every rank, after rank 0's last notes: its reporters see run_finished. finish()
// without measured() throws std::logic_error (a front end that forgot the gather).
class RunReporters {
 public:
  RunReporters(const std::function<std::unique_ptr<core::Reporter>()>& text,
               const OutputOptions& output, const core::RunInfo& info);
  bool root() const { return root_; }
  core::Reporter& out() { return root_ ? static_cast<core::Reporter&>(list_) : none_; }
  void measured(core::RunInfo& info);
  void finish(const core::RunInfo& info, bool ok);
  // The whole of a plain run: core::run_suite into out() (or into `through`, a reporter that
  // forwards to out()), measured(), finish(); the run's exit code.
  int run(const core::SuitePlan& plan, const core::EngineSettings& settings, core::RunInfo& info,
          core::Reporter* through = nullptr);

 private:
  bool root_;
  bool measured_ = false;
  core::ReporterList list_;
  core::Reporter none_;
};

}  // namespace mpiscope::cli
