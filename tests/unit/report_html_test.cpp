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
  EXPECT_DOUBLE_EQ(row[0]["mbytes_per_sec"].get<double>(), 355.11);
  EXPECT_EQ(data["runs"][0]["summary"][0]["unit"], "MB/s");

  const auto html = report::render_html({r}, "/x/results.sqlite");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing is fetched: no external script, style, image or font.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // Text from the database cannot end the data's script element.
  EXPECT_EQ(html.find("</script><script>alert"), std::string::npos);
  int scripts = 0;
  for (std::size_t p = 0; (p = html.find("</script>", p)) != std::string::npos; ++p) ++scripts;
  EXPECT_EQ(scripts, 2);
  EXPECT_NE(html.find("355.11"), std::string::npos);
}
