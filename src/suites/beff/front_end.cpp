// `mpiscope beff` (alias b_eff): the command line, the run header and the reporters around the
// measurement of protocol.cpp.
#include <unistd.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "output/text_table.hpp"
#include "suites/beff/protocol.hpp"
#include "suites/beff/text_output.hpp"

namespace mpiscope::beff {

namespace {

// b_eff.c 3.6 used 30 (MAX_RANDOM); 10 keeps a default run within the paper's 3-5 minutes on
// small machines (30 took 6 minutes on 4 processes of a loaded 2-core VM).
constexpr int kDefaultRandomPatterns = 10;
constexpr double kDefaultLoopTimeMs = 3.75;  // the middle of the paper's 2.5–5 ms
constexpr double kMiB = 1048576.0;
// L_max = memory/128 must reach the last doubling length, 4 kB.
constexpr double kMinMemoryMiB = 128.0 * kLastDoubling / kMiB;
// Accurate mode's default --budget per point (pattern, length, method): b_eff has about 1600
// points at 4 processes, so IMB's 1 s would let a noisy run take half an hour; points that
// converge stop much earlier (docs/beff.md, "Accurate mode").
constexpr double kDefaultAccurateBudgetS = 0.2;

struct Options {
  double memory_mib = 0;  // 0: detected
  std::uint64_t seed = 0;
  int random_patterns = kDefaultRandomPatterns;
  int repetitions = kRepetitions;
  double loop_time_ms = kDefaultLoopTimeMs;
  double rmax_gflop_s = 0;  // 0: not given, no balance factor
  cli::OutputOptions output;
  cli::MethodOptions method{.budget_s = kDefaultAccurateBudgetS};
};

// The hand-off to the other ranks (cli/frontend.hpp).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, memory_mib, seed, random_patterns, repetitions,
                                   loop_time_ms, rmax_gflop_s, output, method)

cli::ParseResult parse(const cli::Launch& launch, const std::vector<std::string>& args,
                       int world_size) {
  const std::string& program = launch.program;
  Options o;
  bool seed_given = false;
  CLI::App app{
      "b_eff, the effective bandwidth benchmark (Rabenseifner and Koniges): every process "
      "communicates at once in ring and random patterns, 21 message lengths, three MPI methods; "
      "b_eff is the logarithmic average of the ring and random patterns' averages over the "
      "lengths. Bandwidths in MB/s = 1e6 bytes/s.",
      program};
  app.add_option("--memory-per-process", o.memory_mib,
                 "Memory per process in MiB; L_max = min(128 MiB, memory/128) (default: the "
                 "node's physical memory divided by the processes on the node)")
      ->type_name("MIB")
      ->check(cli::number_in({kMinMemoryMiB, 1e12}));
  app.add_option("--seed", o.seed,
                 "Seed of the random patterns' permutations (default: drawn and printed)")
      ->type_name("N")
      ->check(cli::integer_in<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()));
  app.add_option("--random-patterns", o.random_patterns, "Number of random ring patterns")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::integer_in(1, 1000));
  app.add_option("--repetitions", o.repetitions,
                 "Repetitions of every measurement, the best counts (the paper: 3; fewer only "
                 "for short runs)")
      ->type_name("N")
      ->capture_default_str()
      ->check(cli::integer_in(1, kRepetitions));
  app.add_option("--loop-time", o.loop_time_ms,
                 "Target time of one measurement loop in ms; loops are kept between 2/3 and 4/3 "
                 "of it (the paper's 2.5-5 ms); smaller values make short runs")
      ->type_name("MS")
      ->capture_default_str()
      ->check(cli::number_in({1e-3, 1e4}));
  app.add_option("--rmax", o.rmax_gflop_s,
                 "Linpack R_max of the processes measured, in Gflop/s; the summary then gives "
                 "the paper's balance factor b_eff / R_max in bytes per flop")
      ->type_name("GFLOPS")
      ->check(cli::number_in({1e-6, 1e12}));
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  app.footer(
      "Accurate mode (--method accurate): each pattern, length and method is repeated one "
      "iteration at a time until the median is known; --repetitions and --loop-time are the "
      "classic method's. b_eff's default --budget is 0.2 s per point.\n"
      "Exit status: 0 ok, 1 a measurement could not run (accurate mode: a point without a valid "
      "repetition), 2 bad command line, 4 --timeout.\n"
      "See docs/beff.md for what is measured and how.");
  return cli::parse_command_line(app, args, [&] {
    if (world_size < 2)
      throw std::runtime_error("b_eff needs at least 2 processes; " + std::to_string(world_size) +
                               " is running");
    o.output.validate();
    o.method.validate();
    if (o.method.accurate())
      for (const char* classic_only : {"--repetitions", "--loop-time"})
        if (app.count(classic_only) > 0)
          throw std::runtime_error(
              std::string(classic_only) +
              " belongs to b_eff's classic method; accurate mode repeats one iteration until the "
              "stopping rule is met (--target-ci, --min-reps, --max-reps, --budget)");
    seed_given = app.count("--seed") > 0;
    if (!seed_given)
      o.seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    return nlohmann::json(o).dump();
  });
}

