// The shared output options as one unit: a format registered in one place (here a test format
// defined in this file, as a new format would be) becomes an option of every command line, a line
// of the help screens, part of the options' JSON hand-off and a reporter, with no other edit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/method_options.hpp"
#include "cli/suite_cli.hpp"
#include "output/registry.hpp"

using namespace mpiscope;

namespace {

int reporters_made = 0;

class CountingReporter : public core::Reporter {
 public:
  explicit CountingReporter(const std::string& path) : path_(path) { ++reporters_made; }
  void run_started(const core::RunInfo& info) override { label_seen = info.label; }
  static inline std::string label_seen;

 private:
  std::string path_;
};

MPISCOPE_REGISTER_OUTPUT_FORMAT(output::OutputFormat{
    "test-format", "Write the test format to FILE", 90,
    [](const std::string& path) { return std::make_unique<CountingReporter>(path); }});

cli::ParseResult parse(const std::vector<std::string>& args, cli::OutputOptions& o) {
  CLI::App app;
  cli::add_output_options(app, o);
  return cli::parse_command_line(app, args, [] { return std::string("ok"); });
}

}  // namespace

TEST(OutputOptions, ARegisteredFormatIsAnOptionOfEveryParserAndItsHelp) {
  cli::OutputOptions cli11;
  ASSERT_EQ(parse({"--test-format", "/tmp/x.test", "--label", "l1"}, cli11).kind,
            cli::ParseResult::kRun);
  EXPECT_EQ(cli11.file("test-format"), "/tmp/x.test");
  EXPECT_EQ(cli11.label, "l1");
  // IMB's own parser reads the same table.
  cli::OutputOptions imb;
  const std::vector<std::string> args = {"--test-format", "/tmp/x.test", "--no-db"};
  for (std::size_t i = 0; i < args.size(); ++i)
    EXPECT_TRUE(cli::take_option(cli::output_option_table(), args, i, imb)) << args[i];
  EXPECT_EQ(imb.file("test-format"), "/tmp/x.test");
  EXPECT_TRUE(imb.no_db);
  EXPECT_NE(cli::output_options_help().find("--test-format FILE"), std::string::npos);
  EXPECT_NE(cli::output_options_synopsis("  ").find("[--test-format FILE]"), std::string::npos);
}

TEST(OutputOptions, SerialisedAsOneUnitWithTheDatabaseChoice) {
  cli::OutputOptions o;
  o.files = {{"json", "/tmp/a.json"}, {"test-format", "/tmp/a.test"}};
  o.timeout_s = 3;
  o.db_path = "/tmp/a.db";
  o.label = "run A";
  const auto back = nlohmann::json::parse(nlohmann::json(o).dump()).get<cli::OutputOptions>();
  EXPECT_EQ(back.files, o.files);
  EXPECT_EQ(back.timeout_s, 3);
  EXPECT_EQ(back.db_path, "/tmp/a.db");
  EXPECT_EQ(back.label, "run A");
}

TEST(OutputOptions, CheckedOnceWithOneMessagePerMistake) {
  cli::OutputOptions o;
  EXPECT_NE(parse({"--timeout", "0"}, o).text.find("--timeout must be a number above 0"),
            std::string::npos);
  EXPECT_NE(parse({"--test-format", ""}, o).text.find("--test-format needs a file name"),
            std::string::npos);
  EXPECT_NE(parse({"--label", "two\nlines"}, o).text.find("--label takes one line"),
            std::string::npos);
  cli::OutputOptions both;
  both.db_path = "/tmp/x.db";
  both.no_db = true;
  EXPECT_THROW(both.validate(), std::invalid_argument);
  cli::OutputOptions same;
  same.files = {{"csv", "/tmp/same"}, {"test-format", "/tmp/./same"}};
  same.no_db = true;
  try {
    same.validate();
    FAIL() << "two formats into one file";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--csv and --test-format name the same file"),
              std::string::npos)
        << e.what();
  }
}

TEST(OutputOptions, FileReportersAreMadeFromTheRegistrationAndSeeTheLabel) {
  cli::OutputOptions o;
  o.files = {{"test-format", "/tmp/unused.test"}};
  o.no_db = true;
  o.label = "labelled";
  reporters_made = 0;
  core::ReporterList list;
  cli::add_file_reporters(list, o);
  EXPECT_EQ(reporters_made, 1);
  list.run_started(core::RunInfo{});
  EXPECT_EQ(CountingReporter::label_seen, "labelled");
  EXPECT_THROW(output::create_reporter("no-such-format", "/tmp/x"), std::invalid_argument);
}

// -h is the help flag of every CLI11 suite, as --help is; the method synopsis and its help
// agree on the names.
TEST(OutputOptions, ShortHelpFlagAndOneMethodSpelling) {
  CLI::App app;
  cli::OutputOptions o;
  app.set_help_flag("--help", "Print this help and exit");
  cli::add_output_options(app, o);
  EXPECT_EQ(cli::parse_command_line(app, {"-h"}, [] { return std::string(); }).kind,
            cli::ParseResult::kHelp);
  const auto synopsis = cli::option_table_synopsis(cli::method_option_table(), "");
  EXPECT_NE(synopsis.find("[--method classic|accurate]"), std::string::npos) << synopsis;
  EXPECT_NE(cli::method_options_help().find("--method classic|accurate"), std::string::npos);
}
