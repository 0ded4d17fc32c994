#include "cli/suite_cli.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "cli/numbers.hpp"
#include "core/engine.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/scratch_files.hpp"
#include "core/text.hpp"
#include "db/results_db.hpp"
#include "output/db_reporter.hpp"
#include "output/files.hpp"
#include "output/registry.hpp"

namespace mpiscope::cli {

namespace {

std::vector<OptionSpec<OutputOptions>> make_output_option_table() {
  std::vector<OptionSpec<OutputOptions>> table;
  for (const auto& format : output::output_formats()) {
    const std::string option = "--" + format.name;
    table.push_back({option, "FILE", format.help,
                     [option, name = format.name](OutputOptions& o, const std::string& v) {
                       o.files[name] = output_path(v, option);
                     }});
  }
  table.push_back({"--timeout", "SECONDS",
                   "End the run (exit 4), naming the measurement, when one measurement point "
                   "takes longer than SECONDS (omit the option for no limit)",
                   [](OutputOptions& o, const std::string& v) {
                     o.timeout_s = parse_number(v, "--timeout", kPositiveSeconds);
                   }});
  table.push_back({"--db", "FILE",
                   "Record the run in the results database FILE (default: $MPISCOPE_DB, else "
                   "~/.local/share/mpiscope/results.sqlite)",
                   [](OutputOptions& o, const std::string& v) {
                     if (v.empty()) throw std::invalid_argument("--db needs a file name, got ''");
                     o.db_path = v;
                   }});
  table.push_back({"--no-db", "", "Record nothing in a results database",
                   [](OutputOptions& o, const std::string&) { o.no_db = true; }});
  table.push_back({"--label", "TEXT",
                   "A label stored with the run (results database, JSON, CSV; 'mpiscope runs "
                   "--label' selects by it, 'mpiscope label' changes it)",
                   [](OutputOptions& o, const std::string& v) {
                     check_label(v);
                     o.label = v;
                   }});
  return table;
}

// The file reporters see the run with its --label and, when it is recorded, its id in the
// database: the database reporter hears every event first.
class FileReporters : public core::Reporter {
 public:
  FileReporters(std::string label, std::unique_ptr<output::DbReporter> db)
      : label_(std::move(label)), db_(std::move(db)) {}
  void add(std::unique_ptr<core::Reporter> r) { files_.add(std::move(r)); }

  void run_started(const core::RunInfo& i) override {
    auto labelled = with_label(i);
    if (db_) {
      db_->run_started(labelled);
      labelled.run_id = db_->run_id();
    }
    run_id_ = labelled.run_id;
    files_.run_started(labelled);
  }
  void benchmark_started(const core::BenchmarkRun& b) override {
    each(&Reporter::benchmark_started, b);
  }
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override {
    if (db_) db_->row(b, m);
    files_.row(b, m);
  }
  void benchmark_finished(const core::BenchmarkRun& b) override {
    each(&Reporter::benchmark_finished, b);
  }
  void note(const std::string& n) override { each(&Reporter::note, n); }
  void summary(const core::NamedValue& v) override { each(&Reporter::summary, v); }
  void run_finished(const core::RunInfo& i, bool ok) override {
    auto labelled = with_label(i);
    labelled.run_id = run_id_;
    if (db_) db_->run_finished(labelled, ok);
    files_.run_finished(labelled, ok);
  }

