// Bad input: one clear message from rank 0, a non-zero exit, and no rank left hanging.
#include <gtest/gtest.h>

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
        BadInput{"UnknownBenchmark", {"PingPang"}, "unknown benchmark 'PingPang'"},
        BadInput{"MissingValue", {"PingPong", "-msglen"}, "option -msglen needs a value"},
        BadInput{"MissingLengthsFile", {"-msglen", "{dir}/nope"}, "cannot read -msglen file"},
        BadInput{"MalformedLengths",
                 {"-msglen", "{dir}/letters"},
                 "letters:2: 'abc' is not a message length"},
        BadInput{"NegativeLength",
                 {"-msglen", "{dir}/negative"},
                 "negative:2: negative message length -5"},
        BadInput{"AbsurdLength", {"-msglen", "{dir}/huge"}, "exceeds the largest MPI message"},
        BadInput{"EmptyLengths", {"-msglen", "{dir}/empty"}, "contains no message length"},
        BadInput{"MissingInputFile", {"-input", "{dir}/nope"}, "cannot read -input file"},
        BadInput{"BadNameInInputFile",
                 {"-input", "{dir}/select"},
                 "unknown benchmark 'NoSuchBenchmark'"},
        BadInput{
            "MapDoesNotFit", {"-map", "2x2"}, "-map 2x2 describes 4 processes, but 3 are running"},
        BadInput{"MalformedMap", {"-map", "2-2"}, "-map takes PxQ"},
        BadInput{"NpminZero", {"-npmin", "0"}, "-npmin must be a positive integer"},
        BadInput{"MultiTwo", {"-multi", "2"}, "-multi takes 0 or 1"},
        BadInput{"IterNotANumber", {"-iter", "many"}, "-iter msgspersample needs an integer"},
        BadInput{"NegativeTime", {"-time", "-2"}, "-time must be a positive number"},
        BadInput{"MemNotANumber", {"-mem", "lots"}, "-mem needs a number"},
        BadInput{"OffCacheNegative", {"-off_cache", "-5"}, "-off_cache size must be -1"},
        BadInput{"UnwritableJson",
                 {"--json", "/nonexistent-dir/r.json"},
                 "cannot write '/nonexistent-dir/r.json'"},
        BadInput{"UnwritableCsv", {"--csv", "{dir}"}, "cannot write"},
        BadInput{"BadTimeout", {"--timeout", "0"}, "--timeout must be a positive number"},
        BadInput{"InputIsADirectory", {"-input", "{dir}"}, "is a directory"},
        BadInput{"LengthsIsADirectory", {"-msglen", "{dir}"}, "is a directory"},
        BadInput{"EmptyInputFile", {"-input", "{dir}/empty"}, "contains no benchmark name"},
        BadInput{"OffCacheLargerThanAnyCache", {"-off_cache", "1e7"}, "larger than any cache"},
        BadInput{"HexadecimalMem", {"-mem", "0x10"}, "-mem needs a number"},
        BadInput{"EmptyBenchmarkName", {""}, "an empty benchmark name"}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(RejectsBadInput, UnknownSuite) {
  const auto r = run_mpi(2, {"imb-mpi9"}, "", 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_of(r.err, "unknown suite 'imb-mpi9'"), 1) << r.err;
}

}  // namespace
