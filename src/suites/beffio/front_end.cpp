// `mpiscope beffio` (alias b_eff_io): the command line, the partitions, and the reporters.
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/scratch_files.hpp"
#include "core/text.hpp"
#include "core/watchdog.hpp"
#include "suites/beffio/definition.hpp"
#include "suites/beffio/file_system.hpp"
#include "suites/beffio/measure.hpp"
#include "suites/beffio/text_output.hpp"

namespace mpiscope::beffio {

namespace {

constexpr double kDefaultSeconds = 900;  // section 5.1: T of at least 15 minutes
// --timeout's phases of one partition: its set-up and its end; each access method's pattern types
// (write, rewrite, read), each a phase and its end.
constexpr long kWatchedPhasesPerPartition = 2 + 2 * 3 * kPatternTypes;

struct Options {
  double seconds = kDefaultSeconds;
  std::vector<int> partitions;  // process counts; empty: all processes
  std::string io_dir = ".";
  std::uint64_t node_memory = 0;
  bool node_memory_detected = true;
  std::int64_t fs_cache = -1;  // -1: the memory of the partition's nodes
  std::uint64_t disk_limit = 0;
  bool disk_limit_default = true;
  std::string run_tag;
  cli::OutputOptions output;
  cli::MethodOptions method;  // --method accurate: each pattern's calls timed as repetitions
};

// The hand-off to the other ranks (cli/frontend.hpp).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, seconds, partitions, io_dir, node_memory,
                                   node_memory_detected, fs_cache, disk_limit, disk_limit_default,
                                   run_tag, output, method)

std::uint64_t detected_node_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : 0;
}

std::string default_io_dir_note() {
  return "Directory for the benchmark files (default: the current directory, not $TMPDIR; the "
         "files are removed at the end, after an error and on SIGTERM)";
}

