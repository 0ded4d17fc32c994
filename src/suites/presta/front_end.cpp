// `mpiscope presta com|laten|rma|allred|globalop …` and the aliases com, laten, rma, allred and
// globalop: PRESTA's command lines mapped onto the tests, the reporters and the watchdog.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>

#include "cli/frontend.hpp"
#include "cli/registry.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "suites/presta/measure.hpp"
#include "suites/presta/tests.hpp"
#include "suites/presta/text_output.hpp"

namespace mpiscope::presta {

long points_of(const Options& o) {
  const auto counts = static_cast<long>(o.process_counts.size());
  const auto sizes =
      static_cast<long>(message_sizes(o.size_start, o.size_stop, o.size_factor).size());
  switch (o.test) {
    case Test::kCom:
      return 2 * counts * sizes;  // unidirectional, then bidirectional
    case Test::kLaten:
      return counts;
    case Test::kRma:
      return 4 * counts * sizes;  // put and get, each uni- and bidirectional
    case Test::kAllred:
      return o.method.accurate() ? 2 : 2L * o.samples;  // the compute loop, then with Allreduce
    case Test::kGlobalop: {
      // Every operation, and with compute iterations the compute loop and every operation again.
      const auto ops = static_cast<long>(global_op_count());
      return o.loop_compute_iterations > 0 ? 2 * ops + 1 : ops;
    }
  }
  return 0;
}

namespace {

const char* title(Test t) {
  switch (t) {
    case Test::kCom:
      return "PRESTA com: unidirectional and bidirectional communication test";
    case Test::kLaten:
      return "PRESTA laten: MPI_Send/MPI_Recv ping-pong latency test";
    case Test::kRma:
      return "PRESTA rma: MPI_Put/MPI_Get one-sided communication test";
    case Test::kAllred:
      return "PRESTA allred: MPI_Allreduce in a simulated application";
    case Test::kGlobalop:
      return "PRESTA globalop: collective operation loops (Global-Op)";
  }
  return "";
}

// What classic mode is, per test (the method's description in the settings and the header).
std::string classic_description(Test t) {
  switch (t) {
    case Test::kCom:
    case Test::kLaten:
    case Test::kRma:
      return "classic: PRESTA 1.1's: one time sample per point after MPI_Barrier on the active "
             "processes, the figures from the longest process's sample";
    case Test::kAllred:
      return "classic: PRESTA 1.1's: SAMPLES samples of one loop after a butterfly barrier, the "
             "longest process's time each";
    case Test::kGlobalop:
      return "classic: PRESTA 1.1's: one loop after a butterfly barrier, the longest process's "
             "time";
  }
  return "classic";
}

// The cost of one MPI_Wtime call is collect_run_info's `timer_cost_s` (the mean of many calls,
// the slowest rank's): PRESTA's "MPI_Wtime overhead" line prints that figure, so that the run
// states one cost of the timer, not two measured differently.
std::map<std::string, std::string> settings_of(const Options& o, double wtick,
                                               const std::string& smp_source) {
  std::map<std::string, std::string> s = {{"timer", "MPI_Wtime"},
                                          {"wtick_s", fmt::format("{:.9f}", wtick)}};
  switch (o.test) {
    case Test::kCom:
    case Test::kRma:
      s["message_start_bytes"] = std::to_string(o.size_start);
      s["message_stop_bytes"] = std::to_string(o.size_stop);
      s["message_factor"] = std::to_string(o.size_factor);
      [[fallthrough]];
    case Test::kLaten: {
      if (o.test == Test::kRma) {
        s["operations_per_epoch"] = std::to_string(o.ops);
        s["epochs_between_measurements"] = std::to_string(o.epochs);
      } else {
        s["operations_between_measurements"] = std::to_string(o.ops);
      }
      std::string counts;
      for (int n : o.process_counts) counts += (counts.empty() ? "" : ",") + std::to_string(n);
      s["process_counts"] = counts;
      if (!o.process_file.empty()) s["process_count_file"] = o.process_file;
      s["processes_per_smp"] = o.procs_per_smp > 0 ? std::to_string(o.procs_per_smp) : "not given";
      if (o.procs_per_smp > 0) s["processes_per_smp_source"] = smp_source;
      s["allocation"] = o.allocation == 'c' ? "cyclic" : "block";
      s["partnering"] = o.nearest ? "nearby rank" : "rank + size/2";
      s["barrier_in_sample"] = o.barrier ? "butterfly barrier included" : "none (-n)";
      break;
    }
    case Test::kAllred:
      s["compute_iterations"] = std::to_string(o.compute_iterations);
      s["inner_iterations"] = std::to_string(o.inner_iterations);
      s["allreduce_message_bytes"] = std::to_string(kAllreduceDoubles * sizeof(double));
      s["samples"] = o.method.accurate() ? "decided by the stopping rule (accurate mode)"
                                         : std::to_string(o.samples);
      break;
    case Test::kGlobalop:
      s["iterations_per_loop"] = std::to_string(o.loop_iterations);
      s["compute_iterations"] = std::to_string(o.loop_compute_iterations);
      break;
  }
  for (auto& [name, value] : cli::method_settings(o.method, classic_description(o.test)))
    s[name] = value;
  return s;
}

// Without -t, on several hosts that each run the same number of consecutive ranks, PRESTA's
// "processes per SMP" is that number: the pairs and the default process counts then follow the
// real nodes, as PRESTA's user would have passed -t. (-p c needs -t, checked on parsing.)
std::string processes_per_smp_from_layout(Options& o) {
  if (o.procs_per_smp > 0) return "-t";
  const core::UniformLayout layout = core::uniform_layout();  // collective: every rank calls it
  if (layout.hosts < 2 || layout.ranks_per_host == 0 || !layout.block) return "";
  o.procs_per_smp = layout.ranks_per_host;
  if (o.process_file.empty())
    o.process_counts = default_process_counts(pairing_of(o, mpi::world_size()));
  return "from the layout: " + std::to_string(layout.hosts) + " hosts, each running " +
         std::to_string(layout.ranks_per_host) + " consecutive ranks";
}

int run(Options o, int thread_level, const std::string& program,
        const std::vector<std::string>& command_line);

cli::ParseResult parse_launch(const cli::Launch& launch, const std::vector<std::string>& args,
                              int world_size) {
  return parse(args, world_size, launch.program);
}

int run_launch(const cli::Launch& launch, const std::string& options, int thread_level) {
  return run(nlohmann::json::parse(options).get<Options>(), thread_level, launch.program,
             launch.command_line);
}

int run(Options o, int thread_level, const std::string& program,
        const std::vector<std::string>& command_line) {
  const bool root = mpi::world_rank() == 0;
  const std::string smp_source = processes_per_smp_from_layout(o);
  if (o.test == Test::kRma) {
    // README: rma's memory grows with -o and -e; refuse rather than page.
    if (const auto error = rma_memory_error(o); !error.empty()) {
      if (root) std::fprintf(stderr, "%s: error: %s\n", program.c_str(), error.c_str());
      return cli::kUsage;
    }
  }
  const std::string name = test_names()[static_cast<std::size_t>(o.test)];
  core::RunInfo info = core::collect_run_info("presta-" + name, command_line, thread_level);
  info.suite_title = title(o.test);
  const double wtick = MPI_Wtick();
  // Added to what collect_run_info recorded (the timer's measured properties, oversubscription).
  for (auto& [key, value] : settings_of(o, wtick, smp_source)) info.settings[key] = value;
  info.benchmarks = {name};

  cli::RunReporters reporters([&] { return std::make_unique<TextReporter>(stdout, o.print_pairs); },
                              o.output, info);
  core::Watchdog watchdog(o.output.timeout_s, mpi::world_rank());
  core::ProgressDisplay progress("presta " + name, points_of(o));
  core::ClearingReporter clearing(reporters.out(), progress);
  RunContext c{o,
               pairing_of(o, mpi::world_size()),
               root ? static_cast<core::Reporter&>(clearing) : reporters.out(),
               watchdog,
               progress,
               wtick,
               root,
               std::nullopt};
  if (o.method.accurate()) c.accurate = o.method.settings();
  int code = 0;
  switch (o.test) {
    case Test::kCom:
      code = run_com(c);
      break;
    case Test::kLaten:
      code = run_laten(c);
      break;
    case Test::kRma:
      code = run_rma(c);
      break;
    case Test::kAllred:
      code = run_allred(c);
      break;
    case Test::kGlobalop:
      code = run_globalop(c);
      break;
  }
  reporters.measured(info);
  watchdog.stop();  // the outputs follow, written by rank 0 alone
  progress.clear();
  reporters.finish(info, code == 0);
  return code;
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{"presta",
                                        "LLNL PRESTA 1.1: com, laten, rma, allred, globalop",
                                        {{"com", {"com"}},
                                         {"laten", {"laten"}},
                                         {"rma", {"rma"}},
                                         {"allred", {"allred"}},
                                         {"globalop", {"globalop"}}},
                                        40,
                                        cli::main_of({.help = "-h",
                                                      .program_with_subcommand = true,
                                                      .parse = parse_launch,
                                                      .run = run_launch})});

}  // namespace mpiscope::presta
