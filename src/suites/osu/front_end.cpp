// `mpiscope osu NAME …` and the aliases osu_latency, osu_bw, …: OSU's command line mapped onto
// the engine, with OSU's iteration counts, warm-up, timing and text output.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "cli/frontend.hpp"
#include "cli/registry.hpp"
#include "core/curve_model.hpp"
#include "core/engine.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "suites/osu/options.hpp"
#include "suites/osu/text_output.hpp"

namespace mpiscope::osu {
namespace {

// The p-th percentile of the row's iterations as OSU 7.4 takes it (omb_calculate_tail_lat): the
// figures sorted ascending, the one at floor(n p / 100) - 1; latency in us, or bandwidth in MB/s
// (10^6 bytes per second) from each iteration's time per message. NaN without samples.
double tail_figure(const core::Measurement& m, int p, bool bandwidth) {
  std::vector<double> figures;
  for (double us : m.raw_samples_us)
    figures.push_back(bandwidth ? (us > 0 ? transmit_size(m) / us : 0) : us);
  if (figures.empty()) return std::nan("");
  std::sort(figures.begin(), figures.end());
  const auto n = static_cast<long>(figures.size());
  const long at = std::clamp(n * p / 100 - 1, 0L, n - 1);
  return figures[static_cast<std::size_t>(at)];
}

// Gives every table the parameter an imported OSU file has ("# Datatype: MPI_CHAR." becomes
// datatype=MPI_CHAR), so that `compare` matches the two, and every row OSU's own figures in OSU's
// units next to the model's.
class OsuFigures : public core::ForwardingReporter {
 public:
  OsuFigures(core::Reporter& inner, const Program& p, const Options& o)
      : ForwardingReporter(inner), program_(p), options_(o) {}
  void benchmark_started(const core::BenchmarkRun& b) override {
    inner().benchmark_started(with(b));
  }
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override {
    inner().row(with(b), figures(m));
  }
  void benchmark_finished(const core::BenchmarkRun& b) override {
    core::BenchmarkRun copy = with(b);
    // The model of the curve OSU prints (its mean latency), not of the engine's t_max.
    if (copy.model) {
      for (auto& m : copy.rows) m = figures(m);
      copy.model = core::model_of(copy);
    }
    inner().benchmark_finished(copy);
  }

