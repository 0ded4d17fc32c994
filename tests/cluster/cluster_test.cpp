// Every suite across hosts: 3 test hosts of scripts/cluster (own network, hostname, /tmp and
// /dev/shm each; docs/testing.md), 2 ranks each, started by the library's own launcher over ssh
// with a hostfile, from host h1. Skipped, saying why, where no cluster could be started.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster.hpp"

using harness::Result;
using json = nlohmann::json;

namespace {
using namespace cluster;

// Every suite's command line for the cross-host tests (SKaMPI's needs a configuration file and
// the one-sided suites' outcome depends on the library: they are run apart), `io` the shared I/O
// directory.
std::vector<std::pair<std::string, std::vector<std::string>>> every_suite(const std::string& io) {
  return {
      {"imb-mpi1", {"imb-mpi1", "Allreduce", "-msglog", "0:4"}},
      {"imb-io", {"imb-io", "S_Write_indv", "-msglog", "0:4", "--io-dir", io}},
      {"imb-nbc", {"imb-nbc", "Ibcast", "-msglog", "0:4"}},
      {"beff",
       {"beff", "--memory-per-process", "1", "--loop-time", "0.05", "--random-patterns", "1",
        "--repetitions", "1"}},
      {"beffio",
       {"beffio", "-T", "2", "--memory-per-node", "64M", "--disk-limit", "64M", "--io-dir", io}},
      {"presta", {"presta", "com", "-o", "5", "-e", "1024"}},
      {"osu", {"osu", "osu_allreduce", "-m", "1:64", "-i", "10", "-x", "1"}},
      {"map", {"map", "--large", "65536"}}};
}

// A SKaMPI configuration file in `dir`: one short ping-pong suite.
std::string skampi_pingpong(const std::string& dir) {
  return harness::write_file(
      dir, "pp.skampi",
      "@MEMORY 64\n@MEASUREMENTS\nPingpong\n{\n  Type = 1;\n  End_Argument = 1024;\n"
      "  Max_Repetition = 3;\n  Min_Repetition = 2;\n  Standard_error = 0.5;\n}\n");
}

// t[usec] of PingPong at `bytes` from IMB text output.
double pingpong_us(const std::string& out, std::size_t bytes) {
  const auto tables = harness::parse_imb(out);
  for (const auto* t : harness::tables_named(tables, "PingPong"))
    for (const auto& row : t->cells)
      if (row.size() >= 3 && row[0] == std::to_string(bytes)) return std::stod(row[2]);
  return -1;
}

TEST(Cluster, MetadataNamesTheHostsAndWhichRanksRanOnEach) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const auto r = run_on_cluster(6, Placement::kFillHosts,
                                {"imb-mpi1", "PingPong", "Allreduce", "-msglog", "0:2", "--json",
                                 dir + "/run.json", "--no-db"},
                                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json run = run_json(dir + "/run.json").at("run");
  EXPECT_EQ(run.at("world_size"), 6);
  EXPECT_EQ(run.at("ranks_per_host"), json({{"h1", 2}, {"h2", 2}, {"h3", 2}}));
  EXPECT_EQ(run.at("settings").at("hosts_of_ranks"), "h1: 0-1; h2: 2-3; h3: 4-5");
  // Judged per host: 2 ranks on each host's 2 CPUs, although 6 share this machine's 2 cores.
  EXPECT_EQ(run.at("settings").at("oversubscribed"), "no");
  EXPECT_NE(r.out.find("# Hosts                 : h1 (2 ranks), h2 (2 ranks), h3 (2 ranks)"),
            std::string::npos)
      << r.out.substr(0, 2000);
}

TEST(Cluster, PingPongBetweenHostsIsSlowerThanWithinOne) {
  REQUIRE_CLUSTER();
  const auto dir = shared_dir();
  // No short -time: current IMB's table time-out (-time per length) would skip the 1 KiB row
  // when the first contact between hosts is slow (CI, stop 33: exit 5).
  const std::vector<std::string> args = {"imb-mpi1", "PingPong", "-msglog", "9:10", "--json"};
  auto with_json = [&](const std::string& name) {
    auto a = args;
    a.push_back(dir + "/" + name);
    a.insert(a.end(), {"--no-db"});
    return a;
  };
  const auto across = run_on_cluster(2, Placement::kRoundRobin, with_json("across.json"), dir);
  ASSERT_EQ(across.exit_code, 0) << across.err << across.out;
  const auto within = run_on_cluster(2, Placement::kFillHosts, with_json("within.json"), dir);
  ASSERT_EQ(within.exit_code, 0) << within.err << within.out;
  EXPECT_EQ(run_json(dir + "/across.json").at("run").at("settings").at("hosts_of_ranks"),
            "h1: 0; h2: 1");
  EXPECT_EQ(run_json(dir + "/within.json").at("run").at("settings").at("hosts_of_ranks"),
            "h1: 0-1");
  // Across hosts the message crosses the test network (TCP over a veth pair and a bridge);
  // within a host it goes through shared memory.
  const double t_across = pingpong_us(across.out, 1024), t_within = pingpong_us(within.out, 1024);
  ASSERT_GT(t_across, 0) << across.out;
  ASSERT_GT(t_within, 0) << within.out;
  EXPECT_GT(t_across, 2 * t_within) << "across hosts " << t_across << " us, within " << t_within;
  std::printf("PingPong 1 KiB: %.2f us across hosts, %.2f us within one\n", t_across, t_within);
}

// Every suite across two hosts, one rank on each, started by the library's own launcher (Open
// MPI's mpirun or MPICH's mpiexec, over ssh): the layout MPICH runs on this 2-core machine
// (docs/testing.md). IMB-EXT's and IMB-RMA's one-sided calls run between hosts over MPICH's UCX;
// Debian's Open MPI 4.1 has no one-sided component for TCP, so there they must say not run and
// exit 1.
TEST(Cluster, EverySuiteRunsOnTwoHostsWithTheLibrarysLauncher) {
  REQUIRE_CLUSTER();
  const auto dir = shared_dir();
  const auto io = harness::temp_dir("/var/tmp");
  for (auto [name, args] : every_suite(io)) {
    const std::string json_path = dir + "/" + name + ".json";
    args.insert(args.end(), {"--json", json_path, "--no-db"});
    const auto r = run_on_cluster(2, Placement::kRoundRobin, args, dir, 240);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err << r.out;
    const json run = run_json(json_path);
    EXPECT_TRUE(run.at("complete").get<bool>()) << name;
    EXPECT_EQ(run.at("run").at("settings").value("hosts_of_ranks", ""), "h1: 0; h2: 1") << name;
  }
  for (const std::vector<std::string>& one_sided :
       {std::vector<std::string>{"imb-ext", "Unidir_Put"}, {"imb-rma", "Unidir_put"}}) {
    auto args = one_sided;
    args.insert(args.end(), {"-msglog", "0:2", "--no-db"});
    const auto r = run_on_cluster(2, Placement::kRoundRobin, args, dir);
    const auto tables = harness::parse_imb(r.out);
    ASSERT_EQ(tables.size(), 2u) << r.err << r.out;  // non-aggregate and aggregate
    if (harness::is_openmpi()) {
      EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
      // Every row: IMB-EXT's lengths 0 and 4 (current IMB's 4-byte step), IMB-RMA's 0, 1, 2, 4.
      EXPECT_EQ(harness::count_of(r.out, "not run: MPI_Win_create failed"),
                2 * (one_sided[0] == "imb-ext" ? 2 : 4))
          << r.out;
    } else {
      EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
      EXPECT_EQ(harness::count_of(r.out, "not run"), 0) << r.out;
    }
  }
  const auto skampi = run_on_cluster(2, Placement::kRoundRobin,
                                     {"skampi", skampi_pingpong(dir), "--outfile",
                                      dir + "/skampi.out", "--logfile", dir + "/skampi.log"},
                                     dir);
  EXPECT_EQ(skampi.exit_code, 0) << skampi.err << skampi.out;
  EXPECT_NE(harness::read_file(dir + "/skampi.out").find("Pingpong"), std::string::npos);
  EXPECT_TRUE(harness::files_in(io).empty()) << "left behind: " << harness::files_in(io).front();
}

TEST(Cluster, IoSuitesRefuseADirectoryEachHostHasItsOwnOf) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  // /tmp is a private tmpfs on every test host, as a node-local scratch directory would be.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"imb-io", "S_Write_indv", "-msglog", "0:2", "--io-dir", "/tmp",
                                 "--no-db"},
        std::vector<std::string>{"beffio", "-T", "1", "--io-dir", "/tmp", "--no-db"}}) {
    const auto r = run_on_cluster(6, Placement::kFillHosts, args, dir, 60);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err << r.out;
    EXPECT_EQ(harness::count_of(r.err, "error: "), 1) << r.err;
    EXPECT_NE(r.err.find("--io-dir '/tmp' is not one directory shared by every process"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("not seen by 4 of the 6 processes, the first rank 2 (on h2)"),
              std::string::npos)
        << r.err;
  }
}