std::uint64_t free_bytes(const std::string& dir) {
  struct statvfs s {};
  if (statvfs(dir.c_str(), &s) != 0) return 0;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

std::uint64_t size_option(const std::string& text, const std::string& option) {
  try {
    return parse_size(text);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(option + ": " + e.what());
  }
}

// Some calls are made whatever the limit (U = 0 patterns, the smallest segment): a limit below
// them cannot be honoured, so the run is refused before anything is written.
void check_disk_limit(const Options& o) {
  const std::size_t m_part = part_chunk(o.node_memory);
  for (int nprocs : o.partitions) {
    const std::uint64_t least = mandatory_write_bytes(m_part, nprocs, o.method.accurate());
    const auto mib = [](double bytes) { return cli::number_text(bytes / 1048576.0) + " MiB"; };
    if (least > o.disk_limit)
      throw std::runtime_error(
          "b_eff_io on " + std::to_string(nprocs) + " processes writes at least " +
          mib(static_cast<double>(least)) + " (M_PART = " + mib(static_cast<double>(m_part)) +
          "), more than the disk-space limit of " + mib(static_cast<double>(o.disk_limit)) +
          (o.disk_limit_default ? " (half the free space of '" + o.io_dir + "')"
                                : std::string(" (--disk-limit)")) +
          "; give a larger --disk-limit, a smaller --memory-per-node or a larger file system");
  }
}

cli::ParseResult parse(const cli::Launch& launch, const std::vector<std::string>& args,
                       int world_size) {
  const std::string& program = launch.program;
  Options o;
  std::string seconds, node_memory, fs_cache, disk_limit;
  CLI::App app{
      "b_eff_io: the effective I/O bandwidth of a partition (Rabenseifner & Koniges, "
      "sections 5 and 6). Every pattern type of Table 2 is written, rewritten and read "
      "through MPI-IO; the single number weights the types and the access methods.",
      program};
  app.add_option("-T,--time", seconds,
                 "Scheduled time T for one partition in seconds; each pattern gets T/3 * U/64 "
                 "(default 900: the paper's minimum for a system's b_eff_io)")
      ->type_name("SECONDS");
  // Split here rather than by CLI11, which drops an empty item: "1,,2" is a typo, not "1,2".
  std::vector<std::string> partitions;
  app.add_option("-N,--partitions", partitions,
                 "Comma-separated numbers of processes to run the benchmark on, one after the "
                 "other, each for T (default: all processes); b_eff_io is their maximum")
      ->type_name("N[,N...]");
  app.add_option("--io-dir", o.io_dir, default_io_dir_note())->type_name("DIR");
  app.add_option("--memory-per-node", node_memory,
                 "Memory of one node, for M_PART = max(2 MiB, memory/128) (default: detected, "
                 "physical memory); sizes take k, M, G, T (powers of 1024)")
      ->type_name("SIZE");
  app.add_option("--fs-cache-size", fs_cache,
                 "File system cache of the partition, for the 20x rule of section 5.4: a warning "
                 "when an access method moves less than 20 times this (default: the memory of "
                 "the partition's nodes; 0: no check)")
      ->type_name("SIZE");
  app.add_option("--disk-limit", disk_limit,
                 "Bytes the initial write may put into the files; time-driven patterns stop "
                 "early and the segment shrinks to stay below it (default: half of the free "
                 "space in --io-dir)")
      ->type_name("SIZE");
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  app.footer(
      "--method accurate: every call of a pattern (of all processes) is a repetition, started "
      "together and timed on its own, until the 95% interval of the median is within "
      "--target-ci or the pattern's budget (the smaller of --budget and its T_pattern) is "
      "spent; bandwidths come from the medians. See docs/beffio.md.");
  return cli::parse_command_line(app, args, [&] {
    o.method.validate();
    if (app.count("--time") > 0)
      o.seconds = cli::parse_number(seconds, "-T/--time", cli::kPositiveSeconds);
    for (const auto& given : partitions)
      for (const auto& n : core::split(given, ','))
        o.partitions.push_back(
            cli::parse_integer<int>(n, "-N/--partitions (in '" + given + "')", 1, INT_MAX));
    for (int n : o.partitions)
      if (n < 1 || n > world_size)
        throw std::runtime_error("--partitions: " + std::to_string(n) +
                                 " is not between 1 and the " + std::to_string(world_size) +
                                 " processes of the job");
    if (o.partitions.empty()) o.partitions = {world_size};
    core::scratch_files::check_io_dir(o.io_dir);
    if (!node_memory.empty()) {
      o.node_memory = size_option(node_memory, "--memory-per-node");
      o.node_memory_detected = false;
      if (o.node_memory == 0) throw std::runtime_error("--memory-per-node must be positive");
    } else {
      o.node_memory = detected_node_memory();
    }
    if (!fs_cache.empty())
      o.fs_cache = static_cast<std::int64_t>(size_option(fs_cache, "--fs-cache-size"));
    if (!disk_limit.empty()) {
      o.disk_limit = size_option(disk_limit, "--disk-limit");
      o.disk_limit_default = false;
      if (o.disk_limit == 0) throw std::runtime_error("--disk-limit must be positive");
    } else {
      o.disk_limit = free_bytes(o.io_dir) / 2;
    }
    check_disk_limit(o);
    o.output.validate();
    o.run_tag = core::scratch_files::unique_run_tag();
    return nlohmann::json(o).dump();
  });
}

std::map<std::string, std::string> settings_record(const Options& o, std::size_t m_part) {
  std::string partitions;
  for (int n : o.partitions) partitions += (partitions.empty() ? "" : ",") + std::to_string(n);
  std::map<std::string, std::string> record = {
      {"T_s", cli::number_text(o.seconds)},
      {"partitions", partitions},
      {"io_dir", o.io_dir},
      {"file_prefix", "b_eff_io_" + o.run_tag},
      {"memory_per_node_bytes",
       std::to_string(o.node_memory) + (o.node_memory_detected ? " (detected)" : " (given)")},
      {"M_PART_bytes", std::to_string(m_part)},
      {"fs_cache_bytes",
       o.fs_cache < 0 ? "memory of the partition's nodes" : std::to_string(o.fs_cache)},
      {"disk_limit_bytes", std::to_string(o.disk_limit) +
                               (o.disk_limit_default ? " (half the free space)" : " (given)")},
      {"time_units_total", std::to_string(kTimeUnitsTotal)},
      {"termination",
       "time-driven patterns in geometric batches, one MPI_Allreduce(MAX) of the elapsed time "
       "per batch; types 3 and 4 size-driven"},
      {"weights", "type 0 double; write 25 %, rewrite 25 %, read 50 %"},
      {"timeout_s", cli::number_text(o.output.timeout_s)},
      {"timer", "MPI_Wtime"}};
  for (auto& [name, value] : cli::method_settings(
           o.method,
           "classic: b_eff_io's (time-driven patterns, bytes over the open-to-close time)",
           "a repetition is one call of every process; per pattern at most the smaller of the "
           "budget and its T_pattern (U = 0: one time unit)"))
    record[name] = value;
  if (o.method.accurate()) {
    record["termination"] =
        "accurate mode: each pattern's calls repeated until the 95% interval of the median is "
        "within the target or the pattern's budget is spent; types 3 and 4 as planned from the "
        "initial write's slots";
    record["weights"] =
        "type: T_pattern at the median bandwidth (U = 0: one call at the median time); type 0 "
        "double; write 25 %, rewrite 25 %, read 50 %";
  }
  return record;
}

int run(const cli::Launch& launch, const std::string& serialized, int thread_level) {
  const std::string& program = launch.program;
  const auto& command_line = launch.command_line;
  const Options o = nlohmann::json::parse(serialized).get<Options>();
  core::scratch_files::install_signal_cleanup();
  // Before anything is timed: a node-local --io-dir on a cluster is no parallel file system. The
  // files go into the run's own directory, where nobody else can swap one for a link between the
  // write that creates it and the rewrite and read that open it again.
  const auto run_dir = core::scratch_files::create_run_directory(o.io_dir, MPI_COMM_WORLD);
  if (!run_dir.problem.empty()) {
    if (mpi::world_rank() == 0)
      std::fprintf(stderr, "%s: error: %s\n", program.c_str(), run_dir.problem.c_str());
    core::scratch_files::remove_all();
    return cli::kUsage;
  }
  const std::size_t m_part = part_chunk(o.node_memory);
  core::RunInfo info = core::collect_run_info("beffio", command_line, thread_level);
  info.suite_title = "effective I/O bandwidth (b_eff_io)";
  // Added to what collect_run_info recorded (hosts and their ranks, oversubscription, the timer),
  // not in place of it.
  for (auto& [name, value] : settings_record(o, m_part)) info.settings[name] = value;
  // Section 3.2: the file system and its parameters belong to the result (collective: whether
  // the processes share the directory is tried with a probe file).
  const auto file_system = describe_file_system(
      o.io_dir, run_dir.path + "/b_eff_io_" + o.run_tag + "_shared_probe", MPI_COMM_WORLD);
  info.settings.insert(file_system.begin(), file_system.end());
  info.benchmarks = {"b_eff_io"};

  const int world_rank = mpi::world_rank();
  const bool root = world_rank == 0;
  cli::RunReporters reporters([] { return std::make_unique<TextReporter>(stdout); }, o.output,
                              info);
  core::Reporter& out = reporters.out();
  core::Watchdog watchdog(o.output.timeout_s, world_rank);

  double best = 0;
  int best_nprocs = 0;
  for (int nprocs : o.partitions) {
    // --timeout covers the partition's set-up too, not only the measured access methods.
    watchdog.arm("setting up the partition of " + std::to_string(nprocs) + " processes");
    mpi::Comm partition = mpi::Comm::borrow(MPI_COMM_WORLD)
                              .split(world_rank < nprocs ? 0 : MPI_UNDEFINED, world_rank);
    if (!partition.is_null()) {
      // Usage parameters (section 3.2): processes, nodes, processes per node.
      MPI_Comm node_comm;
      MPI_Comm_split_type(partition.get(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
      int node_rank = 0, on_node = 0;
      MPI_Comm_rank(node_comm, &node_rank);
      MPI_Comm_size(node_comm, &on_node);
      MPI_Comm_free(&node_comm);
      int usage[2] = {node_rank == 0 ? 1 : 0, on_node};
      MPI_Allreduce(MPI_IN_PLACE, &usage[0], 1, MPI_INT, MPI_SUM, partition.get());
      MPI_Allreduce(MPI_IN_PLACE, &usage[1], 1, MPI_INT, MPI_MAX, partition.get());
      watchdog.end_phase();
      PartitionPlan plan;
      plan.comm = partition.get();
      plan.seconds = o.seconds;
      plan.m_part = m_part;
      plan.file_prefix = run_dir.path + "/b_eff_io_" + o.run_tag + "_np" + std::to_string(nprocs);
      plan.disk_limit = o.disk_limit;
      plan.nodes = usage[0];
      plan.fs_cache = o.fs_cache >= 0 ? static_cast<std::uint64_t>(o.fs_cache)
                                      : o.node_memory * static_cast<std::uint64_t>(usage[0]);
      if (o.method.accurate()) plan.accurate = o.method.settings();
      if (root) {
        out.note("partition: " + std::to_string(nprocs) + " processes on " +
                 std::to_string(usage[0]) + " node(s), at most " + std::to_string(usage[1]) +
                 " per node; T = " + cli::number_text(o.seconds) + " s");
        out.summary({figure_name(nprocs, "processes"), static_cast<double>(nprocs), "processes"});
        out.summary({figure_name(nprocs, "nodes"), static_cast<double>(usage[0]), "nodes"});
        out.summary({figure_name(nprocs, "processes_per_node"), static_cast<double>(usage[1]),
                     "processes"});
      }
      const double b = measure_partition(plan, out, watchdog);
      if (root && b > best) {
        best = b;
        best_nprocs = nprocs;
      }
    }
    if (partition.is_null())  // as long as the partition's phases may take, each watched there
      watchdog.wait_for_others(
          "waiting for the partition of " + std::to_string(nprocs) + " processes",
          kWatchedPhasesPerPartition);
    else
      watchdog.end_phase();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  reporters.measured(info);
  watchdog.stop();                    // the outputs follow, written by rank 0 alone
  core::scratch_files::remove_all();  // the run's directory, once every process is done with it
  if (root) {
    if (o.seconds < kDefaultSeconds)
      out.note("note: T = " + cli::number_text(o.seconds) +
               " s is below the 900 s the paper requires for a system's b_eff_io");
    out.summary({"b_eff_io.partition", static_cast<double>(best_nprocs), "processes"});
    out.summary({"b_eff_io", best, "MiB/s"});
  }
  reporters.finish(info, true);
  return cli::kOk;
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "beffio",
    "b_eff_io: the effective I/O bandwidth (MPI-IO, Rabenseifner & Koniges)",
    {{"b_eff_io", {}}},
    21,
    cli::main_of({.parse = parse, .run = run})});

}  // namespace mpiscope::beffio
