// The HTML report: self-contained, and the numbers it carries are the stored ones.
#include <gtest/gtest.h>

#include "report/html_report.hpp"

using namespace mpiscope;

TEST(ReportHtml, PageIsSelfContainedAndCarriesTheStoredNumbers) {
  db::StoredRun r;
  r.id = 7;
  r.complete = r.ok = true;
  r.info.suite = "imb-mpi1";
  r.info.mpi_library = "MPICH Version: 4.0 </script><script>alert(1)</script>";
  r.summary.push_back({"b_eff", 321.5, "MB/s"});
  core::BenchmarkRun b;
  b.name = "PingPong";
  b.nprocs = 2;
  core::Measurement m;
  m.measured = true;
  m.bytes = 1024;
  m.repetitions = 10;
  m.t_min_us = 1.5;
  m.t_max_us = 2.75;
  m.t_avg_us = 2.0;
  m.mbytes_per_sec = 355.11;
  b.rows.push_back(m);
  core::Measurement skipped;
  skipped.bytes = 1 << 30;
  skipped.measured = false;
  b.rows.push_back(skipped);
  r.benchmarks.push_back(b);

  const auto data = report::report_data({r}, "/x/results.sqlite");
  const auto& row = data["runs"][0]["tables"][0]["rows"];
  ASSERT_EQ(row.size(), 1u);  // a skipped row has nothing to plot
  EXPECT_EQ(row[0]["bytes"], 1024);
  EXPECT_DOUBLE_EQ(row[0]["t_us"].get<double>(), 2.75);  // t_max, IMB's figure
  EXPECT_DOUBLE_EQ(row[0]["bw"].get<double>(), 355.11);  // MiB/s, the default unit
  EXPECT_EQ(data["runs"][0]["summary"][0]["unit"], "MB/s");
  EXPECT_FALSE(data["runs"][0]["tables"][0].contains("model"));  // none without one

  const auto html = report::render_html({r}, "/x/results.sqlite");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing is fetched: no external script, style, image or font. (Addresses do occur in
  // Vega's copyright comment and as XML namespaces, never as something to load.)
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // Vega is inside, with its copyright notice.
  EXPECT_NE(html.find("var vega = (function"), std::string::npos);
  EXPECT_NE(html.find("UW Interactive Data Lab"), std::string::npos);
  // Text from the database cannot end the data's script element.
  EXPECT_EQ(html.find("</script><script>alert"), std::string::npos);
  int scripts = 0;
  for (std::size_t p = 0; (p = html.find("</script>", p)) != std::string::npos; ++p) ++scripts;
  EXPECT_EQ(scripts, 3);  // the data, Vega, the page's own script
  EXPECT_NE(html.find("355.11"), std::string::npos);
}

TEST(ReportHtml, BandwidthUnitsAreRecognisedByTheirMegabyte) {
  EXPECT_EQ(report::bytes_per_second_of("MiB/s"), 1048576.0);
  EXPECT_EQ(report::bytes_per_second_of("Mbytes/sec"), 1048576.0);
  EXPECT_EQ(report::bytes_per_second_of("MB/s (1e6 bytes/s)"), 1e6);
  EXPECT_EQ(report::bytes_per_second_of("MB/s (10^6 bytes per second, as printed)"), 1e6);
  EXPECT_FALSE(report::bytes_per_second_of("MB/s"));  // which megabyte is not said
  EXPECT_FALSE(report::bytes_per_second_of("microseconds"));
  EXPECT_FALSE(report::bytes_per_second_of("bytes"));
}

// One unit per page: IMB's MiB/s throughput, b_eff's 10^6-byte bandwidth and a summary figure
// all come out in the unit chosen; accurate mode's interval and SKaMPI's standard error are
// carried as the interval of the row's time.
TEST(ReportHtml, EveryBandwidthInThePagesUnitAndIntervalsCarried) {
  db::StoredRun r;
  r.id = 1;
  r.info.suite = "imb-mpi1";
  r.info.world_size = 4;
  r.info.ranks_per_host = {{"a", 2}, {"b", 2}};
  r.summary.push_back({"b_eff", 100.0, "MB/s (1e6 bytes/s)"});
  core::BenchmarkRun imb;
  imb.name = "PingPong";
  imb.parameters["measurement"] = "accurate";
  core::Measurement m;
  m.measured = true;
  m.bytes = 1024;
  m.t_max_us = 9;
  m.mbytes_per_sec = 1.0;  // MiB/s
  m.values = {{"median_us", 2.0, "us"}, {"ci95_low_us", 1.9, "us"}, {"ci95_high_us", 2.2, "us"}};
  imb.rows.push_back(m);
  core::BenchmarkRun skampi;
  skampi.name = "MPI_Barrier-nodes";
  skampi.sized = false;
  skampi.parameters["argument_unit"] = "processes";
  core::Measurement s;
  s.measured = true;
  s.t_avg_us = s.t_max_us = 10;
  s.values = {{"argument", 3, "processes"},
              {"standard_error", 0.5, "us"},
              {"bandwidth", 2e6 / 1048576.0, "MiB/s"}};
  skampi.rows.push_back(s);
  r.benchmarks = {imb, skampi};

  report::ReportOptions mb;
  mb.units = report::BandwidthUnit::kMB;
  const auto data = report::report_data({r}, "x", mb);
  EXPECT_EQ(data["units"]["bandwidth"], "MB/s");
  const auto& run = data["runs"][0];
  EXPECT_EQ(run["hosts"], "2 hosts \u00d7 2 ranks");
  EXPECT_EQ(run["method"], "classic and accurate");
  EXPECT_DOUBLE_EQ(run["summary"][0]["value"].get<double>(), 100.0);
  EXPECT_EQ(run["summary"][0]["unit"], "MB/s");
  const auto& pingpong = run["tables"][0];
  EXPECT_EQ(pingpong["method"], "accurate");
  EXPECT_DOUBLE_EQ(pingpong["rows"][0]["bw"].get<double>(), 1.048576);
  EXPECT_DOUBLE_EQ(pingpong["rows"][0]["t_us"].get<double>(), 2.0);  // the median
  EXPECT_DOUBLE_EQ(pingpong["rows"][0]["lo"].get<double>(), 1.9);
  EXPECT_DOUBLE_EQ(pingpong["rows"][0]["hi"].get<double>(), 2.2);
  const auto& barrier = run["tables"][1];
  EXPECT_EQ(barrier["axis"], "processes");
  EXPECT_DOUBLE_EQ(barrier["rows"][0]["x"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(barrier["rows"][0]["lo"].get<double>(), 9.5);
  EXPECT_DOUBLE_EQ(barrier["rows"][0]["hi"].get<double>(), 10.5);
  EXPECT_NEAR(barrier["rows"][0]["values"]["bandwidth"][0].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(barrier["rows"][0]["values"]["bandwidth"][1], "MB/s");

  const auto mib = report::report_data({r}, "x");
  EXPECT_DOUBLE_EQ(mib["runs"][0]["tables"][0]["rows"][0]["bw"].get<double>(), 1.0);
  EXPECT_NEAR(mib["runs"][0]["summary"][0]["value"].get<double>(), 100e6 / 1048576.0, 1e-9);
}

// A table's model goes to the page as the JSON output writes it (one serializer), for the time
// plot's dashed lines and the card's words.
TEST(ReportHtml, ATablesModelIsOnThePage) {
  db::StoredRun r;
  r.id = 1;
  r.info.suite = "imb-mpi1";
  core::BenchmarkRun b;
  b.name = "PingPong";
  b.nprocs = 2;
  core::Measurement m;
  m.measured = true;
  m.bytes = 1024;
  m.t_min_us = m.t_max_us = m.t_avg_us = 1.0;
  b.rows.push_back(m);
  core::CurveModel model;
  model.time_column = "t_max";
  model.regions.push_back({.first_bytes = 0,
                           .last_bytes = 2048,
                           .points = 12,
                           .alpha_us = 0.22,
                           .beta_mb_per_s = 6830.0,
                           .rms_relative_error = 0.09});
  b.model = model;
  r.benchmarks.push_back(b);
  const auto data = report::report_data({r}, "x");
  const auto& page_model = data["runs"][0]["tables"][0]["model"];
  EXPECT_EQ(page_model["time_column"], "t_max");
  EXPECT_DOUBLE_EQ(page_model["regions"][0]["beta_mb_per_s"].get<double>(), 6830.0);
  EXPECT_EQ(page_model["regions"][0]["last_bytes"], 2048);
}
