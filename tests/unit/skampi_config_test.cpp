#include <gtest/gtest.h>

#include "suites/skampi/config.hpp"
#include "suites/skampi/datatypes.hpp"
#include "suites/skampi/measure.hpp"
#include "suites/skampi/run.hpp"

using namespace mpiscope::skampi;

namespace {

// What the other ranks receive: rank 0's configuration through the JSON of the hand-off.
Config handed_off(const Config& c) {
  return nlohmann::json(c).get<Config>();
}

const char* kFigure1 = R"(@MACHINE IBM SP
@NODE thin
@MEMORY 8192
@OUTFILE skampi.out
@POSTPROC no
@CACHEWARMUP 5
@Basetype1 MPI_INT
@BASETYPE2 (2,0,MPI_INT) (1,8,MPI_DOUBLE)
@MEASUREMENTS
MPI_Send-MPI_Recv-dynamicVector1
{
  Type = 1;
  Basetype_Number = 1;
  Send_Datatype_Number = 50;
  Receive_Datatype_Number = 50;
  Variation = Length;
  Scale = Dynamic_log;
  Max_Repetition = Default_Value;
  Time_Measurement = Invalid_Value;
  Node_Times = yes;
  Default_Chunks = 0;
  Start_Argument = 0;
  End_Argument = Max_Value;
  Stepwidth = 1.414213562;
  Min_Distance = 2;
  Max_Distance = 512;
  Standard_error = 0.02;
}
)";

// The message of the error a configuration raises ("" when it parses).
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "t.skampi");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
std::string with_suite(const std::string& body) {
  return "@MEASUREMENTS\nS\n{\n" + body + "}\n";
}
}  // namespace

TEST(SkampiConfig, Figure1Parses) {
  const Config c = parse_config(kFigure1, "fig1");
  EXPECT_EQ(c.machine, "IBM SP");
  EXPECT_EQ(c.memory_kb, 8192);
  EXPECT_EQ(c.cachewarmup, 5);
  EXPECT_FALSE(c.postproc);
  EXPECT_EQ(c.basetypes.at(1).text(), "MPI_INT");
  ASSERT_EQ(c.basetypes.at(2).items.size(), 2u);
  EXPECT_EQ(c.basetypes.at(2).items[1].offset, 8);
  ASSERT_EQ(c.suites.size(), 1u);
  const auto& s = c.suites[0];
  EXPECT_EQ(s.name, "MPI_Send-MPI_Recv-dynamicVector1");
  EXPECT_EQ(s.line, 10);
  EXPECT_EQ(s.type, 1);
  EXPECT_EQ(s.send_datatype, 50);
  EXPECT_EQ(s.variation, Variation::kLength);
  EXPECT_EQ(s.scale, Scale::kDynamicLog);
  EXPECT_EQ(s.max_repetition, SuiteSpec{}.max_repetition);  // Default_Value
  EXPECT_EQ(s.time_measurement_s, 0);                       // Invalid_Value: no limit
  EXPECT_TRUE(s.node_times);
  EXPECT_FALSE(s.end.has_value());  // Max_Value
  EXPECT_DOUBLE_EQ(s.stepwidth, 1.414213562);
  EXPECT_EQ(s.min_distance, 2);
  EXPECT_EQ(*s.max_distance, 512);
  EXPECT_DOUBLE_EQ(s.standard_error, 0.02);
  // Survives the broadcast encoding unchanged.
  EXPECT_EQ(handed_off(c), c);
}

// The hand-off to the other ranks (NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE in config.hpp) keeps every
// field: each is set away from its default here, and the structs' defaulted == compares all.
TEST(SkampiConfig, HandOffKeepsEveryField) {
  Config c;
  c.file = "f", c.machine = "m", c.node = "n", c.network = "net", c.mpiversion = "v";
  c.user = "u", c.memory_kb = 77, c.outfile = "o", c.logfile = "l", c.postproc = true;
  c.cachewarmup = 9, c.method = "accurate";
  c.basetypes[2] = BaseType{{{.count = 3, .offset = 8, .type = "MPI_INT"},
                             {.count = 1, .offset = 24, .type = "MPI_DOUBLE"}}};
  c.datatype_params = {.blocksize = 4, .vectorstride = 6};
  c.suites.push_back({.name = "s",
                      .line = 12,
                      .type = 3,
                      .basetype = 2,
                      .send_datatype = 2,
                      .recv_datatype = 50,
                      .variation = Variation::kChunks,
                      .scale = Scale::kFixedLog,
                      .max_repetition = 40,
                      .min_repetition = 5,
                      .multiple_of = 16,
                      .time_measurement_s = 0.5,
                      .time_suite_s = 30,
                      .node_times = true,
                      .cut_quantile = 0.2,
                      .default_chunks = 7,
                      .default_length = 1024,
                      .start = 8,
                      .end = 4096,
                      .stepwidth = 2,
                      .max_steps = 20,
                      .min_distance = 4,
                      .max_distance = 64,
                      .standard_error = 0.01});
  SuiteSpec max_value;  // End_Argument and Max_Distance at Max_Value: null in the JSON
  max_value.name = "max";
  c.suites.push_back(max_value);
  EXPECT_EQ(handed_off(c), c);
}

