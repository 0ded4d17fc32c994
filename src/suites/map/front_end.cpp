// `mpiscope map`: the all-pairs point-to-point map of the machine (as LLNL's mpiGraph answers
// "which node or link is slow?"): the command line, the run header and the result rows around
// measure.cpp (the measurement) and analysis.cpp (the outliers).
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/mpi.hpp"
#include "core/progress.hpp"
#include "core/run_info.hpp"
#include "core/watchdog.hpp"
#include "output/text_table.hpp"
#include "suites/map/analysis.hpp"
#include "suites/map/schedule.hpp"
#include "suites/map/text_output.hpp"

namespace mpiscope::map {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MapSettings, small_bytes, large_bytes, latency_iterations,
                                   bandwidth_time_s, max_bandwidth_iterations, sweeps)

namespace {

constexpr std::size_t kMaxBytes = std::size_t{1} << 30;

struct Options {
  MapSettings measure;
  double slow_factor = 2;
  cli::OutputOptions output;
};

// The hand-off to the other ranks (cli/frontend.hpp).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, measure, slow_factor, output)

cli::ParseResult parse(const cli::Launch& launch, const std::vector<std::string>& args,
                       int world_size) {
  const std::string& program = launch.program;
  Options o;
  auto& m = o.measure;
  CLI::App app{
      "mpiscope map: latency and bandwidth between every pair of ranks, measured in rounds of "
      "disjoint pairs that run at the same time (each pair once per sweep, in every sweep at a "
      "different time); ranks grouped by host, the intra- and inter-host distributions, and the "
      "hosts, ranks and links that are slow outliers. Launch one rank per node to map nodes, "
      "several to include the links within nodes.",
      program};
  app.add_option("--small", m.small_bytes, "Message length of the latency ping-pong, bytes")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(cli::integer_in<std::size_t>(0, kMaxBytes));
  app.add_option("--large", m.large_bytes, "Message length of the bandwidth ping-pong, bytes")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(cli::integer_in<std::size_t>(1, kMaxBytes));
  app.add_option("--iterations", m.latency_iterations,
                 "Timed latency round trips per pair and sweep (after a tenth of them, at least "
                 "2, untimed)")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::integer_in(1, 1000000));
  app.add_option("--bandwidth-time", m.bandwidth_time_s,
                 "Seconds the timed bandwidth round trips of a pair should take (their count is "
                 "sized from one untimed round trip, between 2 and --max-bandwidth-iterations)")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(cli::number_in({0, 60, true}));
  app.add_option("--max-bandwidth-iterations", m.max_bandwidth_iterations,
                 "Largest number of timed bandwidth round trips per pair and sweep")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::integer_in(2, 1000000));
  app.add_option("--sweeps", m.sweeps,
                 "Times the whole schedule runs; every pair is measured once per sweep, at a "
                 "different time in each")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::integer_in(2, 1000));
  app.add_option("--slow-factor", o.slow_factor,
                 "Smallest gap, as a factor, between the healthy pairs and slow ones (the gap must "
                 "also be wider than the noise)")
      ->type_name("F")
      ->capture_default_str()
      ->check(cli::number_in({1, 1e6, true}));
  cli::add_output_options(app, o.output);
  app.footer(
      "Slow pairs: within hosts and between hosts separately, the pairs' figures are split at the "
      "widest gap (log scale) that leaves a third of them, and 3, on the healthy side, when the "
      "gap is at least --slow-factor and wider than the noise (the healthy side's spread, or one "
      "pair's change between sweeps); slow = below the gap in every sweep. A host is flagged when "
      "most rank pairs between it and every other host are slow while some host pair is not; a "
      "rank when every pair it is in is slow; a link when it is slow and neither explains it.\n"
      "Time: sweeps x rounds (ranks - 1, or ranks when odd) x (the slowest pair's latency and "
      "bandwidth phases + a barrier and a gather).\n"
      "Exit status: 0 ok, 1 buffers that do not fit, 2 bad command line, 4 --timeout (per "
      "round).\n"
      "See docs/map.md.");
  return cli::parse_command_line(app, args, [&] {
    if (world_size < 2)
      throw std::runtime_error("map needs at least 2 processes; " + std::to_string(world_size) +
                               " is running");
    o.output.validate();
    return nlohmann::json(o).dump();
  });
}