 private:
  // A row with OSU's own figures in OSU's units next to the model's.
  core::Measurement figures(const core::Measurement& m) const {
    core::Measurement r = m;
    // The time OSU's text stands for, for compare: the mean latency, or the time per message
    // the bandwidth implies, X (under -D the bytes moved) / bandwidth; an imported OSU text holds
    // the same.
    if (m.measured && !m.accurate) {
      const double mb = osu_megabytes_per_second(m);
      const double t = m.mbytes_per_sec ? (mb > 0 ? transmit_size(m) / mb : 0) : osu_latency_us(m);
      r.values.push_back({"headline_us", t, "microseconds: the time OSU's figure stands for"});
    }
    // -z: the percentiles of rank 0's iterations, as OSU takes them.
    const bool bandwidth = program_.figure == Figure::kBandwidth;
    if (m.measured)
      for (int p : options_.tail_percentiles)
        r.values.push_back({tail_heading(p, bandwidth), tail_figure(m, p, bandwidth),
                            bandwidth ? "MB/s" : "microseconds"});
    if (m.measured && m.mbytes_per_sec) {
      const double mb = osu_megabytes_per_second(m);
      r.values.push_back({"osu_bandwidth", mb, "MB/s (10^6 bytes per second, as printed)"});
      if (program_.figure == Figure::kRate && transmit_size(m) > 0)
        r.values.push_back({"message_rate", 1e6 * mb / transmit_size(m), "messages/s"});
    }
    return r;
  }
  core::BenchmarkRun with(const core::BenchmarkRun& b) const {
    core::BenchmarkRun copy = b;
    // As its header says: osu_get_acc_latency's names none, nor do the barriers' (no data).
    if (!program_.prints_datatype || !program_.sized) copy.parameters.erase("datatype");
    if (is_one_sided(program_.figure)) {  // as an imported file's header lines give them
      copy.parameters["window creation"] = window_creation_name(window_creation_of(options_));
      copy.parameters["synchronization"] = sync_name(sync_of(options_));
    }
    return copy;
  }
  const Program& program_;
  const Options& options_;
};

// OSU's sizes: min, doubling up to max (from 0 the next is 1), in whole elements of the -T type.
// Sizes of no element are left out, as OSU's loops skip them (osu_latency's and osu_multi_lat's
// default minimum is 0, and OSU prints no 0-byte row; under -T mpi_int none below 4 bytes).
std::vector<std::size_t> sizes(const Options& o, const core::Benchmark& b) {
  if (b.only_length > 0) return {b.only_length};  // osu_fop_latency, osu_cas_latency: one element
  if (!b.sized) return {0};                       // osu_barrier, osu_ibarrier
  std::vector<std::size_t> out;
  for (long long x = o.min_size; x <= o.max_size; x = x ? x * 2 : 1) {
    const std::size_t bytes = static_cast<std::size_t>(x) / b.unit * b.unit;
    if (bytes == 0 || (!out.empty() && out.back() == bytes)) continue;
    out.push_back(bytes);
  }
  return out;
}

// The datatype OSU 7.4's header names: the -T type (MPI_CHAR by default) the benchmark moves or
// reduces; a one-sided program's IMB-RMA kernel moves bytes (MPI_CHAR) or sums floats.
std::string osu_datatype(const core::Benchmark& b) {
  return b.datatype == core::Datatype::Byte ? "MPI_CHAR" : core::mpi_type_name(b.datatype);
}

// How the classic loop read the timer, as OSU 7.4's program does (recorded for compare).
std::string timing_rule(const Program& p) {
  if (is_one_sided(p.figure))
    return "OSU 7.4: the loop between two MPI_Wtime reads, two more around each iteration inside "
           "it (rank 0)";
  if (is_collective(p.figure))
    return "OSU 7.4: each iteration between two MPI_Wtime reads, the sum, a barrier after it";
  if (p.overlapped_ping_pong)
    return "OSU 7.5: each iteration between two MPI_Wtime reads, the sum, on both ranks; in the "
           "overlapped pass a barrier after it";
  return "OSU 7.4: each iteration between two MPI_Wtime reads, the sum (the ranks that send first)";
}

core::EngineSettings engine_settings(const Options& o, const Program& p, int world_size) {
  core::EngineSettings s;
  // osu_ibarrier runs OSU's large-message counts (osu_barrier its small ones).
  const bool large = p.figure == Figure::kOverlap && !p.sized;
  s.repetitions_rule = [o, large](const core::RepetitionSettings&, std::size_t bytes, bool) {
    return large || bytes > kLargeMessage ? o.iterations_large : o.iterations;
  };
  s.warm_up_rule = [o, large](std::size_t bytes, int) {
    return large || bytes > kLargeMessage ? o.skip_large : o.skip;
  };
  s.repetitions.warm_up = core::WarmUp::EveryLength;
  s.repetitions.n_barr = 1;        // OSU: one MPI_Barrier before each size's loop
  s.warm_up_in_timed_loop = true;  // its skip iterations, then the timed ones, in one loop
  s.check = o.validate;
  // -z: each iteration's time, rank 0's (point-to-point) or its mean over the ranks (the
  // collectives, blocking and not: OSU's omb_get_stats sums the ranks' iterations and divides by
  // P).
  s.keep_samples = !o.tail_percentiles.empty();
  s.samples_mean_over_ranks = p.figure == Figure::kCollective || p.figure == Figure::kOverlap;
  s.npmin = world_size;           // collectives on every rank only
  s.root_shift = o.root_rotates;  // -k rotate: root i mod P in iteration i; else -k fixed:N
  s.fixed_root = o.root;
  s.sync_collectives = true;                // each iteration timed alone, a barrier after it
  s.element_layout = element_layout_of(o);  // -D: each message one derived datatype
  s.window_size = o.window;     // -W: messages in flight per iteration of bw, bibw and mbw_mr
  s.overlap_probes = o.probes;  // -t: MPI_Test calls in the CPU work of the overlap programs
  s.timeout_s = o.output.timeout_s;
  s.accurate = o.method.accurate();
  s.accurate_settings = o.method.settings();
  return s;
}

int run(const Options& o, int thread_level, const cli::Launch& launch) {
  const auto& command_line = launch.command_line;
  const Program& p = *find_program(o.program);
  if (p.figure == Figure::kStartup) return run_startup(p, o, thread_level, command_line);
  const int world_size = mpi::world_size();
  const bool root = mpi::world_rank() == 0;
  if (root)
    for (const auto& w : o.warnings) std::fprintf(stderr, "%s\n", w.c_str());
  // osu_bw_fan_*: the nodes' fan, found by every rank together; no fan is one error.
  std::optional<FanLayout> fan;
  if (is_fan(p)) {
    fan = fan_layout(MPI_COMM_WORLD);
    if (!fan->error.empty()) {
      if (root)
        std::fprintf(stderr, "%s: error: %s %s\n", launch.program.c_str(), p.name.c_str(),
                     fan->error.c_str());
      return cli::kUsage;
    }
  }
  // osu_mbw_mr's -p: the first 2 x pairs ranks take part, the others sit out.
  const int pairs = o.pairs > 0 ? o.pairs : world_size / 2;
  const int taking_part = p.figure == Figure::kRate ? 2 * pairs : world_size;
  // A table per -T type, each naming its datatype.
  std::vector<core::Benchmark> benchmarks;
  for (const auto& word : o.types) {
    // -V: the type's table for every window of kVariedWindows, each its own benchmark.
    if (o.vary_window) {
      for (const int window : kVariedWindows) {
        benchmarks.push_back(benchmark_for(p, {.window = window,
                                               .world_size = taking_part,
                                               .type = *find_osu_type(word),
                                               .buffer_per_message = o.buffer_per_message}));
        benchmarks.back().window = window;
        benchmarks.back().parameters["datatype"] = osu_datatype(benchmarks.back());
        benchmarks.back().parameters["window"] = std::to_string(window);
      }
      continue;
    }
    benchmarks.push_back(
        benchmark_for(p, {.window = o.window,
                          .world_size = taking_part,
                          .creation = window_creation_of(o),
                          .sync = sync_of(o),
                          .type = *find_osu_type(word),
                          .in_place = o.in_place,
                          .buffer_per_message = o.buffer_per_message,
                          .sender_threads = o.sender_threads,
                          .receiver_threads = o.receiver_threads,
                          .partitions = o.partitions,
                          .fan_edges = fan ? static_cast<int>(fan->graph.edges.size()) : 0}));
    benchmarks.back().parameters["datatype"] = osu_datatype(benchmarks.back());
  }
  // The neighbourhood collectives' tables name their topology (compare matches no other).
  if (is_neighbourhood_collective(p.name))
    for (auto& b : benchmarks) b.parameters["neighbourhood"] = o.neighbourhood;
  // -D's tables are not the basic type's: compare and the database keep them apart.
  if (!o.ddt.empty())
    for (auto& b : benchmarks) b.parameters["derived_datatype"] = derived_datatype_text(o);
  auto settings = engine_settings(o, p, world_size);
  if (is_neighbourhood_collective(p.name)) settings.neighbourhood = neighbourhood_of(o);
  if (fan) settings.neighbourhood = fan->graph;
  // -I: every benchmark's communicators split from a session's (freed before MPI_Finalize).
  std::optional<mpi::SessionWorld> session;
  if (o.session) {
    session.emplace("mpiscope.osu");
    settings.communicator = session->comm();
  }
  core::SuitePlan plan;
  plan.suite = "osu";
  for (const auto& b : benchmarks) plan.benchmarks.push_back(&b);
  plan.lengths = [&](const core::Benchmark& bench) { return sizes(o, bench); };

  core::RunInfo info = core::collect_run_info("osu", command_line, thread_level);
  info.suite_title = "OSU Micro-Benchmarks 7.4 (mpiscope)";
  info.settings["osu_program"] = p.name;
  // The datatypes its headers name (the tables' parameter), and the reductions' operation.
  std::string datatypes, reductions;
  for (const auto& b : benchmarks) {
    const std::string datatype = osu_datatype(b);
    datatypes += (datatypes.empty() ? "" : ", ") + datatype;
    if (core::is_sum(b.datatype))
      reductions +=
          fmt::format("{}MPI_SUM on size / {} elements of {}", reductions.empty() ? "" : "; ",
                      core::element_bytes(b.datatype), datatype);
  }
  if (p.prints_datatype && p.sized) info.settings["datatype"] = datatypes;
  if (!reductions.empty()) info.settings["reduction"] = reductions;
  info.settings["iterations"] =
      fmt::format("{} (larger than {} bytes: {})", o.iterations, kLargeMessage, o.iterations_large);
  info.settings["warm_up_iterations"] =
      fmt::format("{} (larger than {} bytes: {})", o.skip, kLargeMessage, o.skip_large);
  if (p.figure == Figure::kBandwidth || p.figure == Figure::kRate ||
      p.figure == Figure::kOneSidedBandwidth)
    info.settings["window"] =
        o.vary_window ? "1, 2, 4, ... 128 (-V: a table per window)" : std::to_string(o.window);
  if (o.in_place) info.settings["in_place"] = "MPI_IN_PLACE (-l)";
  // The neighbourhood collectives' topology, its creation timed once before the run as OSU
  // times it, and printed before the title.
  std::string topology;
  if (is_neighbourhood_collective(p.name)) {
    topology = topology_lines(settings.neighbourhood, settings.communicator);
    info.settings["neighbourhood"] =
        o.neighbourhood +
        " (-N): MPI_Dist_graph_create_adjacent with each process's sources and destinations; " +
        core::trim(topology.substr(topology.rfind("Time took")));
  }
  if (o.session)
    info.settings["session"] =
        "-I: the benchmarks' communicators split from an MPI session's (MPI_Session_init, the "
        "group of mpi://WORLD, MPI_Comm_create_from_group); MPI started with MPI_Init_thread "
        "too";
  if (!o.ddt.empty())
    info.settings["derived_datatype"] =
        derived_datatype_text(o) +
        " (-D): each message one derived datatype over its size's buffer; transmit_size is what "
        "it moves, and bandwidths count it";
  if (o.buffer_per_message && p.figure != Figure::kLatency)
    info.settings["buffers"] = "X bytes of its own for every message of a window (-b multiple)";
  if (is_one_sided(p.figure)) {
    info.settings["window_creation"] = window_creation_name(window_creation_of(o));
    info.settings["synchronization"] = sync_name(sync_of(o));
  }
  if (p.name == "osu_latency_mp")
    info.settings["forked_processes"] = fmt::format(
        "rank 0: {}, rank 1: {} (each sleeps {} s and leaves without MPI calls; forked after "
        "MPI_Init, before the first size)",
        o.sender_processes, o.receiver_processes, kChildSleepSeconds);
  if (p.name == "osu_latency_mt") {
    info.settings["sender_threads"] = std::to_string(o.sender_threads);
    info.settings["receiver_threads"] = std::to_string(o.receiver_threads);
    info.settings["tags"] =
        o.sender_threads > 1 ? "each iteration its own (the iteration number)" : "1 out, 2 back";
  }
  if (p.name == "osu_partitioned_latency")
    info.settings["partitions"] = fmt::format(
        "{} (-q): each message MPI_Psend_init / MPI_Precv_init of {} partitions of n / {} "
        "elements, every partition marked ready (MPI_Pready) after MPI_Start",
        o.partitions, o.partitions, o.partitions);
  if (fan)
    info.settings["fan"] = fmt::format(
        "{} nodes of {} processes each (by MPI_Get_processor_name); the {} on {}, the first in "
        "name order, are the parents, and local process k of every other node is the child of "
        "the parents' process k; at every iteration each of the {} parent-child pairs moves the "
        "window {}; the senders ({}) time, and the figure is every message over their mean time",
        fan->nodes, fan->ppn, fan->ppn, fan->parent_node, fan->graph.edges.size(),
        p.name == "osu_bw_fan_in" ? "from the child to its parent" : "from the parent to its child",
        p.name == "osu_bw_fan_in" ? "the children" : "the parents");
  if (p.figure == Figure::kRate || p.name == "osu_multi_lat" || p.multi_pair_one_sided)
    info.settings["pairs"] = std::to_string(p.figure == Figure::kRate ? pairs : world_size / 2);
  if (p.multi_pair_one_sided)
    info.settings["origin"] =
        p.name +
        " is not OSU's: it comes from a fork of OSU 7.4 (the cMPI project's), run here "
        "as that fork's -s flush loop on every pair at once";
  if (takes_root(p.name))
    info.settings["root"] = o.root_rotates ? "rotating: iteration i's root is rank i mod P"
                                           : "rank " + std::to_string(o.root);
  if (p.figure == Figure::kOverlap) {
    info.settings["mpi_test_calls"] = std::to_string(o.probes);
    info.settings["overlap"] =
        "CPU work computes for each rank's own pure communication time; overall, compute and pure "
        "the means over the ranks; overlap = 100 (pure + compute - overall) / pure";
  }
  if (p.overlapped_ping_pong)
    info.settings["overlap"] =
        "each size twice: the ping-pong alone (pure: each rank's half round trip), then with CPU "
        "work between each start and its wait, computing for the rank's own pure time (an untimed "
        "barrier after each iteration); overall (half the round trip), compute (the two works' "
        "half) and pure the means over the ranks; overlap = 100 (pure + compute - overall) / pure";
  if (!o.tail_percentiles.empty()) {  // -z, and whose iterations the samples are
    std::string list;
    for (int q : o.tail_percentiles) list += (list.empty() ? "" : ",") + std::to_string(q);
    info.settings["tail_percentiles"] =
        list + (p.figure == Figure::kOverlap      ? " of each overlapped iteration's (CPU work "
                                                    "included) mean over the ranks"
                : p.figure == Figure::kCollective ? " of each iteration's mean over the ranks"
                                                  : " of rank 0's iterations");
  }
  info.settings["mem_limit_bytes"] = std::to_string(o.mem_limit);
  info.settings["megabyte"] = "10^6 bytes in the text's MB/s; 2^20 in mbytes_per_sec";
  info.settings["timer"] = "MPI_Wtime";
  if (!o.method.accurate()) info.settings["timing_rule"] = timing_rule(p);
  for (auto& [name, value] : cli::method_settings(o.method)) info.settings[name] = value;
  info.min_length = static_cast<std::size_t>(o.min_size);
  info.max_length = static_cast<std::size_t>(o.max_size);
  info.benchmarks = {p.name};

  cli::RunReporters reporters(
      [&] { return std::make_unique<TextReporter>(stdout, p, o, pairs, topology); }, o.output,
      info);
  OsuFigures figures(reporters.out(), p, o);
  // osu_latency_mp: the ranks' children live through the run (waited for before MPI_Finalize).
  std::optional<ForkedChildren> children;
  if (p.name == "osu_latency_mp" && mpi::world_rank() < 2)
    children.emplace(mpi::world_rank() == 0 ? o.sender_processes : o.receiver_processes);
  return reporters.run(plan, settings, info, &figures);
}

cli::SuiteEntry entry() {
  std::vector<cli::Alias> aliases;
  for (const auto& p : programs()) aliases.push_back({p.name, {p.name}});
  return {"osu", "OSU micro-benchmarks 7.4: point-to-point, blocking and non-blocking collectives",
          std::move(aliases), 50,
          cli::main_of(
              {.help = "-h",
               .program_with_subcommand = true,
               .parse = [](const cli::Launch& launch, const std::vector<std::string>& args,
                           int world_size) { return parse(args, world_size, launch.program); },
               .run =
                   [](const cli::Launch& launch, const std::string& options, int thread_level) {
                     return run(nlohmann::json::parse(options).get<Options>(), thread_level,
                                launch);
                   },
               // osu_latency_mt's threads call MPI at once.
               .thread_level =
                   [](const std::vector<std::string>& args) {
                     return !args.empty() && args[0] == "osu_latency_mt" ? MPI_THREAD_MULTIPLE
                                                                         : MPI_THREAD_SINGLE;
                   },
               // As OSU's own programs run: side by side, MPICH's MPI_Accumulate at 64 KiB read
               // 31 µs under fixed thresholds against OSU's 118-184 µs (bench/README.md).
               .heap = core::HeapPolicyKind::System})};
}

}  // namespace

MPISCOPE_REGISTER_SUITE(entry());

}  // namespace mpiscope::osu