 private:
  core::RunInfo with_label(const core::RunInfo& i) const {
    core::RunInfo labelled = i;
    if (labelled.label.empty()) labelled.label = label_;
    return labelled;
  }
  template <class Event, class Arg>
  void each(Event event, const Arg& arg) {
    if (db_) ((*db_).*event)(arg);
    (files_.*event)(arg);
  }
  std::string label_;
  std::unique_ptr<output::DbReporter> db_;
  core::ReporterList files_;
  std::int64_t run_id_ = 0;
};

}  // namespace

// --label is shown in `mpiscope runs` and the report: one line of printable text.
void check_label(const std::string& label) {
  if (label.size() > kMaxLabelBytes)
    throw std::invalid_argument("--label takes at most " + std::to_string(kMaxLabelBytes) +
                                " bytes, got " + std::to_string(label.size()));
  if (std::any_of(label.begin(), label.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw std::invalid_argument("--label takes one line of text without control characters, got '" +
                                core::printable(label) + "'");
}

std::string OutputOptions::file(const std::string& format) const {
  const auto it = files.find(format);
  return it == files.end() ? "" : it->second;
}

const std::vector<OptionSpec<OutputOptions>>& output_option_table() {
  static const auto table = make_output_option_table();
  return table;
}

std::string output_path(const std::string& text, const std::string& option) {
  if (text.empty()) throw std::invalid_argument(option + " needs a file name, got ''");
  return text;
}

void check_distinct_outputs(const std::map<std::string, std::string>& files) {
  // In the formats' --help order, so that the message names them as the help lists them.
  std::vector<std::pair<std::string, std::string>> in_order;
  for (const auto& f : output::output_formats())
    if (const auto it = files.find(f.name); it != files.end()) in_order.push_back(*it);
  for (const auto& entry : files)
    if (std::none_of(in_order.begin(), in_order.end(),
                     [&](const auto& known) { return known.first == entry.first; }))
      in_order.push_back(entry);
  std::map<std::filesystem::path, std::string> seen;  // file -> the format that writes it
  for (const auto& [format, path] : in_order) {
    std::error_code ignored;
    const auto [it, fresh] = seen.emplace(std::filesystem::weakly_canonical(path, ignored), format);
    if (!fresh)
      throw std::invalid_argument("--" + it->second + " and --" + format + " name the same file '" +
                                  path + "'");
  }
}

void add_output_options(CLI::App& app, OutputOptions& o) {
  add_option_table(app, o, output_option_table());
}

std::string output_options_help() {
  return option_table_help(output_option_table(), OutputOptions{});
}

std::string output_options_synopsis(const std::string& indent) {
  return option_table_synopsis(output_option_table(), indent);
}

void OutputOptions::validate() const {
  check_distinct_outputs(files);
  if (no_db && !db_path.empty()) throw std::invalid_argument("--db and --no-db exclude each other");
  check_label(label);
  for (const auto& [format, path] : files) output::check_writable(path);
  if (no_db) return;
  if (db_path.empty())
    db::default_db_path();  // throws when the environment gives no location
  else
    output::check_db_path(db_path);
}

ParseResult parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                               const std::function<std::string()>& serialize) {
  // -h as well as --help, as IMB, OSU and PRESTA take it; a suite's own wording is kept.
  const auto* help = app.get_help_ptr();
  if (!help || !help->check_sname("h")) {
    const std::string text = help ? help->get_description() : "Print this help and exit";
    app.set_help_flag("-h,--help", text);  // replaces (destroys) the old flag
  }
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
  std::unique_ptr<output::DbReporter> db;
  if (const auto path = output::db_path_for(o.db_path, o.no_db); !path.empty())
    db = std::make_unique<output::DbReporter>(path);
  auto files = std::make_unique<FileReporters>(o.label, std::move(db));
  for (const auto& [format, path] : o.files) files->add(output::create_reporter(format, path));
  list.add(std::move(files));
}

RunReporters::RunReporters(const std::function<std::unique_ptr<core::Reporter>()>& text,
                           const OutputOptions& output, const core::RunInfo& info)
    : root_(mpi::world_rank() == 0) {
  if (!root_) return;
  // Ctrl-C or the launcher's SIGTERM waits until every output has the event being reported.
  core::scratch_files::install_signal_cleanup();
  if (auto reporter = text ? text() : nullptr) list_.add(std::move(reporter));
  add_file_reporters(list_, output);  // JSON, CSV, … and the results database
  list_.run_started(info);
}

void RunReporters::measured(core::RunInfo& info) {
  core::gather_end_of_run_settings(info);
  measured_ = true;
}

void RunReporters::finish(const core::RunInfo& info, bool ok) {
  if (!measured_) throw std::logic_error("RunReporters::finish before measured()");
  if (root_) list_.run_finished(info, ok);
}

int RunReporters::run(const core::SuitePlan& plan, const core::EngineSettings& settings,
                      core::RunInfo& info, core::Reporter* through) {
  const core::SuiteOutcome outcome = core::run_suite(plan, settings, through ? *through : out());
  measured(info);
  finish(info, outcome.all_ran);
  return exit_code(outcome);
}

int parse_direct_command(CLI::App& app, const std::string& program, int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) args.push_back(argv[i]);
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return kOk;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for the options.\n", program.c_str(),
                 core::printable(e.what()).c_str(), program.c_str());
    return kUsage;
  }
  return -1;
}

}  // namespace mpiscope::cli