// Whether every rank can hold the two message buffers, agreed by all before anything is timed.
bool buffers_fit(std::size_t bytes) {
  int fits = 1;
  try {
    std::vector<char> probe(2 * bytes);
  } catch (const std::bad_alloc&) {
    fits = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return fits == 1;
}

// A table of one rank pair, named by its ranks, hosts and link (the whole run's and each sweep's).
core::BenchmarkRun pair_benchmark(const std::string& name, int a, int b, const std::string& host_a,
                                  const std::string& host_b) {
  core::BenchmarkRun t;
  t.name = name;
  t.family = "single_transfer";
  t.nprocs = 2;
  t.groups = {{a, b}};
  t.has_throughput = true;
  t.parameters = {{"rank_a", std::to_string(a)},
                  {"rank_b", std::to_string(b)},
                  {"host_a", host_a},
                  {"host_b", host_b},
                  {"link", host_a != host_b ? "inter-host" : "intra-host"}};
  return t;
}

core::BenchmarkRun pair_table(const PairResult& p, std::size_t small, std::size_t large) {
  core::BenchmarkRun b = pair_benchmark("map", p.a, p.b, p.host_a, p.host_b);
  b.parameters["link"] = p.inter_host ? "inter-host" : "intra-host";
  auto row = [&](std::size_t bytes, const std::vector<double>& times_us, int iterations) {
    core::Measurement m;
    m.bytes = bytes;
    m.repetitions = iterations;
    m.measured = true;
    m.t_min_us = *std::min_element(times_us.begin(), times_us.end());
    m.t_max_us = *std::max_element(times_us.begin(), times_us.end());
    double sum = 0;
    for (double t : times_us) sum += t;
    m.t_avg_us = sum / static_cast<double>(times_us.size());
    return m;
  };
  // Latency: the times are the sweeps' figures (10th percentile round trip / 2).
  core::Measurement latency = row(small, p.latency_us, p.latency_round_trips);
  latency.values.push_back({"latency", p.latency_median_us, "us"});
  for (std::size_t s = 0; s < p.latency_us.size(); ++s)
    latency.values.push_back({"latency_sweep_" + std::to_string(s + 1), p.latency_us[s], "us"});
  // Bandwidth: each sweep's figure as the time of one message, large / bandwidth.
  std::vector<double> message_us;
  for (double bw : p.bandwidth_mbs) message_us.push_back(static_cast<double>(large) / bw);
  core::Measurement bandwidth = row(large, message_us, p.bandwidth_round_trips);
  bandwidth.mbytes_per_sec = static_cast<double>(large) / 1048576.0 / (bandwidth.t_max_us * 1e-6);
  bandwidth.values.push_back({"bandwidth", p.bandwidth_median_mbs, "MB/s"});
  for (std::size_t s = 0; s < p.bandwidth_mbs.size(); ++s)
    bandwidth.values.push_back(
        {"bandwidth_sweep_" + std::to_string(s + 1), p.bandwidth_mbs[s], "MB/s"});
  // The verdict is a note on the rows, not a parameter: compare must match a pair whether or
  // not it was slow in one of the runs.
  latency.note = bandwidth.note = p.flag;
  b.rows = {latency, bandwidth};
  return b;
}

// One pair's figures in one sweep, recorded as soon as its round is measured: a table `map_sweep`
// with the pair's parameters and `sweep`, the latency row and the bandwidth row. The pair tables
// `map` at the end combine the sweeps; these are what an interrupted map keeps.
core::BenchmarkRun sweep_table(const PairSample& p, const std::vector<std::string>& hosts,
                               const MapSettings& s) {
  const auto& host_a = hosts[static_cast<std::size_t>(p.a)];
  const auto& host_b = hosts[static_cast<std::size_t>(p.b)];
  core::BenchmarkRun b = pair_benchmark("map_sweep", p.a, p.b, host_a, host_b);
  b.parameters["sweep"] = std::to_string(p.sweep + 1);
  auto row = [&](std::size_t bytes, double time_us, int iterations) {
    core::Measurement m;
    m.bytes = bytes;
    m.repetitions = iterations;
    m.measured = true;
    m.t_min_us = m.t_max_us = m.t_avg_us = time_us;
    m.values.push_back({"round", static_cast<double>(p.slot + 1), "round of the sweep"});
    return m;
  };
  core::Measurement latency = row(s.small_bytes, p.latency_us, p.latency_iterations);
  latency.values.push_back({"latency", p.latency_us, "us"});
  core::Measurement bandwidth = row(
      s.large_bytes, static_cast<double>(s.large_bytes) / p.bandwidth_mbs, p.bandwidth_iterations);
  bandwidth.mbytes_per_sec = p.bandwidth_mbs * 1e6 / 1048576.0;
  bandwidth.values.push_back({"bandwidth", p.bandwidth_mbs, "MB/s"});
  b.rows = {latency, bandwidth};
  return b;
}

void report(const MapAnalysis& a, const MapSettings& s, core::Reporter& out) {
  for (const auto& p : a.pairs) {
    core::BenchmarkRun b = pair_table(p, s.small_bytes, s.large_bytes);
    out.benchmark_started(b);
    for (const auto& m : b.rows) out.row(b, m);
    out.benchmark_finished(b);
  }
  auto distribution = [&](const char* prefix, const std::optional<ClassSummary>& c) {
    if (!c) return;
    const std::string p = prefix;
    out.summary({p + "_pairs", static_cast<double>(c->pairs), "pairs"});
    out.summary({p + "_latency_min", c->latency_us.min, "us"});
    out.summary({p + "_latency_median", c->latency_us.median, "us"});
    out.summary({p + "_latency_max", c->latency_us.max, "us"});
    out.summary({p + "_latency_healthy", c->latency_us.reference, "us"});
    out.summary({p + "_bandwidth_min", c->bandwidth_mbs.min, "MB/s"});
    out.summary({p + "_bandwidth_median", c->bandwidth_mbs.median, "MB/s"});
    out.summary({p + "_bandwidth_max", c->bandwidth_mbs.max, "MB/s"});
    out.summary({p + "_bandwidth_healthy", c->bandwidth_mbs.reference, "MB/s"});
  };
  distribution("intra_host", a.intra_host);
  distribution("inter_host", a.inter_host);
  out.summary({"flagged_hosts", static_cast<double>(a.hosts.size()), "hosts"});
  out.summary({"flagged_ranks", static_cast<double>(a.ranks.size()), "ranks"});
  out.summary({"flagged_links", static_cast<double>(a.links.size()), "links"});
  for (const auto& f : a.hosts) out.note("flagged host " + f.what + ": " + f.reason);
  for (const auto& f : a.ranks) out.note("flagged " + f.what + ": " + f.reason);
  for (const auto& f : a.links) out.note("flagged link " + f.what + ": " + f.reason);
  if (!a.unplaced.empty()) out.note("not placed: " + a.unplaced);
  if (a.hosts.empty() && a.ranks.empty() && a.links.empty() && a.unplaced.empty())
    out.note("no host, rank or link flagged");
  for (const auto& why : a.unjudged) out.note("not judged: " + why);
}

int run(const cli::Launch& launch, const std::string& serialized, int thread_level) {
  const auto& command_line = launch.command_line;
  const auto o = nlohmann::json::parse(serialized).get<Options>();
  const MapSettings& s = o.measure;
  const bool root = mpi::world_rank() == 0;
  if (!buffers_fit(std::max(s.small_bytes, s.large_bytes))) {
    if (root)
      std::fprintf(stderr, "mpiscope map: error: a rank cannot allocate 2 x %zu bytes of buffers\n",
                   std::max(s.small_bytes, s.large_bytes));
    return cli::kRunFailed;  // as every suite's allocation failure: the input was valid
  }
  const auto hosts = core::host_of_each_rank();
  const int ranks = mpi::world_size();
  core::RunInfo info = core::collect_run_info("map", command_line, thread_level);
  info.suite_title = "mpiscope map";
  info.min_length = s.small_bytes;
  info.max_length = s.large_bytes;
  info.benchmarks = {"map"};
  const int rounds = round_count(ranks);
  info.settings["latency"] = fmt::format(
      "ping-pong of {} bytes, {} timed round trips per pair and sweep, 10th percentile / 2",
      s.small_bytes, s.latency_iterations);
  info.settings["bandwidth"] = fmt::format(
      "ping-pong of {} bytes, timed round trips filling about {} s (2 to {}), {} bytes / (10th "
      "percentile / 2), MB/s = 1e6 bytes/s",
      s.large_bytes, s.bandwidth_time_s, s.max_bandwidth_iterations, s.large_bytes);
  info.settings["schedule"] = fmt::format(
      "{} rounds of up to {} disjoint pairs at the same time (round-robin matching), a barrier "
      "between rounds",
      rounds, ranks / 2);
  info.settings["sweeps"] = std::to_string(s.sweeps) + " (each at a different starting round)";
  info.settings["outliers"] = fmt::format(
      "slow = below the widest gap (log scale, at least {} and wider than the noise) between the "
      "pairs of a class in every sweep; classes of 3 pairs or fewer are not judged",
      o.slow_factor);
  info.settings["slow_factor"] = fmt::format("{}", o.slow_factor);
  info.settings["timeout_s"] = fmt::format("{}", o.output.timeout_s);

  cli::RunReporters run_reporters([] { return std::make_unique<TextReporter>(stdout); }, o.output,
                                  info);
  core::Reporter& reporters = run_reporters.out();
  core::ProgressDisplay progress("map", rounds * s.sweeps);
  core::Watchdog watchdog(o.output.timeout_s, mpi::world_rank());
  const auto start = std::chrono::steady_clock::now();
  MapProgress as_it_goes;
  as_it_goes.round_starts = [&](int index, int total) {
    if (index > 0) progress.point_finished();
    if (index == total) {
      watchdog.stop();
      return;
    }
    const std::string what = fmt::format("map round {} of {}", index + 1, total);
    watchdog.arm(what);
    progress.point_started(what);
  };
  as_it_goes.round_measured = [&](const std::vector<PairSample>& round) {
    for (const auto& p : round) {
      const core::BenchmarkRun b = sweep_table(p, hosts, s);
      reporters.benchmark_started(b);
      for (const auto& m : b.rows) reporters.row(b, m);
      reporters.benchmark_finished(b);
    }
  };
  const auto samples = measure_map(s, as_it_goes);
  run_reporters.measured(info);
  progress.clear();
  if (root) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const MapAnalysis analysis = analyse(samples, hosts, o.slow_factor);
    report(analysis, s, reporters);
    reporters.summary({"map_time", seconds, "s"});
  }
  run_reporters.finish(info, true);
  return cli::kOk;
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "map",
    "all-pairs latency and bandwidth map: which host, rank or link is slow (as mpiGraph)",
    {},
    75,
    cli::main_of({.parse = parse, .run = run})});

}  // namespace mpiscope::map
