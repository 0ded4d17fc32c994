// Runs chosen by what they are (src/report/run_sets.hpp) in every command that reads sets of
// runs: twelve imported nights labelled before/after (30 % slower after) and one real launch;
// compare by labels, dates and MPI library, report --runs/--compare by label (the page's legend
// data carries the label), export by benchmark and suite, history by label and MPI library;
// mistakes get one error naming what chose nothing; ids are never given out again after delete.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

// The ids of one side of `compare --json`.
std::vector<int> side_ids(const json& comparison, const char* side) {
  return comparison.at(side).get<std::vector<int>>();
}

json page_data(const std::string& path) {
  const std::string page = read_file(path);
  const std::string open = "id=\"mpiscope-data\">";
  const auto from = page.find(open) + open.size();
  return json::parse(page.substr(from, page.find("</script>", from) - from));
}

}  // namespace

TEST(RunSets, EveryCommandChoosesRunsByLabelSuiteBenchmarkDateAndMpi) {
  const auto dir = temp_dir();
  const auto db = dir + "/sets.sqlite";
  std::vector<std::string> import = {"import", "--db", db};
  for (int night = 1; night <= 12; ++night)
    import.push_back(write_file(dir, "night" + std::to_string(night) + ".txt",
                                imb_pingpong_night(night, night > 6 ? 1.3 : 1.0, "6.1.0-27")));
  ASSERT_EQ(run_plain(import).exit_code, 0);
  for (int id = 1; id <= 12; ++id)
    ASSERT_EQ(run_plain({"label", "--db", db, std::to_string(id), id <= 6 ? "before" : "after"})
                  .exit_code,
              0);
  const auto live = run_mpi(
      2, {"imb-mpi1", "PingPong", "-msglog", "0:2", "-iter", "50", "--db", db, "--label", "live"});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  const std::vector<int> before = {1, 2, 3, 4, 5, 6}, after = {7, 8, 9, 10, 11, 12};

  // compare: by label (the issue's `compare baseline candidate`), by dates, by the MPI library.
  const auto by_label = run_plain({"compare", "--db", db, "before", "after", "--json"});
  ASSERT_EQ(by_label.exit_code, 0) << by_label.err;
  const auto c = json::parse(by_label.out);
  EXPECT_EQ(side_ids(c, "a"), before);
  EXPECT_EQ(side_ids(c, "b"), after);
  ASSERT_EQ(c.at("rows").size(), 3u);
  for (const auto& row : c.at("rows")) EXPECT_NEAR(row.at("ratio").get<double>(), 1.3, 0.05);
  EXPECT_EQ(
      run_plain({"compare", "--db", db, "label=before", "after", "--fail-above", "10"}).exit_code,
      3);
  const auto by_date = run_plain({"compare", "--db", db, "since=2026-03-01,until=2026-03-06",
                                  "since=2026-03-07,until=2026-03-12T02:00", "--json"});
  ASSERT_EQ(by_date.exit_code, 0) << by_date.err;
  EXPECT_EQ(side_ids(json::parse(by_date.out), "a"), before);
  EXPECT_EQ(side_ids(json::parse(by_date.out), "b"), after);
  const auto by_mpi =
      run_plain({"compare", "--db", db, "mpi=" + mpi_library_name(), "before", "--json"});
  ASSERT_EQ(by_mpi.exit_code, 0) << by_mpi.err;
  EXPECT_EQ(side_ids(json::parse(by_mpi.out), "a"), std::vector<int>{13});

  // report: --runs by label, --compare by labels; the page's data carries each run's label.
  const auto page = dir + "/report.html";
  const auto report = run_plain(
      {"report", "--db", db, "--runs", "after,live", "--compare", "before:after", "-o", page});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto data = page_data(page);
  ASSERT_EQ(data.at("runs").size(), 7u);
  EXPECT_EQ(data.at("runs").at(0).at("label"), "after");
  EXPECT_EQ(data.at("runs").at(6).at("label"), "live");

  // export: by benchmark and suite (every run holds PingPong; the live run's suite is imb-mpi1,
  // the imports' too), a key given twice takes either value.
  const auto exported = run_plain(
      {"export", "--db", db, "--format", "json", "benchmark=pingpong,label=live,label=before"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::set<int> exported_runs;
  for (const auto& row : json::parse(exported.out)) exported_runs.insert(row.at("run").get<int>());
  EXPECT_EQ(exported_runs, (std::set<int>{1, 2, 3, 4, 5, 6, 13}));

  // history: --label twice, --mpi.
  const auto h = run_plain(
      {"history", "PingPong", "--db", db, "--label", "before", "--label", "after", "--json"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_EQ(json::parse(h.out).at("runs"), 12);
  const auto hm =
      run_plain({"history", "PingPong", "--db", db, "--mpi", mpi_library_name(), "--json"});
  ASSERT_EQ(hm.exit_code, 0) << hm.err;
  EXPECT_EQ(json::parse(hm.out).at("runs"), 1);

  // Mistakes: one error each, naming what chose nothing; exit 2.
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"compare", "before", "nosuch"},
            "RUN_B 'nosuch' chooses no run in '" + db +
                "': no run is labelled 'nosuch' (labels: 'after', 'before', 'live')"},
           {{"compare", "1,label=before", "after"},
            "RUN_A '1,label=before': name runs by id or choose them by label and filters, not "
            "both in one set"},
           {{"compare", "colour=red", "after"}, "RUN_A 'colour=red': unknown key 'colour'"},
           {{"compare", "before,since=2026-03-07", "after"},
            "RUN_A 'before,since=2026-03-07' chooses no run in '" + db +
                "': each of its conditions is met by some run, but no run meets them all"},
           {{"export", "mpi=no such library"},
            "RUN 'mpi=no such library' chooses no run in '" + db +
                "': no run's MPI library or version contains 'no such library'"},
           {{"report", "-o", page, "--runs", "until=2026-02-30"},
            "until= '2026-02-30': no such day"},
           {{"runs", "--suite", "nosuch"}, "--suite 'nosuch': no such suite"}}) {
    std::vector<std::string> full = args;
    full.insert(full.begin() + 1, {"--db", db});
    const auto r = run_plain(full);
    EXPECT_EQ(r.exit_code, 2) << args[1] << r.out;
    EXPECT_EQ(count_of(r.err, "error"), 1) << r.err;
    EXPECT_EQ(count_of(r.err, message), 1) << r.err;
  }

  // A deleted run's id is never given to another: the newest run (13) deleted, the next is 14.
  ASSERT_EQ(run_plain({"delete", "--db", db, "13"}).exit_code, 0);
  const auto again = run_plain({"import", "--db", db, import[3]});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find(": run 14 "), std::string::npos) << again.out;
}
