// PRESTA's command lines: the README's defaults, its required arguments, and bad values.
#include <gtest/gtest.h>

#include "suites/presta/options.hpp"

using namespace mpiscope;
using namespace mpiscope::presta;

namespace {
cli::ParseResult parse_args(const std::vector<std::string>& args, int world = 8) {
  return parse(args, world, "mpiscope presta");
}
Options parsed(const std::vector<std::string>& args, int world = 8) {
  const auto r = parse_args(args, world);
  EXPECT_EQ(r.kind, cli::ParseResult::kRun) << r.text;
  return nlohmann::json::parse(r.text).get<Options>();
}
std::string error_of(const std::vector<std::string>& args, int world = 8) {
  try {
    const auto r = parse_args(args, world);
    return r.kind == cli::ParseResult::kError ? r.text : "no error";
  } catch (const std::exception& e) {
    return e.what();
  }
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST(PrestaOptions, ComDefaultsAreTheReadmes) {
  const Options o = parsed({"com", "-o", "5"});
  EXPECT_EQ(o.test, presta::Test::kCom);
  EXPECT_EQ(o.size_start, 32);
  EXPECT_EQ(o.size_stop, 8388608);
  EXPECT_EQ(o.size_factor, 2);
  EXPECT_EQ(o.ops, 5);
  EXPECT_EQ(o.allocation, 'b');
  EXPECT_TRUE(o.barrier);
  EXPECT_FALSE(o.print_pairs);
  EXPECT_FALSE(o.nearest);
  EXPECT_EQ(o.process_counts, (std::vector<int>{2, 4, 6, 8}));
}

TEST(PrestaOptions, EveryPairOptionIsRead) {
  const Options o = parsed({"rma", "-b", "8", "-e", "64", "-s", "4", "-o", "3", "-c", "2", "-t",
                            "2", "-p", "c", "-i", "-n", "-r"});
  EXPECT_EQ(o.size_start, 8);
  EXPECT_EQ(o.size_stop, 64);
  EXPECT_EQ(o.size_factor, 4);
  EXPECT_EQ(o.ops, 3);
  EXPECT_EQ(o.epochs, 2);
  EXPECT_EQ(o.procs_per_smp, 2);
  EXPECT_EQ(o.allocation, 'c');
  EXPECT_TRUE(o.print_pairs);
  EXPECT_FALSE(o.barrier);
  EXPECT_TRUE(o.nearest);
  EXPECT_EQ(o.process_counts, (std::vector<int>{4, 8}));
}

TEST(PrestaOptions, AllredTakesThreeNumbers) {
  const Options o = parsed({"allred", "100", "10", "5"});
  EXPECT_EQ(o.compute_iterations, 100);
  EXPECT_EQ(o.inner_iterations, 10);
  EXPECT_EQ(o.samples, 5);
  EXPECT_EQ(parsed({"allred", "0", "10", "5"}).compute_iterations, 0);  // no compute phase
  EXPECT_TRUE(has(error_of({"allred", "100", "10"}), "allred takes 3 arguments"));
  EXPECT_TRUE(has(error_of({"allred", "100", "0", "5"}), "allred takes 3 arguments"));
  EXPECT_TRUE(has(error_of({"allred", "-1", "10", "5"}), "allred takes 3 arguments"));
}

TEST(PrestaOptions, RequiredArgumentsAreEnforced) {
  EXPECT_TRUE(has(error_of({"com"}), "com requires -o (number of operations between"));
  EXPECT_TRUE(has(error_of({"laten"}), "laten requires -o"));
  EXPECT_TRUE(has(error_of({"rma", "-c", "2"}), "rma requires -o (number of operations per epoch"));
  EXPECT_TRUE(has(error_of({"rma", "-o", "2"}), "rma requires -c (number of epochs"));
  EXPECT_TRUE(has(error_of({}), "name a PRESTA test"));
}

TEST(PrestaOptions, BadValuesAreRejected) {
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-p", "x"}), "-p takes b (block) or c (cyclic)"));
  EXPECT_TRUE(has(error_of({"com", "-o", "0"}), "requires -o"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-s", "1"}),
                  "-s (message size increase factor) must be 2 or more"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-b", "64", "-e", "32"}), "is smaller than -b"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-e", "4294967296"}), "largest MPI message"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-t", "0"}), "-t (processes per SMP) must be"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-p", "c"}), "needs the processes per SMP (-t)"));
  EXPECT_TRUE(has(error_of({"com", "-o", "many"}), "many"));
  EXPECT_TRUE(has(error_of({"laten", "-o", "5", "-b", "32"}), "-b"));  // laten has no sizes
  EXPECT_TRUE(has(error_of({"ping"}), "unknown PRESTA test 'ping'"));
  EXPECT_TRUE(has(error_of({"com", "-o", "5", "-f", "/nonexistent/counts"}),
                  "/nonexistent/counts: cannot read a -f process count file"));
}

TEST(PrestaOptions, HelpListsTheReadmeOptions) {
  const auto r = parse_args({"com", "-h"});
  ASSERT_EQ(r.kind, cli::ParseResult::kHelp);
  for (const char* flag : {"-b", "-e", "-f", "-o", "-p", "-s", "-t", "-i", "-n", "-r", "--json"})
    EXPECT_TRUE(has(r.text, flag)) << flag;
  EXPECT_TRUE(has(r.text, "default=8388608"));
  EXPECT_EQ(parse_args({"--help"}).kind, cli::ParseResult::kHelp);
}
