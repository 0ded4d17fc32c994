// OSU 7.4's osu_bw_fan_in and osu_bw_fan_out across the test hosts (issue 34 item 5): their
// text line by line against OSU's own binaries' (tests/data/import/osu_bw_fan_7.4.txt, built
// from OSU 7.4's c/mpi/pt2pt/congestion and run on these hosts: Open MPI 2 hosts x 2 and 3 x 1,
// MPICH 2 x 1); who sends to whom, in which order (PMPI trace); and the figure, every message of
// the fan over the senders' mean time, against a known reply delay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster.hpp"

namespace {
using namespace cluster;
using harness::lines_of;

// The capture's runs, each from its blank line before "# OSU" to the next.
std::vector<std::vector<std::string>> osu_runs() {
  std::vector<std::vector<std::string>> runs;
  const auto lines = lines_of(harness::read_file(harness::sample("osu_bw_fan_7.4.txt")));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() && i + 1 < lines.size() && lines[i + 1].rfind("# OSU", 0) == 0)
      runs.emplace_back();
    if (!runs.empty() && !(lines[i].empty() && !runs.back().empty()))
      runs.back().push_back(lines[i]);
  }
  return runs;
}

struct Layout {
  int np;
  Placement placement;
  std::vector<int> parents;  // the ranks on h1, the first node in name order
};
// The layouts the capture holds: the library's launcher puts 2 x 2 on h1 and h2 (ranks 0-1 on
// h1), and 3 x 1 (2 x 1 under MPICH) one rank per host in rank order.
std::vector<Layout> layouts() {
  if (harness::is_openmpi())
    return {{4, Placement::kFillHosts, {0, 1}}, {3, Placement::kRoundRobin, {0}}};
  return {{2, Placement::kRoundRobin, {0}}};
}

bool is_parent(const Layout& l, int rank) {
  return std::find(l.parents.begin(), l.parents.end(), rank) != l.parents.end();
}

// Every line as OSU's, but the column heading: OSU 7.4's print_only_header has no case for its
// congestion programs and labels their MB/s "Avg Latency(us)"; mpiscope says what they are. Only
// the senders time (fan-in the children, fan-out the parents).
TEST(OsuFan, TextIsOsusLineByLineAndOnlyTheSendersTime) {
  REQUIRE_CLUSTER();
  const auto runs = osu_runs();
  ASSERT_EQ(runs.size(), 6u);
  const auto dir = shared_dir();
  std::size_t first_run = harness::is_openmpi() ? 0 : 4;
  for (const auto& layout : layouts()) {
    const std::vector<std::string> sizes =
        layout.np == 4   ? std::vector<std::string>{"-m", "1:1024", "-i", "20", "-x", "2"}
        : layout.np == 3 ? std::vector<std::string>{"-m", "4:64", "-i", "10", "-x", "1"}
                         : std::vector<std::string>{"-m", "1:16", "-i", "10", "-x", "1"};
    for (const std::string program : {"osu_bw_fan_in", "osu_bw_fan_out"}) {
      const auto& osu = runs[first_run++];
      std::vector<std::string> args = {"osu", program};
      args.insert(args.end(), sizes.begin(), sizes.end());
      args.insert(args.end(), {"--json", dir + "/r.json", "--no-db"});
      const auto r = run_on_cluster(layout.np, layout.placement, args, dir);
      ASSERT_EQ(r.exit_code, 0) << program << " " << layout.np << r.err << r.out;
      const auto ours = lines_of(r.out);
      ASSERT_EQ(ours.size(), osu.size()) << r.out;
      for (std::size_t i = 0; i < ours.size(); ++i) {
        if (i == 3) {
          EXPECT_EQ(osu[i], "# Size       Avg Latency(us)");
          EXPECT_EQ(ours[i], "# Size      Bandwidth (MB/s)");
        } else if (i < 3) {
          EXPECT_EQ(ours[i], osu[i]) << program << " line " << i;
        } else {  // OSU's "%-10d%18.2f": the size as OSU's, a positive figure
          EXPECT_EQ(ours[i].size(), osu[i].size()) << ours[i];
          EXPECT_EQ(ours[i].substr(0, 10), osu[i].substr(0, 10)) << program;
          EXPECT_GT(std::stod(ours[i].substr(10)), 0) << ours[i];
        }
      }
      const auto doc = run_json(dir + "/r.json");
      const bool fan_in = program == "osu_bw_fan_in";
      for (const auto& row : doc["benchmarks"][0]["rows"]) {
        const auto& times = row["rank_times_us"];
        ASSERT_EQ(times.size(), static_cast<std::size_t>(layout.np));
        for (int rank = 0; rank < layout.np; ++rank)
          if (is_parent(layout, rank) == fan_in)
            EXPECT_EQ(times[rank].get<double>(), -1) << program << " rank " << rank;
          else
            EXPECT_GT(times[rank].get<double>(), 0) << program << " rank " << rank;
      }
      const int nodes = layout.np / static_cast<int>(layout.parents.size());
      EXPECT_NE(doc["run"]["settings"]["fan"].get<std::string>().find(
                    std::to_string(nodes) + " nodes of " + std::to_string(layout.parents.size()) +
                    " processes each"),
                std::string::npos)
          << doc["run"]["settings"]["fan"];
    }
  }
}

