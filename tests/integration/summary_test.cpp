// Issue 32 item 4: `mpiscope summary` prints the machine on one screen from the stored runs, each
// figure from the newest run that has it and naming that run and table; the report's first card
// carries the same figures (tests/browser follows its links).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;
using json = nlohmann::json;

namespace {

// The line of `figure` in summary's text.
std::string line_of(const std::string& out, const std::string& figure) {
  for (const auto& line : lines_of(out))
    if (line.rfind(figure + "  ", 0) == 0) return line;
  return "";
}

}  // namespace

TEST(Summary, EachFigureComesFromTheNewestRunThatMeasuredIt) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.sqlite";
  // Run 1: Intel's IMB-MPI1 PingPong of Open MPI here, imported (vader's switch at 4 KiB).
  ASSERT_EQ(
      run_plain({"import", "--db", db, sample("imb_mpi1_pingpong_openmpi_2021.11.txt")}).exit_code,
      0);
  // Runs 2 and 3: a live b_eff and a live PingPong too short for a model (3 lengths), which
  // records where its ranks ran.
  auto beff = run_mpi(2, {"beff", "--memory-per-process", "0.5", "--loop-time", "0.2",
                          "--random-patterns", "2", "--repetitions", "1", "--db", db});
  ASSERT_EQ(beff.exit_code, 0) << beff.err;
  auto pingpong = run_mpi(2, {"imb-mpi1", "PingPong", "-msglog", "0:2", "-iter", "20", "--db", db});
  ASSERT_EQ(pingpong.exit_code, 0) << pingpong.err;
  // Run 4: IMB-EXT's one-sided transfers, newer than the PingPong but not what "peak bandwidth"
  // means (two-sided point-to-point).
  auto one_sided = run_mpi(
      2, {"imb-ext", "Unidir_Put", "Bidir_Get", "-msglog", "0:2", "-iter", "20", "--db", db});
  ASSERT_EQ(one_sided.exit_code, 0) << one_sided.err;

  const auto s = run_plain({"summary", "--db", db});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("# mpiscope summary of 4 runs in " + db), std::string::npos) << s.out;
  // The model's figures come from the imported curve: the newest run with a model.
  const auto latency = line_of(s.out, "latency");
  EXPECT_NE(latency.find("fitted alpha of 0 B to 2 KiB"), std::string::npos) << s.out;
  EXPECT_NE(latency.find("(run 1: PingPong, 2 processes)"), std::string::npos) << s.out;
  EXPECT_NE(line_of(s.out, "protocol switch").find("2 KiB -> 4 KiB"), std::string::npos) << s.out;
  EXPECT_NE(line_of(s.out, "bandwidth").find("fitted beta of 4 KiB to 1 MiB"), std::string::npos)
      << s.out;
  // The peak bandwidth from the newest run with a two-sided single transfer: the live PingPong
  // of run 3, not run 4's one-sided tables. Its length is whichever of 1, 2 and 4 bytes read
  // fastest: under ASan beside other tests a 2-byte PingPong once ran half as long as 4 bytes.
  EXPECT_TRUE(std::regex_search(line_of(s.out, "peak bandwidth"),
                                std::regex(R"( at [124] B \(run 3: PingPong)")))
      << s.out;
  EXPECT_NE(line_of(s.out, "b_eff").find("(run 2: beff)"), std::string::npos) << s.out;
  // Nothing measured it: said, not made up.
  EXPECT_NE(line_of(s.out, "I/O bandwidth").find("not measured"), std::string::npos) << s.out;
  EXPECT_NE(line_of(s.out, "guideline violations").find("not measured"), std::string::npos)
      << s.out;
  // The configuration from the newest run that recorded one (imports do not).
  EXPECT_NE(line_of(s.out, "placement").find("(run 4: imb-ext)"), std::string::npos) << s.out;
  EXPECT_NE(line_of(s.out, "MPI library").find(mpi_library_name()), std::string::npos) << s.out;

  // Runs named: only those; --json: the same figures.
  const auto only_import = run_plain({"summary", "1", "--db", db, "--json"});
  ASSERT_EQ(only_import.exit_code, 0) << only_import.err;
  const auto j = json::parse(only_import.out);
  EXPECT_EQ(j.at("runs"), 1);
  bool latency_from_run_1 = false, beff_missing = false;
  for (const auto& f : j.at("figures")) {
    if (f.at("name") == "latency")
      latency_from_run_1 = f.at("run") == 1 && f.at("table") == "PingPong";
    if (f.at("name") == "b_eff") beff_missing = f.at("value") == "not measured";
  }
  EXPECT_TRUE(latency_from_run_1) << j.dump(1);
  EXPECT_TRUE(beff_missing) << j.dump(1);

  // The report opens with the same card.
  ASSERT_EQ(run_plain({"report", "--db", db, "-o", dir + "/r.html"}).exit_code, 0);
  const std::string page = read_file(dir + "/r.html");
  EXPECT_NE(page.find("\"machine_summary\""), std::string::npos);
  EXPECT_NE(page.find("fitted alpha of 0 B to 2 KiB"), std::string::npos);

  // Bad input: one error, exit 2.
  const auto bad = run_plain({"summary", "9", "--db", db});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(count_of(bad.err, "error"), 1) << bad.err;
  const auto empty = run_plain({"summary", "--db", dir + "/none.sqlite"});
  EXPECT_NE(empty.exit_code, 0);
}
