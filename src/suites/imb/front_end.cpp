// The IMB front ends (IMB-MPI1, IMB-EXT, …): the IMB command line mapped onto the engine.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/suite_cli.hpp"
#include "core/engine.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/scratch_files.hpp"
#include "output/files.hpp"
#include "output/imb_text.hpp"
#include "suites/imb/imb.hpp"
#include "suites/imb/options.hpp"

namespace mpiscope::imb {

namespace {

std::vector<std::string> benchmark_names(const ImbSuite& suite, bool default_list_only = false) {
  std::vector<std::string> names;
  for (const auto& b : suite.benchmarks())
    if (b.in_default_list || !default_list_only) names.push_back(b.name);
  return names;
}

// Default lengths (guide 5.2.1): 0, then max(unit, 1), doubling up to 2^MAXMSGLOG; the unit is
// 4 bytes for float data. User lengths (-msglen) are rounded up to a whole number of units.
// -msglog [min:]max (current IMB): 0, then max(unit, 2^min) doubling up to 2^max. -zero_size off
// leaves out the 0 (Barrier, which has no length, still runs).
std::vector<std::size_t> lengths_for(const core::Benchmark& b, const Options& o) {
  if (b.only_length > 0) return {b.only_length};  // one element (IMB-RMA's atomics)
  const std::size_t unit = b.unit;
  std::vector<std::size_t> out;
  if (!o.lengths.empty()) {
    for (std::size_t x : o.lengths) out.push_back((x + unit - 1) / unit * unit);
  } else {
    const int max_log = o.msglog_max >= 0 ? o.msglog_max : o.max_msg_log;
    out.push_back(0);
    for (std::size_t x = std::max(unit, std::size_t{1} << o.msglog_min);
         x <= (std::size_t{1} << max_log); x *= 2)
      out.push_back(x);
  }
  if (!o.zero_size && b.sized) std::erase(out, std::size_t{0});
  return out;
}

// Current IMB's SECS_PER_SAMPLE: the time limit of -iter_policy dynamic when -time is not given.
constexpr double kCurrentImbSecondsPerSample = 10;

core::IterPolicy iter_policy_of(const std::string& name) {
  if (name == "dynamic") return core::IterPolicy::Dynamic;
  if (name == "multiple_np") return core::IterPolicy::MultipleNp;
  if (name == "auto") return core::IterPolicy::Auto;
  if (name == "off") return core::IterPolicy::Off;
  return core::IterPolicy::Imb31;
}

// Current IMB's time-out of a table: -time (10 s unless given) per length, for as many lengths as
// the table has or as -msglog spans, less one (IMB's helper_IMB_functions.h).
std::function<double(std::size_t)> table_time_budget(const Options& o) {
  if (o.rules == kImb31Rules) return nullptr;
  const double seconds = o.time_s > 0 ? o.time_s : kCurrentImbSecondsPerSample;
  // Intel's keeps -msglog's span (0:22 by default) with -msglen too.
  const long span = (o.msglog_max >= 0 ? o.msglog_max : o.max_msg_log) - o.msglog_min;
  return [seconds, span](std::size_t lengths) {
    return static_cast<double>(std::max(std::max(static_cast<long>(lengths), span) - 1, 1L)) *
           seconds;
  };
}

core::EngineSettings engine_settings(const Options& o, const ImbSuite& suite) {
  core::EngineSettings s;
  s.repetitions.msgs_per_sample = o.msgs_per_sample;
  s.repetitions.msgs_nonaggr = o.msgs_nonaggr;
  s.repetitions.overall_vol = o.overall_vol_mb * 1048576;
  s.repetitions.policy = iter_policy_of(o.iter_policy);
  s.repetitions.max_length = std::size_t{1} << (o.msglog_max >= 0 ? o.msglog_max : o.max_msg_log);
  const bool dynamic = s.repetitions.policy == core::IterPolicy::Dynamic ||
                       s.repetitions.policy == core::IterPolicy::Auto;
  // Current IMB's dynamic policy starts a table at MSGSPERSAMPLE; its -msglen path does not.
  s.repetitions.nonaggregate_within_msgs_per_sample =
      o.rules != kImb31Rules && dynamic && o.lengths.empty();
  s.table_time_budget_s = table_time_budget(o);
  s.repetitions.time_limit_s = o.time_s > 0 || !dynamic ? o.time_s : kCurrentImbSecondsPerSample;
  s.repetitions.warm_up = o.warm_up == "off"      ? core::WarmUp::Off
                          : o.warm_up == "imb3.1" ? core::WarmUp::Imb31
                                                  : core::WarmUp::EveryLength;
  s.rehearse_each_length = true;  // current IMB's rule; used with -warm_up on only
  if (o.off_cache_mb != 0) {
    s.off_cache = core::detect_off_cache();
    if (o.off_cache_mb > 0) s.off_cache.cache_mb = o.off_cache_mb;
    if (o.off_cache_line > 0) s.off_cache.line = o.off_cache_line;
  }
  s.mem_limit_bytes = o.mem_gb * 1073741824.0;
  s.check = o.check;
  s.keep_samples = o.samples;
  s.npmin = o.npmin;
  s.multi = o.multi >= 0;
  s.multi_outflag = o.multi > 0 ? 1 : 0;
  s.map_rows = o.map_rows;
  s.map_cols = o.map_cols;
  // -root_shift and -sync are IMB-MPI1's and IMB-NBC's; the others' collective benchmarks
  // (IMB-EXT's Accumulate, IMB-IO's collective files) run back to back under both rule sets.
  s.root_shift = o.root_shift;
  s.sync_collectives = suite.options.collective_options && o.sync;
  s.own_barrier_collectives = o.imb_barrier;
  s.window_size = o.window_size;
  if (suite.options.data_types)
    s.element_layout.kind = core::find_imb_layout(o.contig_type).value_or(core::LayoutKind::Base);
  s.pause_after_length = o.msg_pause;
  s.timeout_s = o.output.timeout_s;
  s.cpu_target_s = o.cpu_target_s;
  s.accurate = o.method.accurate();
  s.accurate_settings = o.method.settings();
  return s;
}

std::map<std::string, std::string> settings_record(const core::EngineSettings& s) {
  const auto num = cli::number_text;
  return {
      {"msgs_per_sample", std::to_string(s.repetitions.msgs_per_sample)},
      {"overall_vol_bytes", std::to_string(s.repetitions.overall_vol)},
      {"msgs_nonaggr", std::to_string(s.repetitions.msgs_nonaggr)},
      {"n_warmup", std::to_string(s.repetitions.n_warmup)},
      {"n_barr", std::to_string(s.repetitions.n_barr)},
      {"time_limit_s", num(s.repetitions.time_limit_s)},
      {"off_cache_mb", num(s.off_cache.enabled() ? s.off_cache.cache_mb : 0)},
      {"off_cache_line", std::to_string(s.off_cache.enabled() ? s.off_cache.line : 0)},
      {"mem_limit_gb", num(s.mem_limit_bytes / 1073741824.0)},
      {"check", s.check ? "1" : "0"},
      {"samples", s.keep_samples ? "1" : "0"},
      {"npmin", std::to_string(s.npmin)},
      {"multi", s.multi ? std::to_string(s.multi_outflag) : "off"},
      {"map", s.map_rows ? std::to_string(s.map_rows) + "x" + std::to_string(s.map_cols) : "none"},
      {"timeout_s", num(s.timeout_s)},
      {"scratch_prefix", s.scratch_prefix},
      {"cpu_target_s", num(s.cpu_target_s)},
      {"window_size", std::to_string(s.window_size)},
      {"msg_pause", s.pause_after_length ? "on" : "off"},
      {"synchronisation",
       s.own_barrier_collectives
           ? "MPI_Barrier x n_barr before each timed loop (IMB); collectives: mpiscope's own "
             "dissemination barrier instead (-imb_barrier on)"
           : "MPI_Barrier x n_barr before each timed loop (IMB)"},
      {"timer", "MPI_Wtime"}};
}

// The header's "Warm-up" line: which rule ran.
std::string warm_up_rule(const core::EngineSettings& s, const core::SuitePlan& plan) {
  if (std::none_of(plan.benchmarks.begin(), plan.benchmarks.end(),
                   [](const core::Benchmark* b) { return b->warm_up; }))
    return "none (these benchmarks do not warm up, as in IMB)";
  const std::string imb31 =
      fmt::format("IMB 3.1's: {} repetitions of a 4-byte message before each table's first length",
                  s.repetitions.n_warmup);
  if (s.accurate)
    return "accurate mode's untimed pilot repetitions at every length" +
           (s.repetitions.warm_up != core::WarmUp::Off ? ", after " + imb31 : std::string());
  switch (s.repetitions.warm_up) {
    case core::WarmUp::Imb31:
      return imb31 + " (-warm_up imb3.1)";
    case core::WarmUp::Off:
      return "none (-warm_up off)";
    default:
      return "at every length, the point once in full untimed (n repetitions), then n/10 (at "
             "least min(10, n)) right before the n timed ones, as current IMB";
  }
}

// The header's "Collectives" line: where a rooted operation's root is and whether repetitions
// may overlap, the two places where IMB 3.1 and current IMB time collectives differently.
std::string collectives_rule(const core::EngineSettings& s) {
  return std::string(s.root_shift ? "root round robin (-root_shift on, as IMB 3.1)"
                                  : "root 0 (-root_shift off, as current IMB)") +
         (s.sync_collectives
              ? ", each repetition timed alone after an untimed barrier (-sync on, as current IMB)"
              : ", repetitions back to back (-sync off, as IMB 3.1)") +
         (s.own_barrier_collectives
              ? ", barriers are mpiscope's own dissemination barrier (-imb_barrier on)"
              : "");
}

// The header's "Repetitions" line under -iter_policy: how each length's count was chosen.
std::string repetitions_rule(const core::EngineSettings& s, const Options& o) {
  const auto& r = s.repetitions;
  const std::string volume =
      fmt::format("min({}, {} MB / X)", r.msgs_per_sample, r.overall_vol / 1048576);
  const std::string timed = fmt::format("cut to {:g} s per length", r.time_limit_s);
  const std::string hyperbola = fmt::format(
      "{} * M / (P * max(X, 4) + M) with M = {} bytes, rounded down to a multiple of P, at least P",
      r.msgs_per_sample, r.max_length);
  switch (r.policy) {
    case core::IterPolicy::Off:
      return fmt::format("{} at every length (-iter_policy off)", r.msgs_per_sample);
    case core::IterPolicy::MultipleNp:
      return hyperbola + " (-iter_policy multiple_np)";
    case core::IterPolicy::Auto:
      return "rooted collectives " + hyperbola + "; the others " + volume + ", " + timed +
             " (-iter_policy auto)";
    case core::IterPolicy::Dynamic:
      return volume + ", " + timed + " (-iter_policy dynamic)";
    default:
      return volume + (o.time_s > 0 ? ", " + timed : std::string()) + " (IMB 3.1)";
  }
}

// The header's "Off-cache" line, the only place the text says it: what the rotation covers,
// and what -mem does to it.
std::string off_cache_rule(const core::EngineSettings& s, const Options& o) {
  std::string rule = fmt::format(
      "{:g} MB last-level cache ({}), {}-byte lines; each length rotates through disjoint "
      "buffers covering twice the cache, at most one per repetition (as Intel's IMB)",
      s.off_cache.cache_mb, o.off_cache_mb > 0 ? "given" : "detected", s.off_cache.line);
  if (s.mem_limit_bytes > 0)
    rule += fmt::format(
        ", or as many as fit in -mem {:g} GB (off_cache_buffers in the JSON and CSV gives each "
        "row's)",
        o.mem_gb);
  return rule;
}

// A benchmark as the run's rule set and -aggregate_mode have it: current IMB steps IMB-EXT's
// lengths by 4 bytes, runs AGGREGATE first in IMB-EXT and IMB-IO, and its non-blocking I/O in
// aggregate mode (IMB 3.2.4: non-aggregate); -aggregate_mode keeps one of two modes.
core::Benchmark as_run(const core::Benchmark& b, const ImbSuite& suite, const Options& o) {
  using core::Aggregation;
  core::Benchmark run = b;
  if (o.rules != kImb31Rules) {
    if (run.sized) run.unit = std::max(run.unit, suite.current_length_unit);
    if (suite.current_aggregate_first && run.modes.size() == 2)
      run.modes = {Aggregation::Aggregate, Aggregation::NonAggregate};
    if (run.uses_files && run.blocking_twin) {  // IMB-IO's I- flavours: MSGSPERSAMPLE as well
      if (run.modes == std::vector{Aggregation::NonAggregate}) run.modes = {Aggregation::Aggregate};
      run.nonaggregate_repetitions = false;
    }
  }
  // -data_type and -red_data_type (IMB-MPI1): a transfer moves, a reduction sums, whole
  // elements of the type.
  if (suite.options.data_types && run.sized) {
    const bool sums = core::is_sum(run.datatype);
    const auto* w = core::find_element_type(sums ? o.red_data_type : o.data_type);
    if (w && (sums || run.datatype == core::Datatype::Byte)) {
      run.datatype = sums ? w->summed : w->moved;
      run.unit = core::element_bytes(run.datatype);
      if (o.rules != kImb31Rules) run.unit = std::max(run.unit, suite.current_length_unit);
    }
  }
  if (o.aggregate_mode != "multi" && run.modes.size() == 2)
    run.modes = {o.aggregate_mode == "aggregate" ? Aggregation::Aggregate
                                                 : Aggregation::NonAggregate};
  return run;
}

// The header's "Rules" line: whose defaults the run took.
std::string rules_text(const ImbSuite& suite, const Options& o) {
  if (o.rules != kImb31Rules)
    return "current IMB's (2021), the default; -imb_rules 3.1 for IMB 3.1's";
  return suite.in_imb31 ? "IMB 3.1's (-imb_rules 3.1)"
                        : "IMB 3.1's repetitions, warm-up, collectives and megabyte "
                          "(-imb_rules 3.1); " +
                              suite.alias + " itself came after IMB 3.1";
}

// IMB-EXT, IMB-IO and IMB-RMA: some benchmarks run in aggregate and non-aggregate mode.
bool has_aggregate_modes(const ImbSuite& suite) {
  const auto& all = suite.benchmarks();
  return std::any_of(all.begin(), all.end(),
                     [](const core::Benchmark& b) { return b.modes.size() > 1; });
}

int run(const ImbSuite& suite, const std::string& program, const std::string& serialized,
        int thread_level, const std::vector<std::string>& argv) {
  const Options o = nlohmann::json::parse(serialized).get<Options>();
  auto settings = engine_settings(o, suite);
  core::scratch_files::install_signal_cleanup();
  if (suite.options.files) {
    // Before anything is timed: on a cluster a node-local --io-dir would give each host files of
    // its own and numbers of nothing the user meant. The files go into the run's own directory,
    // where nobody else can swap one for a link between its creation and a reopen.
    const auto run_dir = core::scratch_files::create_run_directory(o.io_dir, MPI_COMM_WORLD);
    if (!run_dir.problem.empty()) {
      if (mpi::world_rank() == 0)
        std::fprintf(stderr, "%s: error: %s\n", program.c_str(), run_dir.problem.c_str());
      core::scratch_files::remove_all();
      return cli::kUsage;
    }
    settings.scratch_prefix = run_dir.path + "/IMB_out_" + o.run_tag;
  }

  std::vector<const core::Benchmark*> chosen;
  for (const auto& b : suite.benchmarks())
    if (o.benchmarks.empty() && b.in_default_list) chosen.push_back(&b);
  for (const auto& name : o.benchmarks)
    for (const auto& b : suite.benchmarks())
      if (b.name == name) chosen.push_back(&b);
  // Each benchmark as the rule set and -aggregate_mode run it; the copies outlive the run.
  std::vector<core::Benchmark> adapted;
  adapted.reserve(chosen.size());
  core::SuitePlan plan;
  plan.suite = suite.id;
  for (const auto* b : chosen) {
    adapted.push_back(as_run(*b, suite, o));
    plan.benchmarks.push_back(&adapted.back());
  }
  plan.lengths = [&](const core::Benchmark& b) { return lengths_for(b, o); };

  const bool imb31 = o.rules == kImb31Rules;
  core::RunInfo info = core::collect_run_info(suite.id, argv, thread_level);
  for (auto& [name, value] : settings_record(settings)) info.settings[name] = value;
  for (auto& [name, value] : cli::method_settings(o.method)) info.settings[name] = value;
  info.settings["warm_up"] = o.warm_up;
  info.settings["warm_up_rule"] = warm_up_rule(settings, plan);
  if (suite.options.collective_options)
    info.settings["collectives_rule"] = collectives_rule(settings);
  if (settings.off_cache.enabled()) info.settings["off_cache_rule"] = off_cache_rule(settings, o);
  if (suite.options.data_types) {  // the header's MPI_Datatype lines
    info.settings["datatype"] = core::mpi_type_name(core::find_element_type(o.data_type)->moved);
    info.settings["reduction_datatype"] =
        core::mpi_type_name(core::find_element_type(o.red_data_type)->summed);
    if (o.contig_type != "base")
      info.settings["contig_type"] =
          o.contig_type + (core::buffer_scale(settings.element_layout) > 1
                               ? " (buffers twice the message; reductions with IMB's "
                                 "own sum)"
                               : " (reductions with IMB's own sum)");
  }
  info.settings["imb_rules"] = o.rules;
  info.settings["imb_rules_text"] = rules_text(suite, o);
  info.settings["megabyte"] = imb31
                                  ? "2^20 bytes (IMB 3.1): the text's Mbytes/sec and mbytes_per_sec"
                                  : "10^6 bytes in the text's Mbytes/sec (current IMB); 2^20 in "
                                    "mbytes_per_sec";
  if (!o.unknown_benchmarks.empty()) {
    std::string names;
    for (const auto& n : o.unknown_benchmarks) names += (names.empty() ? "" : " ") + n;
    info.settings["unknown_benchmarks"] = names;
  }
  info.settings["iter_policy"] = o.iter_policy;
  if (has_aggregate_modes(suite)) info.settings["aggregate_mode"] = o.aggregate_mode;
  if (o.iter_policy != "imb3.1") info.settings["repetitions_rule"] = repetitions_rule(settings, o);
  info.settings["imb_barrier"] = o.imb_barrier ? "on" : "off";
  info.settings["thread_level_requested"] =
      mpi::thread_level_name(thread_level_of(o.thread_level).value_or(MPI_THREAD_SINGLE));
  info.user_lengths = !o.lengths.empty();
  const int max_log = o.msglog_max >= 0 ? o.msglog_max : o.max_msg_log;
  info.min_length = o.zero_size ? 0 : std::size_t{1} << o.msglog_min;
  info.max_length = std::size_t{1} << max_log;
  info.multi = settings.multi;
  for (const auto* b : plan.benchmarks) info.benchmarks.push_back(b->name);

  cli::RunReporters reporters(
      [&] {
        return std::make_unique<output::ImbTextReporter>(
            stdout, suite.part,
            output::ImbTextStyle{.imb_version = imb31 && suite.in_imb31 ? "3.1" : "2021",
                                 .decimal_megabytes = !imb31,
                                 .current_io_text = !imb31 && suite.options.files,
                                 .io_header = suite.options.files});
      },
      o.output, info);
  return reporters.run(plan, settings, info);
}

}  // namespace

cli::SuiteMain imb_main(const ImbSuite& suite) {
  return cli::main_of(
      {.help = "-help",
       .parse =
           [&suite](const cli::Launch& launch, const std::vector<std::string>& args,
                    int world_size) {
             Options o = parse_options(args, benchmark_names(suite), world_size, suite.options,
                                       benchmark_names(suite, true));
             o.run_tag = core::scratch_files::unique_run_tag();
             if (o.help)
               return cli::ParseResult{
                   cli::ParseResult::kHelp,
                   help_text(launch.program, benchmark_names(suite), suite.options)};
             if (suite.options.files) core::scratch_files::check_io_dir(o.io_dir);
             o.output.validate();
             return cli::ParseResult{cli::ParseResult::kRun, nlohmann::json(o).dump()};
           },
       .run =
           [&suite](const cli::Launch& launch, const std::string& options, int thread_level) {
             return run(suite, launch.program, options, thread_level, launch.command_line);
           },
       .thread_level = requested_thread_level});
}

}  // namespace mpiscope::imb