// Each reply (MPI_Send) delayed by D through the project's PMPI library: a fan-out parent waits
// for its children's replies, made at once, so its iteration takes D; a fan-in parent replies to
// its children in turn, so each child's iteration takes (nodes - 1) D. Every message of the fan
// (window x ppn x (nodes - 1)) over the senders' mean iteration is then D / (window x ppn x
// (nodes - 1)) out and D / (window x ppn) in. The trace shows each sender's window slot by slot,
// peer by peer in node order, to the parent or from it.
TEST(OsuFan, FigureIsEveryMessageOverTheSendersMeanIteration) {
  REQUIRE_CLUSTER();
  const auto dir = shared_dir();
  constexpr double kDelayUs = 50000;
  constexpr int kWindow = 4;
  for (const auto& layout : layouts()) {
    for (const std::string program : {"osu_bw_fan_in", "osu_bw_fan_out"}) {
      const std::string trace = harness::temp_dir("/var/tmp");
      const std::string wrapper = harness::write_file(
          dir, "delayed.sh",
          "#!/bin/sh\nMPISCOPE_DELAY=MPI_Send=" + std::to_string(static_cast<int>(kDelayUs)) +
              " MPISCOPE_TRACE=" + trace +
              " ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 LD_PRELOAD=" +
              harness::bin_dir() + "/libmpiscope_delay.so exec " + harness::bin_dir() +
              "/mpiscope \"$@\"\n");
      harness::run_command("chmod +x " + harness::quote(wrapper));
      const auto r =
          run_on_cluster(layout.np, layout.placement,
                         {"osu", program, "-m", "1024:1024", "-W", std::to_string(kWindow), "-i",
                          "4", "-x", "2", "--json", dir + "/d.json", "--no-db"},
                         dir, 120, wrapper);
      ASSERT_EQ(r.exit_code, 0) << program << r.err << r.out;
      const int ppn = static_cast<int>(layout.parents.size()), nodes = layout.np / ppn;
      const bool fan_in = program == "osu_bw_fan_in";
      const double expected = kDelayUs * (fan_in ? nodes - 1 : 1) / (kWindow * ppn * (nodes - 1));
      const auto doc = run_json(dir + "/d.json");
      const auto& row = doc["benchmarks"][0]["rows"][0];
      const double t = row["t_avg_us"].get<double>();
      std::printf("%s on %d ranks: %.1f us per message, %.1f expected\n", program.c_str(),
                  layout.np, t, expected);
      EXPECT_GT(t, 0.98 * expected) << program << " on " << layout.np;
      EXPECT_LT(t, 1.3 * expected) << program << " on " << layout.np;
      EXPECT_NEAR(row["values"]["osu_bandwidth"]["value"].get<double>(), 1024 / t, 1e-6 * 1024 / t);
      // Each rank's data calls: a parent's window to or from every child, slot by slot.
      for (int rank = 0; rank < layout.np; ++rank) {
        const bool parent = is_parent(layout, rank);
        std::vector<int> peers;
        if (parent)
          for (int n = 1; n < nodes; ++n)
            peers.push_back(layout.placement == Placement::kFillHosts ? rank + n * ppn : rank + n);
        else
          peers.push_back(layout.placement == Placement::kFillHosts ? rank % ppn : 0);
        const bool sends = parent != fan_in;
        std::vector<int> seen;
        for (const auto& line :
             lines_of(harness::read_file(trace + "/trace." + std::to_string(rank)))) {
          const auto w = harness::words_of(line);
          if (w.size() >= 4 && w[0] == (sends ? "MPI_Isend" : "MPI_Irecv") && w[1] == "1024")
            seen.push_back(std::stoi(w[3]));
        }
        ASSERT_EQ(seen.size(), peers.size() * kWindow * (4 + 2)) << program << " rank " << rank;
        for (std::size_t k = 0; k < seen.size(); ++k)
          EXPECT_EQ(seen[k], peers[k % peers.size()])
              << program << " rank " << rank << " call " << k;
      }
    }
  }
}

// OSU's fan text (osu_bw's title over "Avg Latency(us)") imports as osu_bw_fan, whose direction
// the text does not give, with its MB/s as printed; it compares with no two-rank osu_bw.
TEST(OsuFan, ImportKeepsOsusFanTablesApartFromOsuBw) {
  const auto dir = harness::temp_dir();
  const auto db = dir + "/fan.db";
  const auto tidy =
      harness::import_then_export(db, harness::sample("osu_bw_fan_7.4.txt"), "6 tables, 42 rows");
  EXPECT_GE(harness::count_of(tidy, "\"osu_bw_fan\""), 42) << tidy;
  EXPECT_EQ(harness::count_of(tidy, "\"osu_bw\""), 0) << tidy;
  EXPECT_NE(tidy.find("\"osu_bandwidth\",141.63,"), std::string::npos) << tidy;
  const auto r =
      harness::run_mpi(2, {"osu", "osu_bw", "-m", "1:16", "-i", "5", "-x", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = harness::run_plain({"compare", "--db", db, "1", "2"});
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("# only in A: osu_bw_fan, datatype=MPI_CHAR"), std::string::npos) << c.out;
}

// One node is no fan: one error from rank 0, as OSU 7.4 refuses it, and no rank hangs.
TEST(OsuFan, OneNodeIsRefused) {
  const auto r = harness::run_mpi(2, {"osu", "osu_bw_fan_out", "--no-db"}, "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("osu_bw_fan_out needs processes on more than one node"), std::string::npos)
      << r.err;
  const auto c = harness::run_mpi(2, {"osu", "osu_bw_fan_in", "-c", "--no-db"}, "", 60);
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find("has no validation"), std::string::npos) << c.err;
}

}  // namespace