// The node's physical memory divided by the processes on it; the smallest over all nodes, so
// that every process uses the same L_max.
std::pair<double, std::string> detected_memory() {
  const double node =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  const mpi::Comm local = mpi::Comm::own(shared);
  double per_process[2] = {node / local.size(), 0};
  MPI_Allreduce(MPI_IN_PLACE, per_process, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  char text[160];
  std::snprintf(text, sizeof text,
                "detected: physical memory of the node / %d processes on it (smallest node)",
                local.size());
  return {per_process[0], text};
}

std::string join_lengths(const std::vector<std::size_t>& lengths) {
  std::string s;
  for (auto l : lengths) s += (s.empty() ? "" : " ") + std::to_string(l);
  return s;
}

int run(const cli::Launch& launch, const std::string& serialized, int thread_level) {
  const auto& command_line = launch.command_line;
  const auto o = nlohmann::json::parse(serialized).get<Options>();
  Settings s;
  if (o.memory_mib > 0) {
    s.memory_per_process = o.memory_mib * kMiB;
    s.memory_source = "--memory-per-process";
  } else {
    std::tie(s.memory_per_process, s.memory_source) = detected_memory();
  }
  s.seed = o.seed;
  s.random_patterns = o.random_patterns;
  s.repetitions = o.repetitions;
  s.window = {o.loop_time_ms * 2.0 / 3.0 * 1e-3, o.loop_time_ms * 4.0 / 3.0 * 1e-3};
  s.timeout_s = o.output.timeout_s;

  const std::size_t lmax = max_message_length(s.memory_per_process);
  core::RunInfo info = core::collect_run_info("beff", command_line, thread_level);
  info.suite_title = "b_eff";
  info.min_length = 1;
  info.max_length = lmax;
  char memory[200];
  std::snprintf(memory, sizeof memory, "%.0f bytes = %.1f MiB (%s)", s.memory_per_process,
                s.memory_per_process / kMiB, s.memory_source.c_str());
  // Added to what collect_run_info recorded (the timer's measured properties, oversubscription).
  const std::map<std::string, std::string> settings = {
      {"memory_per_process", memory},
      {"memory_per_process_bytes", output::format_number(s.memory_per_process, 0)},
      {"L_max", std::to_string(lmax) + " bytes (min(128 MiB, memory per process / 128))"},
      {"L_max_bytes", std::to_string(lmax)},
      {"message_lengths", join_lengths(message_lengths(lmax))},
      {"seed", std::to_string(s.seed) + " (repeat the random patterns with --seed " +
                   std::to_string(s.seed) + ")"},
      {"random_patterns", std::to_string(s.random_patterns)},
      {"repetitions", std::to_string(s.repetitions) + " (the best is used)"},
      {"loop_time_window", output::format_number(s.window.low_s * 1e3, 3) + " - " +
                               output::format_number(s.window.high_s * 1e3, 3) + " ms"},
      {"max_looplength", std::to_string(kMaxLoopLength)},
      {"methods",
       "MPI_Sendrecv, MPI_Alltoallv, MPI_Irecv/MPI_Isend/MPI_Waitall (ping-pong: "
       "MPI_Sendrecv)"},
      {"timeout_s", output::format_number(s.timeout_s, 3)},
      {"R_max", o.rmax_gflop_s > 0 ? output::format_number(o.rmax_gflop_s, 3) + " Gflop/s (--rmax)"
                                   : "not given (--rmax): no balance factor"},
      {"timer", "MPI_Wtime, after an MPI_Barrier over all processes"}};
  for (const auto& [name, value] : settings) info.settings[name] = value;
  for (auto& [name, value] : cli::method_settings(
           o.method,
           "classic: b_eff's: loops of looplength iterations between an MPI_Barrier and "
           "MPI_Wtime, the slowest participating process's time, the best of the repetitions"))
    info.settings[name] = value;
  if (o.method.accurate()) {
    info.settings["repetitions"] = "decided by the stopping rule (accurate mode)";
    info.settings["loop_time_window"] = "not used (accurate mode: one iteration per repetition)";
    info.settings["max_looplength"] = "not used (accurate mode)";
    info.settings["timer"] = "MPI_Wtime around each iteration, after the synchronisation";
    s.accurate = o.method.settings();
  }
  for (const auto& pattern : all_patterns(mpi::world_size(), s.seed, s.random_patterns))
    info.benchmarks.push_back(pattern.name);

  cli::RunReporters reporters([] { return std::make_unique<TextReporter>(stdout); }, o.output,
                              info);
  const Protocol protocol = measure(s);
  reporters.measured(info);
  // Rank 0 analyses and reports what every rank measured.
  const bool all = !reporters.root() || report(protocol, o.rmax_gflop_s, reporters.out());
  reporters.finish(info, all);
  return all ? cli::kOk : cli::kRunFailed;
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "beff",
    "b_eff: effective communication bandwidth of the whole machine in one number",
    {{"b_eff", {}}},
    20,
    cli::main_of({.parse = parse, .run = run})});

}  // namespace mpiscope::beff
