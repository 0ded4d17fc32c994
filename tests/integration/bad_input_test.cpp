// Bad input: one clear message from rank 0, a non-zero exit, and no rank left hanging.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "harness.hpp"

using namespace harness;

namespace {

struct BadInput {
  const char* label;
  std::vector<std::string> args;  // after "imb-mpi1"; "{dir}" is replaced by a fresh folder
  const char* message;            // what the one error line must say
};

std::ostream& operator<<(std::ostream& os, const BadInput& b) {
  return os << b.label;
}

class RejectsBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(RejectsBadInput, OneMessageFromRankZeroAndNonZeroExit) {
  const auto dir = temp_dir();
  write_file(dir, "letters", "0\nabc\n");
  write_file(dir, "negative", "16\n-5\n");
  write_file(dir, "huge", "99999999999\n");
  write_file(dir, "empty", "# nothing here\n");
  write_file(dir, "select", "PingPong\nNoSuchBenchmark\n");
  std::vector<std::string> args = {"imb-mpi1"};
  for (auto a : GetParam().args) {
    if (auto p = a.find("{dir}"); p != std::string::npos) a.replace(p, 5, dir);
    args.push_back(a);
  }
  const auto r = run_mpi(3, args, "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 30) << "a rank was left waiting";
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("# Benchmarking"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    ImbMpi1, RejectsBadInput,
    ::testing::Values(
        BadInput{"UnknownFlag", {"-npmax", "4"}, "unknown option '-npmax'"},
        // IMB 3.1's rules; current IMB's report the name and run the others (ImbRules).
        BadInput{
            "UnknownBenchmark", {"PingPang", "-imb_rules", "3.1"}, "unknown benchmark 'PingPang'"},
        BadInput{"MissingValue", {"PingPong", "-msglen"}, "option -msglen needs a value"},
        BadInput{"MissingLengthsFile", {"-msglen", "{dir}/nope"}, "cannot read a -msglen file"},
        BadInput{"MalformedLengths",
                 {"-msglen", "{dir}/letters"},
                 "letters:2: 'abc' is not a message length"},
        BadInput{"NegativeLength",
                 {"-msglen", "{dir}/negative"},
                 "negative:2: negative message length -5"},
        BadInput{"AbsurdLength", {"-msglen", "{dir}/huge"}, "exceeds the largest MPI message"},
        BadInput{"EmptyLengths", {"-msglen", "{dir}/empty"}, "contains no message length"},
        BadInput{"MissingInputFile", {"-input", "{dir}/nope"}, "cannot read an -input file"},
        BadInput{"BadNameInInputFile",
                 {"-input", "{dir}/select"},
                 "unknown benchmark 'NoSuchBenchmark'"},
        BadInput{
            "MapDoesNotFit", {"-map", "2x2"}, "-map 2x2 describes 4 processes, but 3 are running"},
        BadInput{"MalformedMap", {"-map", "2-2"}, "-map takes PxQ"},
        BadInput{"NpminZero", {"-npmin", "0"}, "-npmin must be an integer from 1"},
        BadInput{"MultiTwo", {"-multi", "2"}, "-multi takes 0 or 1"},
        BadInput{"IterNotANumber", {"-iter", "many"}, "-iter msgspersample must be an integer"},
        BadInput{"NegativeTime", {"-time", "-2"}, "-time must be a number above 0"},
        BadInput{"MemNotANumber", {"-mem", "lots"}, "-mem must be a number"},
        BadInput{"OffCacheNegative",
                 {"-off_cache", "-5"},
                 "-off_cache size must be a number from -1 to 16384"},
        BadInput{"UnwritableJson",
                 {"--json", "/nonexistent-dir/r.json"},
                 "cannot write '/nonexistent-dir/r.json'"},
        BadInput{"UnwritableCsv", {"--csv", "{dir}"}, "cannot write"},
        BadInput{"BadTimeout", {"--timeout", "0"}, "--timeout must be a number above 0"},
        BadInput{"InputIsADirectory", {"-input", "{dir}"}, "is a directory"},
        BadInput{"LengthsIsADirectory", {"-msglen", "{dir}"}, "is a directory"},
        BadInput{"EmptyInputFile", {"-input", "{dir}/empty"}, "contains no benchmark name"},
        BadInput{"OffCacheLargerThanAnyCache", {"-off_cache", "1e7"}, "from -1 to 16384"},
        BadInput{"HexadecimalMem", {"-mem", "0x10"}, "-mem must be a number"},
        BadInput{"EmptyBenchmarkName", {""}, "an empty benchmark name"}),
    [](const auto& test) { return std::string(test.param.label); });

// Every suite: inf, nan, huge, negative and empty numbers, unreadable input files and clashing
// outputs are one message from rank 0 and exit 2, before the options reach the other ranks (nan
// and inf do not survive the JSON hand-off; every rank used to print a JSON type error).
struct BadRun {
  const char* label;
  std::vector<std::string> args;  // the whole command line; "{dir}" is a fresh folder
  const char* message;
  const char* env = "";
};

std::ostream& operator<<(std::ostream& os, const BadRun& b) {
  return os << b.label;
}

class RejectsBadRun : public ::testing::TestWithParam<BadRun> {};

TEST_P(RejectsBadRun, OneMessageFromRankZeroAndExitTwo) {
  const auto dir = temp_dir();
  write_file(dir, "ok.skampi",
             "@MEMORY 64\n@OUTFILE " + dir + "/ok.out\n@LOGFILE " + dir +
                 "/ok.log\n@MEASUREMENTS\nA\n{\n  Type = 1;\n}\n");
  write_file(dir, "huge-memory.skampi",
             "@MEMORY 99999999999999999999\n@MEASUREMENTS\nA\n{\n  Type = 1;\n}\n");
  write_file(dir, "garbage", "no SKaMPI here\n\x01\x02\n");
  write_file(dir, "binary", "\x1b[31mRed\n");
  // Issue 29: option files that are not text. 300 MB of NUL bytes (sparse: nothing is written),
  // NUL and C1 bytes, a long line, a pipe, a SKaMPI suite named with terminal escapes.
  std::filesystem::resize_file(write_file(dir, "huge-nul", ""), 300u << 20);
  write_file(dir, "nul", std::string("16\n\0\0\0\n", 6));
  write_file(dir, "c1",
             "PingPong\nPing\x9b"
             "2J\n");
  write_file(dir, "long-line", std::string(5000, '1') + "\n");
  mkfifo((dir + "/fifo").c_str(), 0600);
  write_file(dir, "escape.skampi", "@MEASUREMENTS\nA\x1b[31m\x07\n{\n  Type = 1;\n}\n");
  std::vector<std::string> args;
  for (auto a : GetParam().args) {
    if (auto p = a.find("{dir}"); p != std::string::npos) a.replace(p, 5, dir);
    args.push_back(a);
  }
  const auto r = run_mpi(2, args, GetParam().env, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 30) << "a rank was left waiting";
  EXPECT_EQ(count_of(r.err, "error"), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "a control character reached the terminal";
  EXPECT_EQ(r.err.find('\x9b'), std::string::npos) << "a C1 control reached the terminal";
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << "a control character reached the terminal";
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "a control character reached the terminal";
}

INSTANTIATE_TEST_SUITE_P(
    EverySuite, RejectsBadRun,
    ::testing::Values(
        BadRun{"BeffNegativeSeed", {"beff", "--seed", "-1"}, "--seed: must be an integer from 0"},
        BadRun{"BeffNanLoopTime", {"beff", "--loop-time", "nan"}, "from 0.001 to 10000"},
        BadRun{"BeffInfiniteBudget",
               {"beff", "--method", "accurate", "--budget", "inf"},
               "--budget must be a number above 0 and at most 604800, got 'inf'"},
        BadRun{"BeffEmptyJson", {"beff", "--json", ""}, "--json needs a file name"},
        BadRun{"BeffJsonAndCsvOnOneFile",
               {"beff", "--json", "{dir}/r", "--csv", "{dir}/./r"},
               "--json and --csv name the same file"},
        BadRun{"BeffioHugeTime",
               {"beffio", "-T", "1e300", "--io-dir", "{dir}"},
               "-T/--time must be a number above 0 and at most 604800, got '1e300'"},
        BadRun{"BeffioNanSize",
               {"beffio", "--io-dir", "{dir}", "--disk-limit", "nan"},
               "--disk-limit: 'nan' is not a size"},
        BadRun{"SkampiInfiniteTimeout",
               {"skampi", "--timeout", "inf", "{dir}/ok.skampi"},
               "--timeout must be a number above 0"},
        BadRun{"SkampiMemoryOverflow",
               {"skampi", "{dir}/huge-memory.skampi"},
               "@MEMORY (KBytes) must be an integer from 1 to 1073741824"},
        BadRun{"SkampiConfigIsADirectory",
               {"skampi", "{dir}"},
               "is a directory, not a SKaMPI configuration file"},
        BadRun{"SkampiPostprocOfGarbage",
               {"skampi", "postproc", "-o", "{dir}/m", "{dir}/garbage"},
               "garbage:2: byte 15 is \\x01, not text: a SKaMPI output file must be"},
        BadRun{"SkampiPostprocOfADirectory",
               {"skampi", "postproc", "-o", "{dir}/m", "{dir}"},
               "is a directory, not a SKaMPI output file"},
        BadRun{"SkampiOutfileNotSkampis",
               {"skampi", "--outfile", "{dir}/garbage", "{dir}/ok.skampi"},
               "garbage:2: byte 15 is \\x01, not text"},
        BadRun{"PrestaNanOperations",
               {"presta", "com", "-o", "nan"},
               "-o: must be an integer, got 'nan'"},
        BadRun{"ImbIoHugeCpuTarget",
               {"imb-io", "--cpu-target", "1e300"},
               "--cpu-target must be a number above 0 and at most 60"},
        BadRun{"ImbNpminBeyondAnyInteger",
               {"imb-mpi1", "-npmin", "99999999999999999999", "PingPong"},
               "-npmin must be an integer from 1"},
        BadRun{"ImbOnlyCommas", {"imb-mpi1", ",,,"}, "an empty benchmark name"},
        BadRun{"ImbEmptyJson", {"imb-mpi1", "--json", ""}, "--json needs a file name"},
        BadRun{"ImbJsonAndCsvOnOneFile",
               {"imb-mpi1", "--json", "{dir}/r", "--csv", "{dir}/r"},
               "--json and --csv name the same file"},
        BadRun{"BinaryInputFileIsEscaped",
               {"imb-mpi1", "-input", "{dir}/binary"},
               "binary:1: byte 0 is \\x1B (ESC), not text"},
        BadRun{"ImbHugeInputFileOfNulBytes",
               {"imb-mpi1", "-input", "{dir}/huge-nul"},
               "huge-nul: 314572800 bytes, more than an -input file (benchmark names) can be"},
        BadRun{"ImbHugeLengthsFileOfNulBytes",
               {"imb-mpi1", "-msglen", "{dir}/huge-nul"},
               "huge-nul: 314572800 bytes, more than a -msglen file (message lengths) can be"},
        BadRun{"ImbLengthsWithNulBytes",
               {"imb-mpi1", "-msglen", "{dir}/nul"},
               "nul:2: byte 3 is \\x00 (NUL), not text: a -msglen file (message lengths) must be "
               "UTF-8 text without control characters"},
        BadRun{"ImbInputWithAC1Control",
               {"imb-mpi1", "-input", "{dir}/c1"},
               "c1:2: byte 13 is \\x9B, not text"},
        BadRun{"ImbInputWithALongLine",
               {"imb-mpi1", "-input", "{dir}/long-line"},
               "long-line:1: a line longer than 4096 bytes"},
        BadRun{"ImbInputFromAPipe",
               {"imb-mpi1", "-input", "{dir}/fifo"},
               "fifo: is a pipe, not an -input file"},
        BadRun{"ImbLengthsFromADevice",
               {"imb-mpi1", "-msglen", "/dev/zero"},
               "/dev/zero: is a character device, not a -msglen file"},
        BadRun{"SkampiSuiteNamedWithTerminalEscapes",
               {"skampi", "{dir}/escape.skampi"},
               "escape.skampi:2: byte 15 is \\x1B (ESC), not text"},
        BadRun{"PrestaCountFileWithNulBytes",
               {"presta", "com", "-o", "4", "-f", "{dir}/nul"},
               "nul:2: byte 3 is \\x00 (NUL), not text"},
        BadRun{"OsuEmptySizes", {"osu", "osu_latency", "-m", ""}, "Invalid Message Size [-m ]"},
        BadRun{"OsuMemoryLimitZero",
               {"osu", "osu_allreduce", "-M", "0"},
               "Invalid Memory Limit [-M 0]"},
        BadRun{"OsuMemoryLimitNegative",
               {"osu", "osu_allreduce", "-M", "-1"},
               "Invalid Memory Limit [-M -1]"},
        BadRun{"BeffioEmptyPartition",
               {"beffio", "-N", "1,,2", "--io-dir", "{dir}"},
               "-N/--partitions (in '1,,2') must be an integer"},
        BadRun{"SuiteLabelTooLong",
               {"imb-mpi1", "--label", std::string(300, 'x')},
               "--label takes at most 256 bytes, got 300"},
        BadRun{"NoHomeForTheDatabase",
               {"imb-mpi1", "PingPong"},
               "no location for the results database",
               "MPISCOPE_DB= HOME= XDG_DATA_HOME="}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(RejectsBadInput, CompareGateAndImportOfADirectory) {
  const auto nan_gate = run_plain({"compare", "last-1", "last", "--fail-above", "nan"});
  EXPECT_EQ(nan_gate.exit_code, 2) << nan_gate.err;
  EXPECT_NE(nan_gate.err.find("--fail-above"), std::string::npos) << nan_gate.err;
  const auto dir = temp_dir();
  const auto import = run_plain({"import", "--db", dir + "/db.sqlite", dir});
  EXPECT_EQ(import.exit_code, 2) << import.err;
  EXPECT_EQ(count_of(import.err, "is a directory, not an IMB, OSU or SKaMPI output file"), 1)
      << import.err;
}

// --timeout covers the set-up between measurement points: a rank stopped (SIGSTOP, so its own
// watchdog thread stops too) before the communicators of the 3-process layout used to hang the
// run; rank 0's watchdog now ends it, naming the phase.
TEST(Timeout, CoversTheProcessSetSetUpOfAStoppedRank) {
  const auto lengths = write_file(temp_dir(), "l", "0\n");
  const auto r = run_mpi(
      3,
      {"imb-mpi1", "Sendrecv", "-npmin", "2", "-iter", "10", "-msglen", lengths, "--timeout", "3"},
      "MPISCOPE_FAULT=stop-setup:3:1", 60);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 124) << "the harness had to kill the run";
  EXPECT_LT(r.seconds, 30);
  EXPECT_EQ(
      count_of(r.err, "timeout: setting up Sendrecv on 3 processes did not finish within 3 s"), 1)
      << r.err;
}

TEST(RejectsBadInput, UnknownSuite) {
  const auto r = run_mpi(2, {"imb-mpi9"}, "", 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_of(r.err, "unknown suite 'imb-mpi9'"), 1) << r.err;
}

}  // namespace
