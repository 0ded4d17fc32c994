// SKaMPI's output file and configuration in accurate mode: a row's median, interval and counts
// survive the file (restart reads them back), classic readers still read the classic columns,
// the post-processor's medians over runs carry no interval, and @METHOD is parsed.
#include <gtest/gtest.h>

#include "suites/skampi/config.hpp"
#include "suites/skampi/output_file.hpp"

using namespace mpiscope;
using namespace mpiscope::skampi;

namespace {

PointRow accurate_row() {
  PointRow p;
  p.argument = p.bytes = 1024;
  p.nprocs = 2;
  p.t_us = p.raw_us = 12.5;
  p.stderr_us = 0.25;
  p.repetitions = 40;
  p.used = 37;
  p.converged = true;
  core::AccurateStats a;
  a.sync = "window";
  a.time_definition = "global";
  a.stop_reason = "converged";
  a.attempted = 40;
  a.valid = 37;
  a.late = 2;
  a.overrun = 1;
  a.window_us = 55;
  a.clock_offset_max_us = 3.5;
  a.clock_drift_max = 1e-6;
  auto& s = a.summary_us;
  s.n = 37;
  s.median = 12.5;
  s.median_ci.available = true;
  s.median_ci.lower = 12.25;
  s.median_ci.upper = 12.75;
  s.median_ci.confidence = 0.953;
  s.min = 11;
  s.max = 30;
  s.mean = 13;
  s.p05 = 11.5;
  s.p25 = 12;
  s.p75 = 13;
  s.p95 = 20;
  s.p99 = 29;
  s.outliers = 1;
  p.accurate = a;
  return p;
}

}  // namespace

TEST(SkampiAccurateFile, RowReadsBackWithItsStatistics) {
  SuiteResult s;
  s.name = "A";
  s.type = 36;
  s.params["method"] = "accurate";
  s.rows.push_back(accurate_row());
  OutputFile f;
  f.suites.push_back(s);
  f.complete = true;
  const std::string text = format_output(f);
  EXPECT_NE(text.find(std::string("@COLUMNS argument")), std::string::npos);
  EXPECT_NE(text.find(kAccurateColumns), std::string::npos);
  const OutputFile back = parse_output(text, "t");
  ASSERT_EQ(back.suites.size(), 1u);
  const PointRow& p = back.suites[0].rows.at(0);
  ASSERT_TRUE(p.accurate);
  const auto& a = *p.accurate;
  EXPECT_EQ(a.stop_reason, "converged");
  EXPECT_EQ(a.sync, "window");
  EXPECT_EQ(a.time_definition, "global");
  EXPECT_EQ(a.attempted, 40);
  EXPECT_EQ(a.valid, 37);
  EXPECT_EQ(a.late, 2);
  EXPECT_EQ(a.overrun, 1);
  EXPECT_DOUBLE_EQ(a.summary_us.median, 12.5);
  EXPECT_DOUBLE_EQ(a.summary_us.median_ci.lower, 12.25);
  EXPECT_DOUBLE_EQ(a.summary_us.median_ci.upper, 12.75);
  EXPECT_TRUE(a.summary_us.median_ci.available);
  EXPECT_DOUBLE_EQ(a.summary_us.p99, 29);
  EXPECT_EQ(a.summary_us.outliers, 1u);
  EXPECT_EQ(a.summary_us.n, 37u);
  EXPECT_FALSE(a.fell_back);
  // Written again, the same text: a resumed run writes what it read.
  EXPECT_EQ(format_output(back), text);
}

TEST(SkampiAccurateFile, ClassicRowsAndPostprocessorMediansHaveNoStatistics) {
  PointRow classic;
  classic.argument = 8;
  classic.t_us = 3;
  PointRow parsed;
  ASSERT_TRUE(parse_row(format_row(classic), true, parsed));  // no extra columns: none read
  EXPECT_FALSE(parsed.accurate);
  // A classic reader (fixed columns only) reads an accurate row's median.
  ASSERT_TRUE(parse_row(format_row(accurate_row()), false, parsed));
  EXPECT_FALSE(parsed.accurate);
  EXPECT_DOUBLE_EQ(parsed.t_us, 12.5);

  auto run = [](double t) {
    OutputFile f;
    SuiteResult s;
    s.name = "A";
    s.params["method"] = "accurate";
    PointRow p = accurate_row();
    p.t_us = p.raw_us = t;
    s.rows.push_back(p);
    f.suites.push_back(s);
    f.complete = true;
    return f;
  };
  const OutputFile merged = postprocess({run(1), run(5), run(3)});
  const PointRow& m = merged.suites.at(0).rows.at(0);
  EXPECT_DOUBLE_EQ(m.t_us, 3);
  EXPECT_FALSE(m.accurate);
  const std::string text = format_output(merged);
  EXPECT_EQ(text.find("ci95_low_us"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(parse_output(text, "m").suites.at(0).rows.at(0).t_us, 3);
  OutputFile classic_run = run(7);
  classic_run.suites[0].params["method"] = "classic";
  EXPECT_EQ(postprocess({run(1), classic_run}).suites.at(0).params.at("method"), "mixed");
}

TEST(SkampiAccurateFile, MethodInThePreamble) {
  const std::string suite = "@MEASUREMENTS\nA\n{\n  Type = 1;\n}\n";
  EXPECT_EQ(parse_config("@METHOD accurate\n" + suite, "c").method, "accurate");
  EXPECT_EQ(parse_config("@method Classic\n" + suite, "c").method, "classic");
  EXPECT_EQ(parse_config("@METHOD imb\n" + suite, "c").method, "classic");
  EXPECT_EQ(parse_config(suite, "c").method, "");
  EXPECT_EQ(nlohmann::json(parse_config("@METHOD accurate\n" + suite, "c")).get<Config>().method,
            "accurate");
  try {
    parse_config("@METHOD best\n" + suite, "c");
    FAIL() << "accepted @METHOD best";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("c:1:9: @METHOD must be classic or accurate"),
              std::string::npos)
        << e.what();
  }
}