TEST(SkampiConfig, ErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of("@MACHINE x\n@BOGUS 3\n@MEASUREMENTS\n"),
            "t.skampi:2:1: unknown preamble key @BOGUS");
  EXPECT_EQ(error_of("@MEMORY 12k\n@MEASUREMENTS\n"),
            "t.skampi:1:9: @MEMORY (KBytes): '12k' is not an integer");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Stepwidth = abc;\n")),
            "t.skampi:5:15: Stepwidth: 'abc' is not a number");
  EXPECT_EQ(error_of(with_suite("  Type = 1\n  Scale = Fixed_log;\n")),
            "t.skampi:5:3: expected ';' after the value of Type");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Colour = red;\n")),
            "t.skampi:5:3: unknown field 'Colour'");
  EXPECT_EQ(error_of(with_suite("  Type = 99;\n")),
            "t.skampi:4:10: unknown Type 99 (see Figure 2 / docs/skampi.md)");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Variation = Nodes;\n")),
            "t.skampi:5:15: the ping-pong pattern (Type 1) cannot vary along Nodes");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Min_Repetition = 9;\n  Max_Repetition = 4;\n")),
            "t.skampi:6:20: Max_Repetition (4) is below Min_Repetition (9)");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Basetype_Number = 4;\n")),
            "t.skampi:5:21: @BASETYPE4 is not defined in the preamble");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Type = 2;\n")),
            "t.skampi:5:3: field Type is given twice");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Start_Argument = Max_Value;\n")),
            "t.skampi:5:20: Start_Argument cannot be Max_Value");
  EXPECT_EQ(error_of("@MEASUREMENTS\nS\n{\n  Type = 1;\n"),
            "t.skampi:5:1: unexpected end of file, expected a field or '}'");
  EXPECT_EQ(error_of("@MEASUREMENTS\nS { Type = 1; }\nS { Type = 2; }\n"),
            "t.skampi:3:1: suite 'S' is defined twice");
  EXPECT_EQ(error_of("@BASETYPE2 (1,0,MPI_INT) (2,x,MPI_INT)\n@MEASUREMENTS\n"),
            "t.skampi:1:27: offset: 'x' is not an integer");
  EXPECT_EQ(error_of("@BASETYPE2 MPI_QUATERNION\n@MEASUREMENTS\n"),
            "t.skampi:1:12: unknown MPI type 'MPI_QUATERNION'");
  EXPECT_EQ(error_of("@MACHINE x\n"), "t.skampi:2:1: missing @MEASUREMENTS (no suite to run)");
  EXPECT_EQ(error_of(with_suite("  Type = 19;\n  Basetype_Number = 2;\n")).substr(0, 14),
            "t.skampi:5:21:");
  EXPECT_EQ(
      error_of("@BASETYPE2 (1,0,MPI_INT)\n" + with_suite("  Type = 19;\n  Basetype_Number = 2;\n")),
      "");
  // A reduction on a datatype pattern aborted inside MPI_Reduce: refused where it is asked for.
  EXPECT_EQ(error_of(with_suite("  Type = 19;\n  Send_Datatype_Number = 1;\n  "
                                "Receive_Datatype_Number = 1;\n")),
            "t.skampi:5:26: MPI_Reduce reduces the base type itself: Send_ and "
            "Receive_Datatype_Number must be 0 (no datatype pattern)");
  EXPECT_NE(error_of(with_suite("  Type = 36;\n  Receive_Datatype_Number = 2;\n")), "");
  // Min_Distance above Max_Distance: no segment could be split or left.
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Min_Distance = 100;\n  Max_Distance = 10;\n")),
            "t.skampi:6:18: Max_Distance (10) is below Min_Distance (100)");
  EXPECT_EQ(error_of(with_suite("  Type = 1;\n  Min_Distance = 10;\n  Max_Distance = 10;\n")), "");
  EXPECT_EQ(
      error_of(with_suite("  Type = 1;\n  Min_Distance = 10;\n  Max_Distance = Max_Value;\n")), "");
}

TEST(SkampiConfig, DefaultsDependOnThePattern) {
  const Config c = parse_config(
      "@MEASUREMENTS\n# a comment\nA { Type = 24; }\nB { Type = 18; }\nC { Type = 10; Variation = "
      "Chunks; }\n",
      "x");
  EXPECT_EQ(c.basetypes.at(1).text(), "MPI_CHAR");
  EXPECT_EQ(c.suites[0].variation, Variation::kNone);
  EXPECT_EQ(c.suites[1].variation, Variation::kNodes);  // Barrier has no length
  EXPECT_EQ(c.suites[1].start, 1);
  EXPECT_EQ(c.suites[2].variation, Variation::kChunks);
  EXPECT_EQ(c.suites[2].start, 1);
}

