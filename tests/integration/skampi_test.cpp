// mpiscope skampi: the real launcher, several ranks, short configurations.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "harness.hpp"

using namespace harness;

namespace {

// The output file format as docs/skampi.md describes it, read independently of the suite's
// own reader.
struct Row {
  long argument = 0, bytes = 0;
  int nprocs = 0, chunks = 0;
  double t_us = 0, stderr_us = 0, raw_us = 0, empty_us = 0;
  int repetitions = 0, used = 0, converged = 0;
  long defects = 0;
  std::vector<double> node_times_us;
};
struct Suite {
  std::string name;
  std::map<std::string, std::string> params;
  std::vector<Row> rows;
};
struct OutputFile {
  bool complete = false;
  std::vector<Suite> suites;
  std::string torn_suite;
};
OutputFile parse_output(const std::string& text, const std::string&) {
  OutputFile f;
  std::istringstream in(text);
  std::string line;
  Suite cur;
  bool inside = false;
  std::getline(in, line);
  EXPECT_EQ(line, "#SKAMPI-OUTPUT 1");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("@BEGIN_SUITE ", 0) == 0) {
      cur = Suite{line.substr(13), {}, {}};
      inside = true;
    } else if (line.rfind("@END_SUITE ", 0) == 0) {
      f.suites.push_back(cur);
      inside = false;
    } else if (line == "@END_RUN") {
      f.complete = true;
    } else if (line.rfind("@PARAM ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      cur.params[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (line[0] != '@') {
      std::istringstream r(line);
      Row p;
      std::string nodes;
      if (!(r >> p.argument >> p.bytes >> p.nprocs >> p.chunks >> p.t_us >> p.stderr_us >>
            p.raw_us >> p.empty_us >> p.repetitions >> p.used >> p.converged >> p.defects >> nodes))
        continue;  // torn
      std::stringstream ns(nodes == "-" ? "" : nodes);
      std::string x;
      while (std::getline(ns, x, ',')) p.node_times_us.push_back(std::stod(x));
      cur.rows.push_back(p);
    }
  }
  if (inside) f.torn_suite = cur.name;
  return f;
}

const std::string kData = MPISCOPE_TEST_DATA;

std::vector<std::string> run_args(const std::string& config, const std::string& dir) {
  return {"skampi", config, "--outfile", dir + "/skampi.out", "--logfile", dir + "/skampi.log"};
}

const char* kShort = "  Max_Repetition = 3;\n  Min_Repetition = 2;\n  Standard_error = 0.5;\n";

std::string suite(const std::string& name, const std::string& fields) {
  return name + "\n{\n" + fields + kShort + "}\n";
}

}  // namespace

TEST(SkampiRun, EveryInstanceRunsOnFourProcesses) {
  const auto dir = temp_dir();
  auto args = run_args(kData + "/skampi/all_instances.skampi", dir);
  args.insert(args.end(), {"--json", dir + "/r.json"});
  const auto r = run_mpi(4, args, "", 240);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const OutputFile f = parse_output(read_file(dir + "/skampi.out"), "out");
  EXPECT_TRUE(f.complete);
  ASSERT_EQ(f.suites.size(), 49u);
  for (const auto& s : f.suites) {
    ASSERT_FALSE(s.rows.empty()) << s.name;
    for (const auto& p : s.rows) {
      EXPECT_EQ(p.defects, 0) << s.name;
      EXPECT_GE(p.repetitions, 2) << s.name;
      EXPECT_LE(p.repetitions, 3) << s.name;
      // What is reported is the cut mean minus the empty measurement (each printed rounded, so
      // the tolerance scales with the larger of the two: an oversubscribed empty run can be ms).
      EXPECT_NEAR(p.t_us, p.raw_us - p.empty_us,
                  1e-3 * std::max({1.0, std::abs(p.raw_us), std::abs(p.empty_us)}))
          << s.name;
    }
    if (s.name.rfind("T", 0) == 0) {  // Length, Fixed_log: 64 and 4096
      EXPECT_EQ(s.rows.back().argument, 4096) << s.name;
      EXPECT_EQ(s.rows.back().bytes, 4096) << s.name;
      EXPECT_EQ(s.rows.back().node_times_us.size(), static_cast<std::size_t>(s.rows.back().nprocs))
          << s.name;
    }
  }
  auto find = [&](const std::string& n) -> const Suite& {
    for (const auto& s : f.suites)
      if (s.name == n) return s;
    throw std::runtime_error("no suite " + n);
  };
  // Nodes: 1..4 processes (Barrier), 2..4 (master-worker); Chunks 1, 2, 4, 8.
  const auto& barrier = find("N18_MPI_Barrier");
  ASSERT_EQ(barrier.rows.size(), 4u);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(barrier.rows[static_cast<std::size_t>(k)].nprocs, k + 1);
  const auto& mw = find("N12_nodes");
  ASSERT_EQ(mw.rows.size(), 3u);
  EXPECT_EQ(mw.rows[0].nprocs, 2);
  EXPECT_EQ(mw.rows[0].chunks, 2);  // two chunks per worker by default
  const auto& chunks = find("C10_chunks");
  ASSERT_EQ(chunks.rows.size(), 4u);
  EXPECT_EQ(chunks.rows[3].chunks, 8);
  EXPECT_EQ(find("S24_MPI_Wtime").rows.size(), 1u);
  EXPECT_EQ(find("T1_MPI_Send-MPI_Recv").params.at("pair").size(), 3u);
  // Everything printed is in the JSON too.
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  ASSERT_EQ(j["benchmarks"].size(), 49u);
  EXPECT_EQ(count_of(r.out, "# Suite "), 49);
  // The log records each suite's start and end.
  const auto log = read_file(dir + "/skampi.log");
  EXPECT_EQ(count_of(log, " START "), 49);
  EXPECT_EQ(count_of(log, " END "), 49);
}

