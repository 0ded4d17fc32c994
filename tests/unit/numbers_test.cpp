// The shared numeric-option checks (cli/numbers.hpp) and the CLI11 front ends that use them: inf,
// nan, huge, negative and empty values are one usage error, never a value JSON cannot carry.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/suite_cli.hpp"
#include "core/text.hpp"

using namespace mpiscope;

namespace {
std::string number_error(const std::string& text, const cli::NumberRange& range) {
  try {
    cli::parse_number(text, "--x", range);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

template <class Int>
std::string integer_error(const std::string& text, Int min, Int max) {
  try {
    cli::parse_integer<Int>(text, "--n", min, max);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A CLI11 app with the shared output and method options plus one option checked by `v`.
std::string cli_error(const std::vector<std::string>& args, CLI::Validator v = {}) {
  CLI::App app;
  cli::OutputOptions output;
  cli::MethodOptions method;
  double value = 0;
  cli::add_output_options(app, output);
  cli::add_method_options(app, method);
  app.add_option("--value", value)->check(v);
  const auto r = cli::parse_command_line(app, args, [] { return std::string("ok"); });
  return r.kind == cli::ParseResult::kError ? r.text : "";
}
}  // namespace

TEST(Numbers, OnlyFiniteDecimalNumbersWithinTheRange) {
  const cli::NumberRange r{0, 100, true};
  EXPECT_DOUBLE_EQ(cli::parse_number("2.5", "--x", r), 2.5);
  EXPECT_DOUBLE_EQ(cli::parse_number("1e2", "--x", r), 100);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e300", "1e400", "-1", "0", "",
                          " 1", "1 ", "0x10", "+1", "1,5", "abc"})
    EXPECT_EQ(number_error(bad, r),
              std::string("--x must be a number above 0 and at most 100, got '") + bad + "'")
        << bad;
}

TEST(Numbers, RangesAreWrittenShortly) {
  EXPECT_EQ((cli::NumberRange{1e-3, 1e4}).text(), "from 0.001 to 10000");
  EXPECT_EQ(cli::kPositiveSeconds.text(), "above 0 and at most 604800");
  EXPECT_EQ((cli::NumberRange{0, 1e300}).text(), "from 0 to 1e+300");
  EXPECT_EQ(number_error("nan", cli::kAnyNumber), "--x must be a number, got 'nan'");
  EXPECT_THROW(cli::check_number(std::numeric_limits<double>::quiet_NaN(), "--x", cli::kAnyNumber),
               std::invalid_argument);
}

TEST(Numbers, IntegersThatDoNotFitAreErrorsNotWrappedOrSaturated) {
  EXPECT_EQ(cli::parse_integer<int>("42", "--n", 1, 100), 42);
  EXPECT_EQ(cli::parse_integer<std::uint64_t>("18446744073709551615", "--n", 0, UINT64_MAX),
            UINT64_MAX);
  EXPECT_NE(integer_error<std::uint64_t>("-1", 0, UINT64_MAX).find("--n must be an integer"),
            std::string::npos);
  EXPECT_NE(integer_error<std::uint64_t>("18446744073709551616", 0, UINT64_MAX), "");
  EXPECT_NE(integer_error<long long>("99999999999999999999", 1, LLONG_MAX), "");
  EXPECT_EQ(integer_error<int>("nan", INT_MIN, INT_MAX), "--n must be an integer, got 'nan'");
  EXPECT_EQ(integer_error<int>("3000000000", INT_MIN, INT_MAX),
            "--n must be an integer from -2147483648 to 2147483647, got '3000000000'");
  for (const char* bad : {"", "1.5", "1e3", "nan", "0x10", " 7", "101", "0"})
    EXPECT_EQ(integer_error<int>(bad, 1, 100),
              std::string("--n must be an integer from 1 to 100, got '") + bad + "'")
        << bad;
}

TEST(Numbers, SharedCli11OptionsRejectWhatJsonCannotCarry) {
  for (const char* bad : {"nan", "inf", "1e300", "-1", "0", ""})
    EXPECT_NE(cli_error({"--timeout", bad}).find("--timeout"), std::string::npos) << bad;
  EXPECT_EQ(cli_error({"--timeout", "3"}), "");
  for (const char* bad : {"nan", "inf", "1e300", "-1", ""})
    EXPECT_NE(cli_error({"--budget", bad}).find("--budget"), std::string::npos) << bad;
  for (const char* bad : {"nan", "inf", "-5", "101", ""})
    EXPECT_NE(cli_error({"--target-ci", bad}).find("--target-ci"), std::string::npos) << bad;
  for (const char* bad : {"99999999999", "1.5", "nan", "-3"}) {
    EXPECT_NE(cli_error({"--min-reps", bad}), "") << bad;
    EXPECT_NE(cli_error({"--max-reps", bad}), "") << bad;
  }
  EXPECT_NE(cli_error({"--value", "nan"}, cli::number_in({1e-3, 1e4})).find("from 0.001 to 10000"),
            std::string::npos);
  EXPECT_NE(cli_error({"--value", "-1"}, cli::integer_in<std::uint64_t>(0, UINT64_MAX)), "");
}

TEST(Numbers, OutputPathsMustBeNamedAndDistinct) {
  EXPECT_NE(cli_error({"--json", ""}).find("needs a file name"), std::string::npos);
  EXPECT_NE(cli_error({"--csv", ""}).find("needs a file name"), std::string::npos);
  EXPECT_THROW(cli::check_distinct_outputs({{"json", "/tmp/r"}, {"csv", "/tmp/./r"}}),
               std::invalid_argument);
  EXPECT_NO_THROW(cli::check_distinct_outputs({{"json", "/tmp/r.json"}, {"csv", "/tmp/r.csv"}}));
  EXPECT_NO_THROW(cli::check_distinct_outputs({{"csv", "/tmp/r.csv"}}));
}

TEST(Printable, ControlCharactersAreEscaped) {
  EXPECT_EQ(core::printable("a\x1b[31mred\r\x7f"), "a\\x1B[31mred\\x0D\\x7F");
  EXPECT_EQ(core::printable("line\nnext\ttab"), "line\nnext\ttab");
  EXPECT_EQ(core::printable("\xc2\x9b"
                            "2J"),
            "\\xC2\\x9B2J");                                                     // C1 CSI as UTF-8
  EXPECT_EQ(core::printable("caf\xc3\xa9 \xc2\xb5s"), "caf\xc3\xa9 \xc2\xb5s");  // é, µ kept
}