// Overlapping items of a structured base type are a configuration error at the triple.
TEST(SkampiConfig, OverlappingBaseTypeItemsAreRefused) {
  EXPECT_EQ(error_of("@BASETYPE2 (2,0,MPI_INT) (1,6,MPI_SHORT)\n@MEASUREMENTS\n"),
            "t.skampi:1:26: the base type's items overlap: bytes 6..7 of this item and bytes 0..7 "
            "of an earlier one");
  EXPECT_EQ(error_of("@BASETYPE2 (1,8,MPI_DOUBLE) (1,0,MPI_INT) (1,4,MPI_LONG)\n@MEASUREMENTS\n")
                .substr(0, 15),
            "t.skampi:1:43: ");
  // Touching items do not overlap.
  EXPECT_EQ(error_of("@BASETYPE2 (2,0,MPI_INT) (1,8,MPI_SHORT)\n" + with_suite("  Type = 1;\n")),
            "");
}

// @BLOCKSIZE and @VECTORSTRIDE: parsed, checked, broadcast, and the layouts of the vector
// patterns follow them (the defaults keep every other element, hvector every third).
TEST(SkampiConfig, PreambleCustomisesTheVectorPatterns) {
  const Config c =
      parse_config("@BLOCKSIZE 3\n@VECTORSTRIDE 5\n" + with_suite("  Type = 1;\n"), "x");
  EXPECT_EQ(c.datatype_params.blocksize, 3);
  EXPECT_EQ(c.datatype_params.vectorstride, 5);
  EXPECT_EQ(handed_off(c).datatype_params.vectorstride, 5);
  EXPECT_EQ(pattern_layout(2, 7, 4, c.datatype_params),
            (std::vector<long>{0, 4, 8, 20, 24, 28, 40}));
  EXPECT_EQ(pattern_layout(50, 7, 4, c.datatype_params),
            pattern_layout(2, 7, 4, c.datatype_params));
  EXPECT_EQ(pattern_layout(3, 7, 4, c.datatype_params),
            (std::vector<long>{0, 4, 8, 24, 28, 32, 48}));
  EXPECT_EQ(pattern_layout(2, 2, 4, c.datatype_params), (std::vector<long>{0, 4}));
  const DatatypeParams defaults;
  EXPECT_EQ(pattern_layout(2, 3, 8, defaults), (std::vector<long>{0, 16, 32}));
  EXPECT_EQ(pattern_layout(3, 3, 8, defaults), (std::vector<long>{0, 24, 48}));
  EXPECT_EQ(error_of("@VECTORSTRIDE 2\n@BLOCKSIZE 3\n@MEASUREMENTS\n"),
            "t.skampi:2:12: @VECTORSTRIDE (2) is below @BLOCKSIZE (3): the blocks of the vector "
            "patterns would overlap");
  EXPECT_EQ(error_of("@BLOCKSIZE 0\n@MEASUREMENTS\n").substr(0, 14), "t.skampi:1:12:");
}

// End_Argument that is not a multiple of Multiple_of x the base type's size is rounded down (and
// Start_Argument up) whatever the Scale, so no scale measures a length outside the range.
TEST(SkampiConfig, EveryScaleRoundsTheRangeToTheLengthUnit) {
  std::string text = "@BASETYPE2 MPI_DOUBLE\n@MEASUREMENTS\n";
  for (const char* scale : {"Dynamic_log", "Fixed_log", "Fixed_linear"})
    for (const char* multiple : {"1", "3"})
      text += std::string("S_") + scale + "_" + multiple + " { Type = 1; Basetype_Number = 2; " +
              "Scale = " + scale + "; Multiple_of = " + multiple +
              "; Start_Argument = 100; End_Argument = 1001; Stepwidth = 2; }\n";
  Config c = parse_config(text, "x");
  resolve_limits(c, 2);
  ASSERT_EQ(c.suites.size(), 6u);
  for (const auto& s : c.suites) {
    SCOPED_TRACE(s.name);
    const long unit = s.multiple_of == 3 ? 24 : 8;
    EXPECT_EQ(s.start, s.multiple_of == 3 ? 120 : 104);
    EXPECT_EQ(*s.end, s.multiple_of == 3 ? 984 : 1000);
    const auto grid = s.scale == Scale::kFixedLinear ? linear_grid(s.start, *s.end, 2, unit)
                                                     : geometric_grid(s.start, *s.end, 2, unit);
    for (long m : grid.lengths()) {
      EXPECT_EQ(m % unit, 0) << m;
      EXPECT_GE(m, s.start);
      EXPECT_LE(m, *s.end);
    }
  }
}