TEST(Cluster, ImbIoAndBeffIoRunInASharedDirectory) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const auto io = harness::temp_dir("/var/tmp");
  const auto imb = run_on_cluster(
      3, Placement::kRoundRobin,
      {"imb-io", "S_Write_indv", "P_Read_shared", "-msglog", "0:4", "--io-dir", io, "--no-db"},
      dir);
  EXPECT_EQ(imb.exit_code, 0) << imb.err << imb.out;
  // One table per process count (1, 2 and 3 processes on 1, 2 and 3 hosts).
  const auto tables = harness::parse_imb(imb.out);
  EXPECT_EQ(harness::tables_named(tables, "P_Read_Shared").size(), 3u) << imb.out;
  const auto beffio =
      run_on_cluster(3, Placement::kRoundRobin,
                     {"beffio", "-T", "2", "--memory-per-node", "64M", "--disk-limit", "64M",
                      "--io-dir", io, "--json", dir + "/beffio.json", "--no-db"},
                     dir, 240);
  ASSERT_EQ(beffio.exit_code, 0) << beffio.err << beffio.out;
  const json doc = run_json(dir + "/beffio.json");
  EXPECT_TRUE(doc.at("complete").get<bool>());
  EXPECT_EQ(doc.at("run")
                .at("settings")
                .at("fs_shared_between_processes")
                .get<std::string>()
                .rfind("yes", 0),
            0u);
  EXPECT_TRUE(harness::files_in(io).empty()) << "left behind: " << harness::files_in(io).front();
}

