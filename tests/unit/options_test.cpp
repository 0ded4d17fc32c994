#include <gtest/gtest.h>
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <fstream>

#include "suites/imb/options.hpp"

using namespace mpiscope::imb;

namespace {
const std::vector<std::string> kNames = {"PingPong", "Allreduce", "Barrier"};

std::string temp_file(const std::string& content) {
  char name[] = "/tmp/mpiscope_opt_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << content;
  return name;
}

std::string error_of(const std::vector<std::string>& args, int world = 4) {
  try {
    parse_options(args, kNames, world);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Options, DefaultsAreImbStandardMode) {
  const auto o = parse_options({}, kNames, 4);
  EXPECT_TRUE(o.benchmarks.empty());
  EXPECT_EQ(o.npmin, 2);
  EXPECT_EQ(o.multi, -1);
  EXPECT_EQ(o.msgs_per_sample, 1000);
  EXPECT_EQ(o.overall_vol_mb, 40u);
  EXPECT_EQ(o.msgs_nonaggr, 100);
  EXPECT_DOUBLE_EQ(o.mem_gb, 1.0);
}

TEST(Options, BenchmarksAreCaseInsensitiveInAnyOrderWithFlags) {
  const auto o =
      parse_options({"allREDUCE", "-npmin", "3", "pingpong,barrier", "-multi", "1"}, kNames, 8);
  EXPECT_EQ(o.benchmarks, (std::vector<std::string>{"Allreduce", "PingPong", "Barrier"}));
  EXPECT_EQ(o.npmin, 3);
  EXPECT_EQ(o.multi, 1);
}

TEST(Options, IterTakesOneToThreeFields) {
  EXPECT_EQ(parse_options({"-iter", "2000"}, kNames, 2).msgs_per_sample, 2000);
  const auto o = parse_options({"-iter", "1000,40,150"}, kNames, 2);
  EXPECT_EQ(o.overall_vol_mb, 40u);
  EXPECT_EQ(o.msgs_nonaggr, 150);
  EXPECT_NE(error_of({"-iter", "1,2,3,4"}), "");
  EXPECT_NE(error_of({"-iter", "0"}), "");
}

TEST(Options, OffCacheForms) {
  EXPECT_DOUBLE_EQ(parse_options({"-off_cache", "-1"}, kNames, 2).off_cache_mb, -1);
  const auto o = parse_options({"-off_cache", "16,128"}, kNames, 2);
  EXPECT_DOUBLE_EQ(o.off_cache_mb, 16);
  EXPECT_EQ(o.off_cache_line, 128u);
  EXPECT_DOUBLE_EQ(parse_options({"-off_cache", "2.5"}, kNames, 2).off_cache_mb, 2.5);
  EXPECT_NE(error_of({"-off_cache", "-3"}), "");
  EXPECT_NE(error_of({"-off_cache", "x"}), "");
}

TEST(Options, MapMustDescribeTheRunningProcesses) {
  const auto o = parse_options({"-map", "2x3"}, kNames, 6);
  EXPECT_EQ(o.map_rows, 2);
  EXPECT_EQ(o.map_cols, 3);
  EXPECT_NE(error_of({"-map", "2x3"}, 4).find("6 processes, but 4"), std::string::npos);
  EXPECT_NE(error_of({"-map", "2by3"}, 6), "");
}

// Current IMB's -warm_up values (on/off and their synonyms), plus IMB 3.1's rule.
TEST(Options, WarmUpTakesCurrentImbsValuesAndImb31) {
  EXPECT_EQ(parse_options({}, kNames, 2).warm_up, "on");
  for (const char* on : {"on", "1", "enable", "YES"})
    EXPECT_EQ(parse_options({"-warm_up", on}, kNames, 2).warm_up, "on") << on;
  for (const char* off : {"off", "0", "disable", "no"})
    EXPECT_EQ(parse_options({"-warm_up", off}, kNames, 2).warm_up, "off") << off;
  EXPECT_EQ(parse_options({"-warm_up", "IMB3.1"}, kNames, 2).warm_up, "imb3.1");
  EXPECT_NE(error_of({"-warm_up", "3.1"}).find("-warm_up takes on, off or imb3.1"),
            std::string::npos);
  EXPECT_NE(error_of({"-warm_up"}).find("needs a value"), std::string::npos);
}

TEST(Options, BadValuesAreRejectedWithTheOptionNamed) {
  EXPECT_NE(error_of({"-npmin", "0"}).find("-npmin"), std::string::npos);
  EXPECT_NE(error_of({"-npmin"}).find("needs a value"), std::string::npos);
  EXPECT_NE(error_of({"-multi", "2"}).find("-multi"), std::string::npos);
  EXPECT_NE(error_of({"-time", "-1"}).find("-time"), std::string::npos);
  EXPECT_NE(error_of({"-mem", "abc"}).find("-mem"), std::string::npos);
  EXPECT_NE(error_of({"-bogus"}).find("unknown option '-bogus'"), std::string::npos);
  EXPECT_NE(error_of({"NoSuchBench", "-imb_rules", "3.1"}).find("unknown benchmark 'NoSuchBench'"),
            std::string::npos);
  EXPECT_NE(error_of({"-imb_rules", "2019"}).find("-imb_rules takes current or 3.1"),
            std::string::npos);
}

// Current IMB reports a name it does not know and runs the others (all of the default list when
// no name is known); IMB 3.1's rules refuse it (above).
TEST(Options, UnknownBenchmarksAreCarriedUnderCurrentRules) {
  const auto o = parse_options({"PingPong", "NoSuchBench,barrier"}, kNames, 2);
  EXPECT_EQ(o.benchmarks, (std::vector<std::string>{"PingPong", "Barrier"}));
  EXPECT_EQ(o.unknown_benchmarks, std::vector<std::string>{"NoSuchBench"});
  const auto none = parse_options({"Foo"}, kNames, 2);
  EXPECT_TRUE(none.benchmarks.empty());
  EXPECT_EQ(none.unknown_benchmarks, std::vector<std::string>{"Foo"});
}

// -imb_rules picks the defaults of a rule set, whatever its place on the command line; each
// option still sets its own rule over them.
TEST(Options, ImbRulesChooseTheDefaultsAndOptionsStillApply) {
  const auto current = parse_options({}, kNames, 2);
  EXPECT_EQ(current.rules, "current");
  EXPECT_EQ(current.iter_policy, "dynamic");
  EXPECT_EQ(current.warm_up, "on");
  EXPECT_FALSE(current.root_shift);
  EXPECT_TRUE(current.sync);
  const auto old = parse_options({"-iter_policy", "off", "-imb_rules", "3.1"}, kNames, 2);
  EXPECT_EQ(old.rules, "3.1");
  EXPECT_EQ(old.iter_policy, "off");  // given, whatever its place
  EXPECT_EQ(old.warm_up, "imb3.1");
  EXPECT_TRUE(old.root_shift);
  EXPECT_FALSE(old.sync);
  // Current IMB runs -include's benchmarks first, then the named ones.
  EXPECT_EQ(parse_options({"Allreduce", "-include", "PingPong"}, kNames, 2).benchmarks,
            (std::vector<std::string>{"PingPong", "Allreduce"}));
}

// Every numeric option of IMB: inf, nan, huge, negative and empty values are usage errors naming
// the option (nan and inf would not survive the JSON hand-off to the other ranks).
TEST(Options, NonFiniteHugeNegativeAndEmptyNumbersAreRejected) {
  const std::vector<std::pair<std::string, std::string>> options = {
      {"-npmin", ""},      {"-off_cache", ""}, {"-iter", ""},        {"-time", ""},
      {"-mem", ""},        {"--timeout", ""},  {"--cpu-target", ""}, {"--target-ci", ""},
      {"--budget", ""},    {"--min-reps", ""}, {"--max-reps", ""},   {"-iter", "100,"},
      {"-off_cache", "8,"}};
  for (const auto& [option, prefix] : options)
    for (const char* bad : {"inf", "nan", "1e300", "-7", "", "99999999999999999999"}) {
      const std::string e = error_of({option, prefix + bad});
      EXPECT_NE(e, "") << option << " " << prefix + bad;
    }
  // Representable -npmin beyond the processes counts as all of them (the guide); the rest fail.
  EXPECT_EQ(parse_options({"-npmin", "99999999999"}, kNames, 4).npmin, INT_MAX);
  EXPECT_NE(error_of({"-npmin", "99999999999999999999"}).find("-npmin must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of({"--cpu-target", "1e300"}).find("at most 60"), std::string::npos);
  EXPECT_NE(error_of({",,,"}).find("an empty benchmark name"), std::string::npos);
  EXPECT_NE(error_of({""}).find("an empty benchmark name"), std::string::npos);
  EXPECT_EQ(parse_options({"PingPong,,barrier"}, kNames, 4).benchmarks.size(), 2u);
  EXPECT_NE(error_of({"--json", ""}).find("--json needs a file name"), std::string::npos);
  EXPECT_NE(error_of({"--csv", ""}).find("--csv needs a file name"), std::string::npos);
}

// Accurate mode's options, each bad value named (the integration test launches one case per
// path: the shared method options, an IMB conflict, a count).
TEST(Options, BadAccurateModeOptionsAreRejectedWithTheOptionNamed) {
  const std::vector<std::string> accurate = {"--method", "accurate"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), accurate.begin(), accurate.end());
    return error_of(more);
  };
  EXPECT_NE(error_of({"--method", "fast"}).find("--method"), std::string::npos);
  EXPECT_NE(with({"--sync", "none"}).find("--sync"), std::string::npos);
  EXPECT_NE(with({"--target-ci", "0"}).find("--target-ci"), std::string::npos);
  EXPECT_NE(with({"--min-reps", "3"}).find("--min-reps"), std::string::npos);
  EXPECT_NE(with({"--min-reps", "30", "--max-reps", "20"}).find("--max-reps"), std::string::npos);
  EXPECT_NE(with({"--budget", "0"}).find("--budget"), std::string::npos);
  EXPECT_NE(with({"--sync", "own-barrier", "--time-def", "global"}).find("--time-def"),
            std::string::npos);
  EXPECT_NE(with({"-multi", "0"}).find("Multi"), std::string::npos);
  EXPECT_NE(with({"-time", "1"}).find("-time"), std::string::npos);
  EXPECT_NE(with({"--reps-per-sample", "0"}).find("--reps-per-sample"), std::string::npos);
  EXPECT_NE(with({"--reps-per-sample", "many"}).find("--reps-per-sample"), std::string::npos);
  EXPECT_EQ(with({"--reps-per-sample", "16", "--sync", "mpi-barrier"}), "");
  EXPECT_EQ(error_of({"--method", "classic"}), "");
}

TEST(LengthsFile, ReadsLengthsCommentsAndSuffixes) {
  const auto path = temp_file("# lengths\n0\n100\n\n  1000 \n4k\n1M\n");
  EXPECT_EQ(read_lengths_file(path), (std::vector<std::size_t>{0, 100, 1000, 4096, 1048576}));
  std::remove(path.c_str());
}

TEST(LengthsFile, ErrorsNameFileAndLine) {
  const auto bad = temp_file("0\nabc\n");
  try {
    read_lengths_file(bad);
    FAIL() << "malformed file accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_lengths_file(temp_file("-5\n")), UsageError);
  EXPECT_THROW(read_lengths_file(temp_file("99999999999\n")), UsageError);
  EXPECT_THROW(read_lengths_file(temp_file("# nothing\n")), UsageError);
  EXPECT_THROW(read_lengths_file("/nonexistent/lengths"), UsageError);
}

TEST(SelectionFile, OneNamePerLine) {
  const auto path = temp_file("#\n# IMB benchmark selection file\n#Barrier\nPingPong\nallreduce\n");
  const auto o = parse_options({"-input", path}, kNames, 2);
  EXPECT_EQ(o.benchmarks, (std::vector<std::string>{"PingPong", "Allreduce"}));
  EXPECT_NE(error_of({"-input", temp_file("Pingpong\nNope\n")}).find("'Nope'"), std::string::npos);
}

TEST(Options, SerializationRoundTrip) {
  const auto o = parse_options({"-iter", "10,2,3", "-time", "0.5", "-check", "--json", "x.json",
                                "--db", "x.db", "--label", "l", "pingpong"},
                               kNames, 2);
  const Options back = nlohmann::json(o).get<Options>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(o));
  EXPECT_TRUE(back.check);
  // The shared output options travel as one unit, the database choice with them.
  EXPECT_EQ(back.output.file("json"), "x.json");
  EXPECT_EQ(back.output.db_path, "x.db");
  EXPECT_EQ(back.output.label, "l");
}

// Current IMB's -iter_policy, -imb_barrier, -thread_level and -window_size; current IMB's behaviour
// by default, and -thread_level read before MPI starts (a wrong value asks for single, and the
// parser then rejects it).
TEST(Options, CurrentImbIterPolicyBarrierThreadLevelAndWindow) {
  const auto d = parse_options({}, kNames, 2);
  EXPECT_EQ(d.iter_policy, "dynamic");
  EXPECT_FALSE(d.imb_barrier);
  EXPECT_EQ(d.thread_level, "single");
  EXPECT_EQ(d.window_size, 256);
  for (const char* p : {"dynamic", "multiple_np", "auto", "off", "imb3.1"})
    EXPECT_EQ(parse_options({"-iter_policy", p}, kNames, 2).iter_policy, p);
  EXPECT_EQ(parse_options({"-iter_policy", "OFF"}, kNames, 2).iter_policy, "off");
  EXPECT_TRUE(parse_options({"-imb_barrier", "on"}, kNames, 2).imb_barrier);
  EXPECT_EQ(parse_options({"-thread_level", "Multiple"}, kNames, 2).thread_level, "multiple");
  EXPECT_EQ(parse_options({"-window_size", "64"}, kNames, 2).window_size, 64);
  EXPECT_NE(error_of({"-iter_policy", "sometimes"}).find("-iter_policy takes dynamic"),
            std::string::npos);
  EXPECT_NE(error_of({"-imb_barrier", "maybe"}).find("-imb_barrier takes on or off"),
            std::string::npos);
  EXPECT_NE(error_of({"-thread_level", "many"}).find("-thread_level takes single"),
            std::string::npos);
  EXPECT_NE(error_of({"-window_size", "0"}).find("-window_size"), std::string::npos);
  EXPECT_NE(error_of({"-thread_level"}).find("needs a value"), std::string::npos);

  EXPECT_EQ(requested_thread_level({}), MPI_THREAD_SINGLE);
  EXPECT_EQ(requested_thread_level({"PingPong", "-thread_level", "serialized"}),
            MPI_THREAD_SERIALIZED);
  EXPECT_EQ(requested_thread_level({"-thread_level", "MULTIPLE"}), MPI_THREAD_MULTIPLE);
  EXPECT_EQ(requested_thread_level({"-thread_level", "many"}), MPI_THREAD_SINGLE);
  EXPECT_EQ(requested_thread_level({"-thread_level"}), MPI_THREAD_SINGLE);

  const auto o = parse_options({"-iter_policy", "auto", "-imb_barrier", "yes", "-thread_level",
                                "funneled", "-window_size", "8"},
                               kNames, 2);
  EXPECT_EQ(nlohmann::json(nlohmann::json(o).get<Options>()), nlohmann::json(o));
}