TEST(SkampiRun, Figure1RunsAsWritten) {
  const auto dir = temp_dir();
  // As written, but with 256 KBytes of buffers (--memory) instead of @MEMORY 8192 to keep the
  // test short: Max_Value becomes 64 KBytes.
  auto args = run_args(kData + "/../../share/skampi/figure1.skampi", dir);
  args.insert(args.end(), {"--memory", "256"});
  const auto r = run_mpi(2, args, "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const OutputFile f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 1u);
  const auto& s = f.suites[0];
  EXPECT_EQ(s.name, "MPI_Send-MPI_Recv-dynamicVector1");
  EXPECT_EQ(s.params.at("send_datatype"), "50");
  // The grid starts at 0 and reaches Max_Value (2 buffers of a vector that spans twice its
  // data in 256 KBytes); every length is a multiple of MPI_INT.
  long max = 0;
  for (const auto& p : s.rows) {
    EXPECT_EQ(p.bytes % 4, 0);
    EXPECT_EQ(p.node_times_us.size(), 2u);
    max = std::max(max, p.bytes);
  }
  EXPECT_EQ(s.rows[0].bytes, 0);
  EXPECT_GT(max, 256 * 1024 / 4 - 64);
  EXPECT_LE(max, 256 * 1024 / 4);
}

TEST(SkampiRun, ConfigurationErrorStopsBeforeAnythingRuns) {
  const auto dir = temp_dir();
  const auto cfg = write_file(
      dir, "bad.skampi", "@MEMORY 64\n@MEASUREMENTS\nA\n{\n  Type = 1;\n  Scale = Wobbly;\n}\n");
  const auto r = run_mpi(2, run_args(cfg, dir), "", 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(cfg + ":6:11: Scale must be"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/skampi.out"));
  // A length that does not fit in @MEMORY is refused with the suite's line.
  const auto big =
      write_file(dir, "big.skampi",
                 "@MEMORY 64\n@MEASUREMENTS\nA\n{\n  Type = 1;\n  End_Argument = 1000000;\n}\n");
  const auto r2 = run_mpi(2, run_args(big, dir), "", 60);
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.err.find(big + ":3:1: suite 'A': End_Argument 1000000 needs"), std::string::npos)
      << r2.err;
  const auto r3 = run_mpi(2, {"skampi", dir + "/missing.skampi"}, "", 60);
  EXPECT_EQ(r3.exit_code, 2);
  EXPECT_NE(r3.err.find("cannot read a SKaMPI configuration file"), std::string::npos) << r3.err;
  // A reduction on a datatype pattern (it aborted inside MPI_Reduce, exit 10) and Min_Distance
  // above Max_Distance are refused the same way.
  const auto reduce = write_file(dir, "reduce.skampi",
                                 "@MEMORY 64\n@BASETYPE2 MPI_INT\n@MEASUREMENTS\nR\n{\n  Type = "
                                 "19;\n  Basetype_Number = 2;\n  Send_Datatype_Number = 2;\n  "
                                 "Receive_Datatype_Number = 2;\n}\n");
  const auto r4 = run_mpi(2, run_args(reduce, dir), "", 60);
  EXPECT_EQ(r4.exit_code, 2) << r4.err;
  EXPECT_EQ(count_of(r4.err, "error: "), 1) << r4.err;
  EXPECT_NE(r4.err.find(reduce + ":8:26: MPI_Reduce reduces the base type itself"),
            std::string::npos)
      << r4.err;
  const auto distance =
      write_file(dir, "distance.skampi",
                 "@MEMORY 64\n@MEASUREMENTS\nD\n{\n  Type = 1;\n  Min_Distance = 64;\n  "
                 "Max_Distance = 16;\n}\n");
  const auto r5 = run_mpi(2, run_args(distance, dir), "", 60);
  EXPECT_EQ(r5.exit_code, 2) << r5.err;
  EXPECT_EQ(count_of(r5.err, "error: "), 1) << r5.err;
  EXPECT_NE(r5.err.find(distance + ":7:18: Max_Distance (16) is below Min_Distance (64)"),
            std::string::npos)
      << r5.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/skampi.out"));
}

TEST(SkampiRun, DatatypesMoveTheRightBytes) {
  const auto dir = temp_dir();
  std::string cfg =
      "@MEMORY 4096\n@BASETYPE1 MPI_CHAR\n@BASETYPE2 MPI_DOUBLE\n@BASETYPE3 (2,0,MPI_INT) "
      "(1,12,MPI_SHORT) (1,16,MPI_DOUBLE)\n@MEASUREMENTS\n";
  const int patterns[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 50};
  int k = 0;
  for (int base = 1; base <= 3; ++base)
    for (int send : patterns) {
      const int recv = patterns[(k++ * 7 + 3) % 11];
      cfg += suite(
          "D" + std::to_string(base) + "_" + std::to_string(send) + "_" + std::to_string(recv),
          "  Type = " + std::string(send % 2 ? "1" : "8") + ";\n  Basetype_Number = " +
              std::to_string(base) + ";\n  Send_Datatype_Number = " + std::to_string(send) +
              ";\n  Receive_Datatype_Number = " + std::to_string(recv) +
              ";\n  Scale = Fixed_log;\n  Start_Argument = 100;\n  End_Argument = 2000;\n  "
              "Stepwidth "
              "= 20;\n");
    }
  const auto path = write_file(dir, "dt.skampi", cfg);
  const auto r = run_mpi(2, run_args(path, dir), "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const OutputFile f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 33u);
  for (const auto& s : f.suites)
    for (const auto& p : s.rows) EXPECT_EQ(p.defects, 0) << s.name << " " << p.bytes;
  // One flipped byte on the receiver is found: exit 3.
  const auto bad = run_mpi(2, run_args(path, dir + "/"), "MPISCOPE_FAULT=corrupt:1", 120);
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.out.find("wrong bytes received"), std::string::npos);
}

// Fixed_linear's Stepwidth is an increment in bytes, whatever the base type: each point is then
// rounded to the base type's size, and End_Argument down to it (never a length beyond the range).
// Issue 32: a ping-pong over lengths is a point-to-point curve, and gets the model of one (JSON
// and the database), as IMB's PingPong does; a collective over lengths gets none.
TEST(SkampiRun, APingPongOverLengthsGetsTheCurveModel) {
  const auto dir = temp_dir();
  const std::string log_grid =
      "  Scale = Fixed_log;\n  Start_Argument = 1;\n  End_Argument = 65536;\n  Stepwidth = "
      "2;\n  Max_Steps = 64;\n";
  const auto path =
      write_file(dir, "curve.skampi",
                 "@MEMORY 4096\n@MEASUREMENTS\n" + suite("PingPong", "  Type = 1;\n" + log_grid) +
                     suite("Bcast", "  Type = 17;\n" + log_grid));
  auto args = run_args(path, dir);
  args.insert(args.end(), {"--json", dir + "/r.json", "--db", dir + "/r.sqlite"});
  const auto r = run_mpi(2, args, "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  ASSERT_EQ(j.at("benchmarks").size(), 2u);
  const auto& pingpong = j.at("benchmarks").at(0);
  ASSERT_TRUE(pingpong.contains("model")) << pingpong.dump(1);
  EXPECT_GE(pingpong.at("model").at("regions").size(), 1u);
  EXPECT_EQ(pingpong.at("model").at("regions").at(0).at("first_bytes"), 1);
  EXPECT_FALSE(j.at("benchmarks").at(1).contains("model"));
  // Printed after its table, as IMB-MPI1 and OSU print theirs.
  EXPECT_EQ(count_of(r.out, "# PingPong (2 processes): "), 1) << r.out;
  const auto stored =
      query(dir + "/r.sqlite", "SELECT name, model != '' FROM benchmarks ORDER BY seq");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0], (std::vector<std::string>{"PingPong", "1"}));
  EXPECT_EQ(stored[1], (std::vector<std::string>{"Bcast", "0"}));
}

TEST(SkampiRun, FixedLinearStepsInBytesAndStaysWithinTheRange) {
  const auto dir = temp_dir();
  const std::string linear =
      "  Type = 1;\n  Scale = Fixed_linear;\n  Start_Argument = 100;\n  Stepwidth = 300;\n";
  const auto path = write_file(
      dir, "linear.skampi",
      "@MEMORY 4096\n@BASETYPE1 MPI_CHAR\n@BASETYPE2 MPI_DOUBLE\n@MEASUREMENTS\n" +
          suite("Char", linear + "  Basetype_Number = 1;\n  End_Argument = 1000;\n") +
          suite("Double", linear + "  Basetype_Number = 2;\n  End_Argument = 1000;\n") +
          suite("DoubleEnd1001", linear + "  Basetype_Number = 2;\n  End_Argument = 1001;\n"));
  const auto r = run_mpi(2, run_args(path, dir), "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const OutputFile f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 3u);
  auto lengths = [](const Suite& s) {
    std::vector<long> v;
    for (const auto& p : s.rows) v.push_back(p.argument);
    return v;
  };
  EXPECT_EQ(lengths(f.suites[0]), (std::vector<long>{100, 400, 700, 1000}));
  EXPECT_EQ(lengths(f.suites[1]), (std::vector<long>{104, 408, 704, 1000}));
  EXPECT_EQ(lengths(f.suites[2]), (std::vector<long>{104, 408, 704, 1000}));
}

// Figure 2's master-worker instances differ in one MPI operation each: type 12 collects results
// with MPI_Recv(MPI_ANY_SOURCE), type 13 sends tasks with MPI_Send and collects results from the
// worker whose task is the oldest, by name (docs/skampi.md). The PMPI library traces the
// master's receives of results (64 MPI_CHARs) at 3 processes and 6 chunks.
TEST(SkampiRun, MasterWorkerTwelveReceivesFromAnySourceThirteenFromTheWorkerInTurn) {
  for (const auto& [type, wildcard] : {std::pair{"12", true}, std::pair{"13", false}}) {
    SCOPED_TRACE(std::string("Type ") + type);
    const auto dir = temp_dir();
    const auto cfg = write_file(
        dir, "mw.skampi",
        "@CACHEWARMUP 0\n@MEASUREMENTS\n" +
            suite("MW", std::string("  Type = ") + type +
                            ";\n  Scale = Fixed_log;\n  Start_Argument = 64;\n  End_Argument = "
                            "64;\n  Stepwidth = 2;\n  Default_Chunks = 6;\n"));
    const auto r =
        run_mpi(3, run_args(cfg, dir), "MPISCOPE_TRACE=" + dir, 60, with_pmpi_library(dir));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    int any_source = 0;
    std::string named;  // the sources of the named receives, in order
    for (const auto& line : lines_of(read_file(dir + "/trace.0"))) {
      std::istringstream in(line);
      std::string call;
      int count = 0, source = 0;
      std::string word;
      in >> call >> count >> word >> source;
      if (count != 64) continue;
      if (call == "MPI_Recv(MPI_ANY_SOURCE)") ++any_source;
      if (call == "MPI_Recv") named += std::to_string(source);
    }
    const auto f = parse_output(read_file(dir + "/skampi.out"), "out");
    ASSERT_EQ(f.suites.size(), 1u);
    ASSERT_EQ(f.suites[0].rows.size(), 1u);
    const int samples = f.suites[0].rows[0].repetitions;  // each collects 6 results
    if (wildcard) {
      EXPECT_EQ(any_source, 6 * samples);
      EXPECT_EQ(named, "");
    } else {
      EXPECT_EQ(any_source, 0);
      std::string in_turn;
      for (int k = 0; k < samples; ++k) in_turn += "121212";
      EXPECT_EQ(named, in_turn);
    }
  }
}

// A structured base type whose items overlap is refused when the file is read: one message at
// the overlapping triple, exit 2, nothing measured (it was an MPI_Abort at run time).
TEST(SkampiRun, OverlappingBaseTypeIsRefusedWhenTheFileIsRead) {
  const auto dir = temp_dir();
  const auto cfg =
      write_file(dir, "overlap.skampi",
                 "@MEMORY 64\n@BASETYPE2 (2,0,MPI_INT) (1,6,MPI_SHORT)\n@MEASUREMENTS\n" +
                     suite("A", "  Type = 1;\n  Basetype_Number = 2;\n"));
  const auto r = run_mpi(2, run_args(cfg, dir), "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(cfg + ":2:26: the base type's items overlap: bytes 6..7 of this item and "
                             "bytes 0..7 of an earlier one"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/skampi.out"));
}

// Max_Steps bounds every suite, its initial grid included (a finer grid is thinned evenly, ends
// kept, and the suite says so); refinement's points are listed in length order, not in the order
// they were measured.
TEST(SkampiRun, MaxStepsBoundsTheGridAndRefinedRowsAreInLengthOrder) {
  const auto dir = temp_dir();
  const auto cfg = write_file(
      dir, "steps.skampi",
      "@MEMORY 256\n@CACHEWARMUP 0\n@MEASUREMENTS\n" +
          suite("Linear",
                "  Type = 1;\n  Scale = Fixed_linear;\n  Start_Argument = 100;\n  End_Argument "
                "= 1000;\n  Stepwidth = 100;\n  Max_Steps = 4;\n") +
          // Grid 0 1 4 16 64 256 1024 4096; Max_Distance splits every segment wider than 64
          // bytes, so refinement runs until Max_Steps.
          suite("Refined",
                "  Type = 1;\n  Scale = Dynamic_log;\n  Start_Argument = 0;\n  End_Argument = "
                "4096;\n  Stepwidth = 4;\n  Max_Distance = 64;\n  Max_Steps = 12;\n"));
  const auto r = run_mpi(2, run_args(cfg, dir), "", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 2u);
  std::vector<long> linear;
  for (const auto& p : f.suites[0].rows) linear.push_back(p.argument);
  EXPECT_EQ(linear, (std::vector<long>{100, 400, 700, 1000}));
  EXPECT_EQ(f.suites[0].params.at("grid_thinned"), "4 of 10 points (Max_Steps)");
  EXPECT_NE(r.out.find("suite Linear: the grid was thinned to 4 of 10 points"), std::string::npos)
      << r.out;
  const auto& refined = f.suites[1].rows;
  ASSERT_EQ(refined.size(), 12u);
  EXPECT_EQ(f.suites[1].params.count("grid_thinned"), 0u);
  for (std::size_t k = 1; k < refined.size(); ++k)
    EXPECT_LT(refined[k - 1].argument, refined[k].argument) << "row " << k;
  EXPECT_EQ(refined.front().argument, 0);
  EXPECT_EQ(refined.back().argument, 4096);
}

// @BLOCKSIZE and @VECTORSTRIDE customise the vector patterns (2, 50) and the hvector pattern (3):
// blocks of 3 elements every 5 (hvector: every 6), lengths that leave a tail; the receiver checks
// every byte against the layout computed without MPI.
TEST(SkampiRun, PreambleCustomisesTheVectorPatterns) {
  const auto dir = temp_dir();
  std::string cfg =
      "@MEMORY 1024\n@BLOCKSIZE 3\n@VECTORSTRIDE 5\n@BASETYPE1 MPI_CHAR\n"
      "@BASETYPE2 MPI_INT\n@MEASUREMENTS\n";
  for (const auto& [send, recv] : {std::pair{2, 0}, std::pair{0, 3}, std::pair{50, 2}})
    for (int base = 1; base <= 2; ++base)
      cfg += suite(
          "V" + std::to_string(send) + "_" + std::to_string(recv) + "_" + std::to_string(base),
          "  Type = 1;\n  Basetype_Number = " + std::to_string(base) +
              ";\n  Send_Datatype_Number = " + std::to_string(send) +
              ";\n  Receive_Datatype_Number = " + std::to_string(recv) +
              ";\n  Scale = Fixed_log;\n  Start_Argument = 100;\n  End_Argument = "
              "2000;\n  Stepwidth = 20;\n");
  const auto path = write_file(dir, "v.skampi", cfg);
  const auto r = run_mpi(2, run_args(path, dir), "", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto text = read_file(dir + "/skampi.out");
  EXPECT_NE(text.find("\n@BLOCKSIZE 3\n@VECTORSTRIDE 5\n"), std::string::npos);
  const auto f = parse_output(text, "out");
  ASSERT_EQ(f.suites.size(), 6u);
  for (const auto& s : f.suites) {
    ASSERT_EQ(s.rows.size(), 2u) << s.name;
    for (const auto& p : s.rows) EXPECT_EQ(p.defects, 0) << s.name << " " << p.bytes;
  }
  // A stride below the block would overlap the blocks: refused where the later key stands.
  const auto bad =
      write_file(dir, "bad.skampi",
                 "@VECTORSTRIDE 2\n@BLOCKSIZE 3\n@MEASUREMENTS\n" + suite("A", "  Type = 1;\n"));
  const auto refused = run_mpi(2, run_args(bad, dir), "", 60);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(bad + ":2:12: @VECTORSTRIDE (2) is below @BLOCKSIZE (3)"),
            std::string::npos)
      << refused.err;
}

TEST(SkampiRun, CrashedRunResumesWithoutRepeatingFinishedSuites) {
  const auto dir = temp_dir();
  const std::string body =
      "  Type = 1;\n  Scale = Fixed_log;\n  Start_Argument = 16;\n  End_Argument = 256;\n  "
      "Stepwidth = 4;\n";
  const auto cfg = write_file(
      dir, "c.skampi", "@MEASUREMENTS\n" + suite("A", body) + suite("B", body) + suite("C", body));
  // B hangs at 64 bytes; --timeout ends the job as a crash would.
  auto args = run_args(cfg, dir);
  args.insert(args.end(), {"--timeout", "3"});
  const auto crashed = run_mpi(2, args, "MPISCOPE_FAULT=hang:B:64:0", 60);
  ASSERT_EQ(crashed.exit_code, 4) << crashed.err;
  const auto before = parse_output(read_file(dir + "/skampi.out"), "before");
  EXPECT_FALSE(before.complete);
  ASSERT_EQ(before.suites.size(), 1u);
  EXPECT_EQ(before.suites[0].name, "A");
  EXPECT_EQ(before.torn_suite, "B");

  const auto resumed = run_mpi(2, run_args(cfg, dir), "", 60);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto after = parse_output(read_file(dir + "/skampi.out"), "after");
  EXPECT_TRUE(after.complete);
  ASSERT_EQ(after.suites.size(), 3u);
  EXPECT_EQ(after.suites[0].name, "A");
  EXPECT_EQ(after.suites[1].name, "C");  // the suite that crashed runs last
  EXPECT_EQ(after.suites[2].name, "B");
  // A was not measured again: its rows are the earlier run's, to the digit.
  ASSERT_EQ(after.suites[0].rows.size(), before.suites[0].rows.size());
  for (std::size_t k = 0; k < after.suites[0].rows.size(); ++k)
    EXPECT_EQ(after.suites[0].rows[k].raw_us, before.suites[0].rows[k].raw_us);
  const auto log = read_file(dir + "/skampi.log");
  EXPECT_EQ(count_of(log, "START A"), 1);
  EXPECT_EQ(count_of(log, "START B"), 2);
  EXPECT_NE(log.find("suite B crashed and runs last"), std::string::npos) << log;
  EXPECT_NE(resumed.out.find("suite A taken from the interrupted earlier run"), std::string::npos);
}

// A planted 4 GiB output file (sparse, SKaMPI's first line) would be read whole by every rank
// to resume it: refused at once, with its size, and left as it is.
TEST(SkampiRun, HugePlantedOutputFileIsRefusedNotRead) {
  const auto dir = temp_dir();
  const auto cfg = write_file(dir, "c.skampi",
                              "@MEASUREMENTS\n" + suite("A",
                                                        "  Type = 1;\n  Scale = Fixed_log;\n  "
                                                        "Start_Argument = 16;\n  End_Argument = "
                                                        "16;\n  Stepwidth = 2;\n"));
  const auto out = write_file(dir, "skampi.out", "#SKAMPI-OUTPUT 1\n@MACHINE m\n");
  std::filesystem::resize_file(out, std::uintmax_t{4} << 30);
  const auto r = run_mpi(2, run_args(cfg, dir), "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "4294967296 bytes, more than a SKaMPI output file can be"), 1) << r.err;
  EXPECT_LT(r.seconds, 30);
  EXPECT_EQ(std::filesystem::file_size(out), std::uintmax_t{4} << 30);
}

TEST(SkampiRun, PostprocessorWritesMedians) {
  const auto dir = temp_dir();
  auto file = [&](const std::string& name, double t8, double t16) {
    return write_file(dir, name,
                      "#SKAMPI-OUTPUT 1\n@MACHINE m\n@BEGIN_SUITE S\n@TYPE 1\n@PATTERN ping-pong\n"
                      "8 8 2 0 " +
                          std::to_string(t8) + " 0.1 " + std::to_string(t8) +
                          " 0 8 8 1 0 -\n"
                          "16 16 2 0 " +
                          std::to_string(t16) + " 0.1 " + std::to_string(t16) +
                          " 0 8 8 1 0 -\n"
                          "@END_SUITE S\n@END_RUN\n");
  };
  const auto a = file("a.out", 1, 7), b = file("b.out", 3, 5), c = file("c.out", 100, 6);
  const auto r = run_mpi(2, {"skampi", "postproc", "-o", dir + "/m.out", a, b, c}, "", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = parse_output(read_file(dir + "/m.out"), "m");
  ASSERT_EQ(m.suites.size(), 1u);
  ASSERT_EQ(m.suites[0].rows.size(), 2u);
  EXPECT_DOUBLE_EQ(m.suites[0].rows[0].t_us, 3);
  EXPECT_DOUBLE_EQ(m.suites[0].rows[1].t_us, 6);
  EXPECT_EQ(m.suites[0].rows[0].repetitions, 3);
  const auto bad =
      run_mpi(1, {"skampi", "postproc", "-o", dir + "/x.out", dir + "/none.out"}, "", 60);
  EXPECT_EQ(bad.exit_code, 2);

  // @POSTPROC yes: the second run keeps the first as skampi.out.1 and writes the medians.
  const auto cfg =
      write_file(dir, "p.skampi", "@POSTPROC yes\n@MEASUREMENTS\n" + suite("P", "  Type = 25;\n"));
  ASSERT_EQ(run_mpi(2, run_args(cfg, dir), "", 60).exit_code, 0);
  ASSERT_EQ(run_mpi(2, run_args(cfg, dir), "", 60).exit_code, 0);
  const auto first = parse_output(read_file(dir + "/skampi.out.1"), "1");
  const auto second = parse_output(read_file(dir + "/skampi.out"), "2");
  const auto merged = parse_output(read_file(dir + "/skampi.out.postproc"), "p");
  // The files hold 6 significant digits, so the median is checked to that precision.
  const double expected = (first.suites[0].rows[0].t_us + second.suites[0].rows[0].t_us) / 2;
  EXPECT_NEAR(merged.suites[0].rows[0].t_us, expected, 1e-5 * std::abs(expected) + 1e-9);
}

namespace {

const Suite& suite_named(const OutputFile& f, const std::string& name) {
  for (const auto& s : f.suites)
    if (s.name == name) return s;
  throw std::runtime_error("no suite " + name);
}

}  // namespace

// The limits of a suite bound it and say what they cut. Stepwidth just above 1 (some 10^11
// lengths from 1 to 64 KiB) measures the 5 lengths Max_Steps thins it to at once (it hung
// building the grid). Time_Measurement bounds a point that never converges in wall time (it
// counted only the samples' own time, and re-sorted every sample after each: minutes).
// Time_Suite's ending of a suite is said in the text, the output file, the JSON and the database.
TEST(SkampiRun, LimitsBoundTheSuiteAndSayWhatTheyCut) {
  const auto dir = temp_dir();
  const std::string never_converges =
      "  Type = 1;\n  Scale = Fixed_log;\n  Min_Repetition = 2;\n  Max_Repetition = 1000000;\n"
      "  Standard_error = 0.000001;\n";
  const auto cfg = write_file(
      dir, "limits.skampi",
      "@MEMORY 1024\n@CACHEWARMUP 0\n@MEASUREMENTS\n" +
          suite("Thin",
                "  Type = 1;\n  Scale = Fixed_log;\n  Start_Argument = 1;\n  End_Argument = "
                "65536;\n  Stepwidth = 1.0000000001;\n  Max_Steps = 5;\n") +
          "Bounded\n{\n" + never_converges +
          "  Start_Argument = 64;\n  End_Argument = 64;\n  Time_Measurement = 0.3;\n}\n" +
          "Cut\n{\n" + never_converges +
          "  Start_Argument = 1;\n  End_Argument = 65536;\n  Stepwidth = 2;\n"
          "  Time_Measurement = 0.1;\n  Time_Suite = 0.5;\n}\n");
  auto args = run_args(cfg, dir);
  args.insert(args.end(), {"--json", dir + "/r.json", "--db", dir + "/r.sqlite"});
  const auto r = run_mpi(2, args, "", 90);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_LT(r.seconds, 45);
  const auto f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 3u);

  const auto& thin = suite_named(f, "Thin");
  std::vector<long> lengths;
  for (const auto& p : thin.rows) lengths.push_back(p.argument);
  EXPECT_EQ(lengths, (std::vector<long>{1, 16, 256, 4096, 65536}));
  EXPECT_EQ(thin.params.at("grid_thinned").rfind("5 of 1109", 0), 0u)
      << thin.params.at("grid_thinned");

  // Two measurements of at most 0.3 s and a sample each: the empty one and the operation's.
  const auto& bounded = suite_named(f, "Bounded");
  ASSERT_EQ(bounded.rows.size(), 1u);
  EXPECT_LT(bounded.rows[0].repetitions, 1000000);
  EXPECT_EQ(bounded.rows[0].converged, 0);

  const auto& cut = suite_named(f, "Cut");
  ASSERT_GE(cut.rows.size(), 1u);
  ASSERT_LT(cut.rows.size(), 17u);
  const std::string said = "Time_Suite (0.5 s) ended the suite after " +
                           std::to_string(cut.rows.size()) +
                           (cut.rows.size() == 1 ? " point" : " points") + ": measured up to " +
                           std::to_string(cut.rows.back().argument) + " of 65536 bytes";
  EXPECT_EQ(cut.params.at("time_suite_stopped"), said);
  EXPECT_NE(r.out.find("# suite Cut: " + said), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  EXPECT_NE(std::find(j["notes"].begin(), j["notes"].end(), "suite Cut: " + said), j["notes"].end())
      << j["notes"].dump();
  EXPECT_EQ(query(dir + "/r.sqlite",
                  "SELECT count(*) FROM run_notes WHERE text = 'suite Cut: " + said + "'")
                .at(0)
                .at(0),
            "1");
  // A note about this run, not a parameter of the table: runs that ran the suite through compare.
  EXPECT_EQ(query(dir + "/r.sqlite",
                  "SELECT count(*) FROM benchmark_parameters WHERE name = 'time_suite_stopped'")
                .at(0)
                .at(0),
            "0");
}

// Collectives end with a zero-byte message from every process to the root instead of a second
// barrier (the root that finishes last, as in MPI_Gather, paid less of a closing barrier than the
// empty measurement subtracted, and 14 of 24 MPI_Gather points came out negative). And a time
// below zero is never a converged figure: the non-root's first three sends, the empty
// measurement's, are slowed by 50 ms through the PMPI library, so that every point's mean falls
// below the empty measurement subtracted from it (3 ms was not enough under MPICH beside another
// test: a Gather's repetition took up to 15 ms, a point came out positive and was refined).
TEST(SkampiRun, CollectivesEndWithAMessageToTheRootAndNegativeTimesAreNotFigures) {
  const auto dir = temp_dir();
  const auto cfg =
      write_file(dir, "gather.skampi",
                 "@MEMORY 256\n@CACHEWARMUP 0\n@MEASUREMENTS\nGather\n{\n  Type = 33;\n  Scale = "
                 "Dynamic_log;\n  Start_Argument = 4;\n  End_Argument = 64;\n  Stepwidth = 2;\n"
                 "  Min_Repetition = 3;\n  Max_Repetition = 3;\n  Standard_error = 0.9;\n}\n");
  auto args = run_args(cfg, dir);
  args.insert(args.end(), {"--json", dir + "/r.json"});
  const auto r = run_mpi(
      2, args, "MPISCOPE_TRACE=" + dir + " MPISCOPE_DELAY=MPI_Send=50000 MPISCOPE_DELAY_UNTIL=3",
      60, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Every sample (the empty measurement's too) has one barrier and one message in on the root.
  int barriers = 0, done_messages = 0;
  for (const auto& line : lines_of(read_file(dir + "/trace.0"))) {
    std::istringstream in(line);
    std::string call, word;
    int count = -1, source = -1;
    in >> call >> count >> word >> source;
    if (call == "MPI_Barrier") ++barriers;
    if (call == "MPI_Recv" && count == 0 && source == 1) ++done_messages;
  }
  const auto f = parse_output(read_file(dir + "/skampi.out"), "out");
  ASSERT_EQ(f.suites.size(), 1u);
  const auto& rows = f.suites[0].rows;
  ASSERT_EQ(rows.size(), 5u);  // 4 8 16 32 64: no refinement between times that are no figures
  EXPECT_EQ(done_messages, 3 + 3 * 5);
  EXPECT_EQ(barriers, done_messages);
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  const auto& jrows = j["benchmarks"][0]["rows"];
  ASSERT_EQ(jrows.size(), rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    SCOPED_TRACE(rows[k].argument);
    EXPECT_LT(rows[k].t_us, -1000);
    EXPECT_EQ(rows[k].converged, 0);
    EXPECT_NE(r.out.find("# argument " + std::to_string(rows[k].argument) + ": t is below zero"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(jrows[k]["note"].get<std::string>().rfind("t is below zero", 0), 0u) << jrows[k];
    EXPECT_EQ(jrows[k]["values"]["converged"]["value"], 0) << jrows[k];
  }
}

// The ping-pong pair is chosen by latency at every run: a setting of the run, not part of the
// table, so that runs of one configuration that chose different pairs are the same table in the
// database (name, processes and parameters). The output file, imported with the other pair,
// lands on the table the run recorded.
TEST(SkampiRun, RunsThatChoseDifferentPairsAreOneTable) {
  const auto dir = temp_dir();
  const auto cfg =
      write_file(dir, "pp.skampi",
                 "@MEMORY 256\n@MEASUREMENTS\n" +
                     suite("PP",
                           "  Type = 1;\n  Scale = Fixed_log;\n  Start_Argument = 16;\n  "
                           "End_Argument = 64;\n  Stepwidth = 4;\n"));
  const std::string db = dir + "/r.sqlite";
  auto args = run_args(cfg, dir);
  args.insert(args.end(), {"--db", db});
  const auto r = run_mpi(3, args, "", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto text = read_file(dir + "/skampi.out");
  const auto at = text.find("@PARAM pair ");
  ASSERT_NE(at, std::string::npos);
  const std::string chosen = text.substr(at + 12, 3);
  EXPECT_NE(r.out.find("Variation Length, pair " + chosen), std::string::npos) << r.out;
  const std::string other = chosen == "0-1" ? "0-2" : "0-1";
  text.replace(at + 12, 3, other);
  write_file(dir, "other.out", text);
  const auto imported = run_plain({"import", "--db", db, dir + "/other.out"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto pairs =
      query(db, "SELECT value FROM run_settings WHERE name = 'pingpong_pair' ORDER BY run_id");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0][0], chosen);
  EXPECT_EQ(pairs[1][0], other);
  const auto identity =
      query(db,
            "SELECT b.run_id, b.name, b.nprocs, (SELECT group_concat(name || '=' || value, ';') "
            "FROM (SELECT name, value FROM benchmark_parameters p WHERE p.benchmark_id = b.id "
            "AND name != 'refinement_max_error' ORDER BY name)) FROM benchmarks b ORDER BY "
            "b.run_id");
  ASSERT_EQ(identity.size(), 2u);
  EXPECT_NE(identity[0][0], identity[1][0]);
  EXPECT_EQ(identity[0][1], identity[1][1]);
  EXPECT_EQ(identity[0][2], identity[1][2]);
  EXPECT_EQ(identity[0][3], identity[1][3]);
  EXPECT_EQ(identity[0][3].find("pair="), std::string::npos) << identity[0][3];
}