TEST(Cluster, BeffCompletesAcrossHosts) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const auto r = run_on_cluster(
      3, Placement::kRoundRobin,
      {"beff", "--memory-per-process", "1", "--loop-time", "0.05", "--random-patterns", "1",
       "--repetitions", "1", "--json", dir + "/beff.json", "--no-db"},
      dir, 240);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(run_json(dir + "/beff.json").at("complete").get<bool>());
}

TEST(Cluster, SkampiAndPrestaCompleteAcrossHosts) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const auto cfg = skampi_pingpong(dir);
  const auto skampi = run_on_cluster(
      2, Placement::kRoundRobin,
      {"skampi", cfg, "--outfile", dir + "/skampi.out", "--logfile", dir + "/skampi.log"}, dir);
  EXPECT_EQ(skampi.exit_code, 0) << skampi.err << skampi.out;
  EXPECT_NE(harness::read_file(dir + "/skampi.out").find("Pingpong"), std::string::npos);
  const auto com = run_on_cluster(
      4, Placement::kRoundRobin,
      {"presta", "com", "-o", "5", "-e", "1024", "--json", dir + "/com.json", "--no-db"}, dir);
  EXPECT_EQ(com.exit_code, 0) << com.err << com.out;
}

// PRESTA's processes per SMP (-t) default from the real layout: 3 hosts × 2 consecutive ranks
// give 2, and the default process counts step by two nodes (4, 6), as with -t 2; ranks dealt
// round robin do not; an explicit -t wins.
TEST(Cluster, PrestaTakesProcessesPerNodeFromTheLayout) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  auto com = [&](Placement placement, std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> args = {"presta",         "com",    "-o", "2", "-e", "64", "--json",
                                     dir + "/" + name, "--no-db"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_on_cluster(6, placement, args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    return run_json(dir + "/" + name).at("run").at("settings");
  };
  const json block = com(Placement::kFillHosts, {}, "block.json");
  EXPECT_EQ(block.at("processes_per_smp"), "2");
  EXPECT_EQ(block.at("processes_per_smp_source"),
            "from the layout: 3 hosts, each running 2 consecutive ranks");
  EXPECT_EQ(block.at("process_counts"), "4,6");
  // Ranks dealt round robin (block pairing does not describe them): not derived.
  const json dealt = com(Placement::kRoundRobin, {}, "dealt.json");
  EXPECT_EQ(dealt.at("processes_per_smp"), "not given");
  const json given = com(Placement::kFillHosts, {"-t", "3"}, "given.json");
  EXPECT_EQ(given.at("processes_per_smp"), "3");
  EXPECT_EQ(given.at("processes_per_smp_source"), "-t");
}

TEST(Cluster, AccurateModeWithWindowSynchronisationAcrossHosts) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const auto r =
      run_on_cluster(3, Placement::kRoundRobin,
                     {"imb-mpi1", "Allreduce", "-msglog", "2:4", "--method", "accurate", "--sync",
                      "window", "--target-ci", "20", "--min-reps", "10", "--max-reps", "40",
                      "--budget", "0.3", "--json", dir + "/acc.json", "--no-db"},
                     dir, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = run_json(dir + "/acc.json");
  EXPECT_EQ(doc.at("run").at("settings").at("hosts_of_ranks"), "h1: 0; h2: 1; h3: 2");
  int rows = 0;
  for (const auto& b : doc.at("benchmarks"))
    for (const auto& row : b.at("rows")) {
      ++rows;
      EXPECT_TRUE(row.contains("accurate")) << row.dump();
    }
  EXPECT_GT(rows, 0);
}

std::vector<std::string> notes_starting(const json& doc, const std::string& start) {
  std::vector<std::string> notes;
  for (const auto& n : doc.at("notes"))
    if (n.get<std::string>().rfind(start, 0) == 0) notes.push_back(n);
  return notes;
}

// The cluster's question: which host is slow? One rank on each of the 4 test hosts (6 pairs
// between hosts), h4's link limited with tc (tbf) to 100 Mbit/s: map must name h4 and no other
// host, and on the healthy cluster no host. One rank per host, as a map of nodes is launched.
// This needs a machine not loaded by others: under load 8 from compilers, healthy pairs were
// starved to 100-500 us per message in both sweeps (links flagged, which they were) or to the
// slowed host's bandwidth (nothing could be told apart, and map said so by flagging nothing).
TEST(Cluster, MapFlagsTheSlowedHostAndNoOther) {
  REQUIRE_CLUSTER();
  REQUIRE_OPEN_MPI_FOR_MANY_RANKS();
  const auto dir = shared_dir();
  const std::string cluster = std::string(MPISCOPE_SOURCE_DIR) + "/scripts/cluster";
  auto map = [&](const std::string& name) {
    return run_on_cluster(
        4, Placement::kRoundRobin,
        {"map", "--large", "262144", "--json", dir + "/" + name, "--db", dir + "/results.sqlite"},
        dir);
  };
  const auto healthy = map("healthy.json");
  ASSERT_EQ(healthy.exit_code, 0) << healthy.err << healthy.out;
  const json before = run_json(dir + "/healthy.json");
  EXPECT_EQ(before.at("run").at("settings").at("hosts_of_ranks"), "h1: 0; h2: 1; h3: 2; h4: 3");
  EXPECT_TRUE(notes_starting(before, "flagged host").empty()) << healthy.out;

  ASSERT_EQ(harness::run_command(cluster + " slow h4 100mbit").exit_code, 0);
  const auto slowed = map("slowed.json");
  harness::run_command(cluster + " fast h4");  // before any assertion can return
  ASSERT_EQ(slowed.exit_code, 0) << slowed.err << slowed.out;
  const json after = run_json(dir + "/slowed.json");
  const auto hosts = notes_starting(after, "flagged host");
  ASSERT_EQ(hosts.size(), 1u) << slowed.out;
  EXPECT_EQ(hosts[0].rfind("flagged host h4: bandwidth of its 3 rank pairs with other hosts", 0),
            0u)
      << slowed.out;
  // Each of h4's 3 pairs carries the host's flag, and no other pair a host's.
  int h4_pairs = 0;
  for (const auto& b : after.at("benchmarks")) {
    if (b.at("name") != "map") continue;  // each sweep's tables (map_sweep) carry no verdict
    const auto& p = b.at("parameters");
    const bool touches_h4 = p.at("host_a") == "h4" || p.at("host_b") == "h4";
    if (touches_h4)
      EXPECT_EQ(b.at("rows")[1].at("note"), "slow host h4") << b.dump();
    else
      EXPECT_EQ(b.at("rows")[1].value("note", "").find("host"), std::string::npos) << b.dump();
    h4_pairs += touches_h4 ? 1 : 0;
  }
  EXPECT_EQ(h4_pairs, 3);
}

// Slurm on the test hosts (scripts/cluster up starts it when slurmd, slurmctld and munge are
// installed): srun and an sbatch script, from h1.
bool slurm_up(std::string& why_not) {
  if (!cluster_up(why_not)) return false;
  struct stat st {};
  if (stat((kState + "/slurm.env").c_str(), &st) == 0) return true;
  why_not = "no Slurm on the test cluster: slurmd, slurmctld or munge is not installed";
  return false;
}

// Debian's MPICH 4.0.2 (ch4:ucx) under srun --mpi=pmi2 measures, then hangs in MPI_Finalize: one
// rank blocks reading the PMI socket while its peer waits in UCX for it (gdb, issue 19).
#define REQUIRE_SLURM_WITH_OPEN_MPI()                                                         \
  do {                                                                                        \
    std::string why_not;                                                                      \
    if (!slurm_up(why_not)) GTEST_SKIP() << why_not;                                          \
    if (!harness::is_openmpi())                                                               \
      GTEST_SKIP() << "Debian's MPICH (ch4:ucx) hangs in MPI_Finalize under srun --mpi=pmi2 " \
                      "here; see docs/clusters.md";                                           \
  } while (0)

// `command` on h1 in `dir` with Slurm's configuration (and Open MPI's yield, as for mpirun).
Result run_with_slurm(const std::string& command, const std::string& dir, int time_limit_s = 120) {
  const std::string cmd = "cd " + harness::quote(dir) + " && . " + kState +
                          "/slurm.env && exec env OMPI_MCA_mpi_yield_when_idle=1 timeout -k 5 " +
                          std::to_string(time_limit_s) + " " + command;
  return harness::run_command(std::string(MPISCOPE_SOURCE_DIR) + "/scripts/cluster exec h1 sh -c " +
                              harness::quote(cmd));
}

// The nodes the Slurm tests run on, named: Slurm may otherwise take any 3 of the 4 test hosts
// (one still completing the previous step is passed over), and the tests check where ranks ran.
const std::string kThreeNodes = "-N 3 -w h1,h2,h3";

TEST(Cluster, SrunStartsSuitesAcrossHostsAndTheRunNamesThem) {
  REQUIRE_SLURM_WITH_OPEN_MPI();
  const auto dir = shared_dir();
  const std::string mpiscope = harness::quote(harness::bin_dir() + "/mpiscope");
  const auto imb =
      run_with_slurm("srun " + kThreeNodes + " -n 6 --mpi=pmix " + mpiscope +
                         " imb-mpi1 PingPong -msglog 0:4 --json " + dir + "/imb.json --no-db",
                     dir);
  ASSERT_EQ(imb.exit_code, 0) << imb.err << imb.out;
  const json run = run_json(dir + "/imb.json").at("run");
  EXPECT_EQ(run.at("world_size"), 6);
  EXPECT_EQ(run.at("ranks_per_host"), json({{"h1", 2}, {"h2", 2}, {"h3", 2}}));
  // One rank per node, as a map of the nodes is launched.
  const auto map =
      run_with_slurm("srun " + kThreeNodes + " --ntasks-per-node=1 --mpi=pmix " + mpiscope +
                         " map --large 65536 --json " + dir + "/map.json --no-db",
                     dir);
  ASSERT_EQ(map.exit_code, 0) << map.err << map.out;
  const json doc = run_json(dir + "/map.json");
  EXPECT_EQ(doc.at("run").at("settings").at("hosts_of_ranks"), "h1: 0; h2: 1; h3: 2");
  // One table per pair (3 pairs of 3 ranks), besides each sweep's tables (map_sweep).
  std::size_t pairs = 0;
  for (const auto& b : doc.at("benchmarks")) pairs += b.at("name") == "map" ? 1 : 0;
  EXPECT_EQ(pairs, 3u);
}

// Every suite under srun (one rank per node on the 3 hosts): each completes and its JSON names
// the hosts. SKaMPI writes its own output file; IMB-EXT cannot run between these hosts (below).
TEST(Cluster, EverySuiteRunsUnderSrun) {
  REQUIRE_SLURM_WITH_OPEN_MPI();
  const auto dir = shared_dir();
  const auto io = harness::temp_dir("/var/tmp");
  const std::string srun = "srun " + kThreeNodes + " --ntasks-per-node=1 --mpi=pmix " +
                           harness::quote(harness::bin_dir() + "/mpiscope");
  const auto cfg = skampi_pingpong(dir);
  for (const auto& [name, args] : every_suite(io)) {
    const std::string json_path = dir + "/" + name + ".json";
    std::string line = srun;
    for (const auto& a : args) line += " " + harness::quote(a);
    const auto r = run_with_slurm(line + " --json " + json_path + " --no-db", dir, 240);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err << r.out;
    EXPECT_EQ(run_json(json_path).at("run").at("settings").value("hosts_of_ranks", ""),
              "h1: 0; h2: 1; h3: 2")
        << name;
  }
  // IMB-EXT: Debian's Open MPI 4.1 has no one-sided component for TCP between hosts (osc/rdma
  // needs an RDMA-capable transport, osc/pt2pt is gone): MPI_Win_create fails, and the run must
  // say so on every row and exit 1, not claim a measurement.
  const auto ext = run_with_slurm(srun + " imb-ext Unidir_Put -msglog 0:2 --no-db", dir);
  EXPECT_EQ(ext.exit_code, 1) << ext.err << ext.out;
  EXPECT_EQ(harness::count_of(ext.out, "not run: MPI_Win_create failed"), 2 * 2) << ext.out;
  const auto skampi = run_with_slurm(srun + " skampi " + cfg + " --outfile " + dir +
                                         "/skampi.out --logfile " + dir + "/skampi.log",
                                     dir);
  EXPECT_EQ(skampi.exit_code, 0) << skampi.err << skampi.out;
  EXPECT_NE(harness::read_file(dir + "/skampi.out").find("Pingpong"), std::string::npos);
  EXPECT_TRUE(harness::files_in(io).empty()) << "left behind: " << harness::files_in(io).front();
}

// docs/examples/nightly-gate.sbatch, as a user submits it: two launches of each side into a
// fresh database, then compare's gate; the job's exit status is the gate's.
TEST(Cluster, SbatchRunsTheNightlyGateScript) {
  REQUIRE_SLURM_WITH_OPEN_MPI();
  const auto dir = shared_dir();
  const std::string mpiscope = harness::bin_dir() + "/mpiscope";
  const std::string script =
      std::string(MPISCOPE_SOURCE_DIR) + "/docs/examples/nightly-gate.sbatch";
  const auto r = run_with_slurm(
      "sbatch --wait -N 3 --ntasks-per-node=2 --output=" + dir + "/gate.out " +
          "--export=ALL,BASELINE=" + mpiscope + ",CANDIDATE=" + mpiscope + ",GATE_DB=" + dir +
          "/gate.sqlite,LAUNCHES=2,IMB_ARGS='PingPong -msglog 0:4' " + harness::quote(script),
      dir, 240);
  // slurmstepd may still be closing the job's output file when sbatch --wait returns (seen once).
  std::string out;
  for (int i = 0; i < 50 && out.find("# mpiscope compare") == std::string::npos; ++i) {
    if (i > 0) usleep(100000);
    out = harness::read_file(dir + "/gate.out");
  }
  // Identical binaries, 2 launches per side: too few for the rank test, so the gate cannot tell
  // (exit 6) unless a launch moved beyond the single-run bound (exit 3); never a silent pass.
  EXPECT_TRUE(r.exit_code == 6 || r.exit_code == 3) << r.err << r.out << out;
  EXPECT_NE(out.find("cannot tell"), std::string::npos) << out;
  EXPECT_EQ(harness::count_of(out, "# Benchmarking PingPong"), 4) << out;
  EXPECT_NE(out.find("# mpiscope compare\n# A: run 1"), std::string::npos) << out;
  const auto runs = harness::run_plain({"runs", "--db", dir + "/gate.sqlite"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("imb-mpi1"), std::string::npos) << runs.out;
}

}  // namespace
