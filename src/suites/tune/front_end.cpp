// `mpiscope tune`: the command line, the run of every offered algorithm of every chosen collective
// (IMB-MPI1's benchmark of it, the engine's accurate meter), the choice per length, and the
// library's tuning file.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/convergence.hpp"
#include "core/engine.hpp"
#include "core/input_file.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "output/files.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/tune/tune.hpp"

namespace mpiscope::tune {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Algorithm, value, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AlgorithmVariable, collective, variable, algorithms)

namespace {

constexpr std::size_t kMaxLength = std::size_t{64} << 20;
// Open MPI's coll/tuned obeys a forced algorithm only with its dynamic rules on, which it reads
// once, at MPI_Init (MCA_BASE_VAR_SCOPE_READONLY): tune sets it in every rank's environment first.
constexpr const char* kOpenMpiDynamicRules = "OMPI_MCA_coll_tuned_use_dynamic_rules";

struct Options {
  std::vector<AlgorithmVariable> variables;  // found by rank 0 from the library
  std::vector<std::size_t> lengths = {4, 64, 1024, 16384, 262144, 1048576};
  double tolerance_percent = 5;
  int rounds = 3;
  std::string rules_file;   // --rules FILE: Open MPI's dynamic rules or MPICH's selection file
  bool merge = false;       // --merge: keep FILE's rules for other communicator sizes
  std::string merged_into;  // FILE's text when merging (read by rank 0 before timing)
  std::vector<std::string> left_out;  // notes: algorithms not forced, and why
  cli::OutputOptions output;
  cli::MethodOptions method{.method = "accurate", .budget_s = 0.2};
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, variables, lengths, tolerance_percent, rounds,
                                   rules_file, merge, merged_into, left_out, output, method)

// What in the environment would make a forced algorithm not the one timed (Open MPI).
void check_open_mpi_environment() {
  const char* rules = std::getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
  if (rules != nullptr && *rules != '\0')
    throw cli::UsageError(std::string("OMPI_MCA_coll_tuned_dynamic_rules_filename is set (") +
                          rules +
                          "): its rules would take the place of the algorithms tune forces; "
                          "unset it for the tuning run");
  const char* dynamic = std::getenv(kOpenMpiDynamicRules);
  if (dynamic != nullptr && std::string(dynamic) != "1" && std::string(dynamic) != "true")
    throw cli::UsageError(std::string(kOpenMpiDynamicRules) + "=" + dynamic +
                          ": Open MPI obeys a forced algorithm only with its dynamic rules on; "
                          "unset it for the tuning run");
}

// MPICH: the algorithms its own tree keeps for other calls than tune times are not forced (its
// noncommutative Reduce_scatter aborts the job on a commutative sum's unequal blocks).
void leave_out_reserved(const MpichSelection& selection, int processes, Options& o) {
  for (auto& v : o.variables) {
    std::vector<Algorithm> kept;
    for (const auto& a : v.algorithms) {
      const auto container = mpich_container(selection, v.collective, a.name);
      const auto key = a.value == 0 || container.empty()
                           ? std::string()
                           : mpich_reserved_case(selection, v.collective, container, processes);
      if (key.empty())
        kept.push_back(a);
      else
        o.left_out.push_back(fmt::format(
            "tune: {}'s {} is not timed: MPICH's own selection takes it only where {}, which "
            "the calls tune times on {} processes are not",
            v.collective, a.name, key, processes));
    }
    v.algorithms = std::move(kept);
  }
  o.variables.erase(
      std::remove_if(o.variables.begin(), o.variables.end(),
                     [](const AlgorithmVariable& v) { return v.algorithms.size() < 2; }),
      o.variables.end());
}

cli::ParseResult parse(const cli::Launch& launch, const std::vector<std::string>& args,
                       int world_size) {
  Options o;
  std::string collectives, lengths;
  CLI::App app{
      "Times every algorithm the MPI library offers for each chosen collective (Open MPI's "
      "coll/tuned, MPICH's MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM), with the accurate meter at "
      "the same lengths on this launch's processes, and chooses per length the fastest where it "
      "beats the library's own choice beyond the noise; --rules writes the library's tuning file "
      "that applies the choice.",
      launch.program};
  app.add_option("--collectives", collectives,
                 "Only these collectives, comma-separated (default: Allreduce, Bcast, Reduce, "
                 "Allgather, Alltoall, Barrier, Gather, Scatter, Reduce_scatter)")
      ->type_name("NAME[,NAME…]");
  app.add_option("--lengths", lengths,
                 "Message lengths in bytes (IMB's X), comma-separated, each a multiple of 4 "
                 "(default: 4,64,1024,16384,262144,1048576)")
      ->type_name("BYTES[,BYTES…]");
  app.add_option("--tolerance", o.tolerance_percent,
                 "How much faster than the library's own choice an algorithm must be, beyond the "
                 "95 % intervals, to be chosen")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(cli::number_in({0, 1000}));
  app.add_option("--rounds", o.rounds,
                 "Time every algorithm this many times, in a rotated order; an algorithm is "
                 "chosen only when it is faster beyond the noise in every round")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--rules", o.rules_file,
                 "Write the library's tuning file of the choice here: Open MPI's dynamic rules "
                 "(coll_tuned_dynamic_rules_filename), MPICH's JSON selection "
                 "(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)")
      ->type_name("FILE");
  app.add_flag("--merge", o.merge,
               "With --rules: keep the rules an earlier tune wrote to FILE for other communicator "
               "sizes, and replace those of this launch's size (a FILE not there yet is begun)");
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  app.footer(
      "How the algorithms are found and forced, what the file holds and how to deploy it: "
      "docs/tune.md. Only the accurate method chooses (medians and their 95 % intervals); "
      "--budget defaults to 0.2 s per point.\n"
      "Exit status: 0 ok, 1 a measurement could not run, 2 bad command line or a library that "
      "offers no algorithm to choose, 4 --timeout.");
  return cli::parse_command_line(app, args, [&] {
    if (world_size < 2)
      throw cli::UsageError("tune needs at least 2 processes; " + std::to_string(world_size) +
                            " is running");
    std::vector<std::string> chosen;
    for (const auto& name : core::split(collectives, ',')) {
      const auto n = core::trim(name);
      if (n.empty()) continue;
      const auto& all = tunable_collectives();
      if (std::find(all.begin(), all.end(), n) == all.end())
        throw cli::UsageError("--collectives: tune knows no '" + n + "' (" +
                              fmt::format("{}", fmt::join(all, ", ")) + ")");
      if (std::find(chosen.begin(), chosen.end(), n) == chosen.end()) chosen.push_back(n);
    }
    if (chosen.empty()) chosen = tunable_collectives();
    // The reductions sum 4-byte floats: every length a multiple of 4.
    if (!lengths.empty()) o.lengths = cli::parse_lengths(lengths, "--lengths", 4, kMaxLength);
    o.output.validate();
    o.method.validate();
    if (!o.method.accurate())
      throw cli::UsageError("--method " + o.method.method +
                            ": an algorithm is chosen from medians and their 95 % intervals, "
                            "which only the accurate method gives");
    if (!o.rules_file.empty()) output::check_writable(o.rules_file);
    if (o.merge && o.rules_file.empty()) throw cli::UsageError("--merge needs --rules FILE");
    o.variables = offered_algorithms(chosen);
    const bool open_mpi =
        !o.variables.empty() && o.variables.front().variable.rfind("coll_tuned_", 0) == 0;
    if (open_mpi) {
      check_open_mpi_environment();
    } else if (!o.variables.empty()) {
      // MPICH's file is its built-in tree with the choice in it: found before anything is timed.
      std::string why;
      const auto selection = read_mpich_selection(why);
      if (!selection && !o.rules_file.empty()) throw cli::UsageError("--rules: " + why);
      if (selection) leave_out_reserved(*selection, world_size, o);
    }
    if (o.variables.empty())
      throw cli::UsageError(
          "this MPI library offers no algorithm to choose for " +
          fmt::format("{}", fmt::join(chosen, ", ")) +
          " through its tool interface (Open MPI's coll_tuned_<collective>_algorithm, MPICH's "
          "MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM)");
    std::error_code missing;
    if (o.merge && std::filesystem::exists(o.rules_file, missing)) {
      // MPICH's file is one line of JSON (18 kB after one tune here).
      o.merged_into = core::read_text_file(
          o.rules_file, "--merge",
          {.max_bytes = std::size_t{16} << 20, .max_line_bytes = std::size_t{16} << 20});
      const auto problem =
          open_mpi ? open_mpi_rules_problem(o.merged_into) : mpich_selection_problem(o.merged_into);
      if (!problem.empty())
        throw cli::UsageError("--merge: " + o.rules_file + " is not " +
                              (open_mpi ? "Open MPI's rules file" : "MPICH's selection file") +
                              " to merge into: " + problem);
    }
    return nlohmann::json(o).dump();
  });
}

// Gives every table the algorithm it was timed with, and keeps each for the choice (rank 0).
class AlgorithmTables : public core::ForwardingReporter {
 public:
  using ForwardingReporter::ForwardingReporter;
  void set_algorithm(const Algorithm& a, int round) {
    algorithm_ = a;
    round_ = round;
  }
  void benchmark_started(const core::BenchmarkRun& b) override {
    inner().benchmark_started(with(b));
  }
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override {
    inner().row(with(b), m);
  }
  void benchmark_finished(const core::BenchmarkRun& b) override {
    auto tagged = with(b);
    finished_[{b.name, algorithm_.value, round_}] = tagged;
    inner().benchmark_finished(tagged);
  }
  const core::BenchmarkRun* table(const std::string& collective, int value, int round) const {
    const auto it = finished_.find({collective, value, round});
    return it == finished_.end() ? nullptr : &it->second;
  }

 private:
  core::BenchmarkRun with(const core::BenchmarkRun& b) const {
    auto copy = b;
    copy.parameters["algorithm"] = algorithm_.name;
    copy.parameters["round"] = std::to_string(round_);
    return copy;
  }
  Algorithm algorithm_;
  int round_ = 1;
  std::map<std::tuple<std::string, int, int>, core::BenchmarkRun> finished_;
};

// The text on stdout: the header and one line per measured table.
class TextReporter : public core::Reporter {
 public:
  explicit TextReporter(const Options& o) : options_(o) {}
  void run_started(const core::RunInfo& i) override {
    std::printf("# mpiscope tune: the library's collective algorithms on %d processes\n",
                i.world_size);
    std::printf("# MPI library: %s\n", i.mpi_library.substr(0, i.mpi_library.find('\n')).c_str());
    std::printf("# Method: %s\n", i.settings.at("method_description").c_str());
    for (const auto& v : options_.variables)
      std::printf("# %s: %s\n", v.collective.c_str(), algorithms_text(v).c_str());
    std::fflush(stdout);
  }
  void benchmark_finished(const core::BenchmarkRun& b) override {
    int measured = 0;
    for (const auto& m : b.rows) measured += m.measured;
    std::printf("# measured %s, algorithm %s, round %s: %d of %zu lengths\n", b.name.c_str(),
                b.parameters.at("algorithm").c_str(), b.parameters.at("round").c_str(), measured,
                b.rows.size());
    std::fflush(stdout);
  }
  void note(const std::string& n) override { std::printf("# %s\n", n.c_str()); }

 private:
  const Options& options_;
};

// The choice of every collective, printed as a table each (rank 0).
// Why a choice gains nothing though it was faster ("" when it may): MPICH's own selection.
using UnchangedBecause =
    std::function<std::string(const std::string& collective, const LengthChoice& choice)>;

std::vector<TunedCollective> choices(const Options& o,
                                     const std::vector<AlgorithmVariable>& variables,
                                     const AlgorithmTables& tables, int processes,
                                     const UnchangedBecause& unchanged_because,
                                     core::Reporter& out) {
  std::vector<TunedCollective> tuned;
  int changed = 0, points = 0;
  for (const auto& v : variables) {
    TunedCollective t{v, {}};
    // [algorithm][round]
    std::vector<std::vector<const core::BenchmarkRun*>> runs;
    for (const auto& a : v.algorithms) {
      runs.emplace_back();
      for (int r = 1; r <= o.rounds; ++r)
        runs.back().push_back(tables.table(v.collective, a.value, r));
    }
    std::printf(
        "\n# %s (%d processes): the median over %d rounds of each round's median in us, "
        "of the library's own choice (%s) and of the fastest other\n",
        v.collective.c_str(), processes, o.rounds, v.algorithms.front().name.c_str());
    std::printf("#%11s %12s  %-24s %12s %8s  %s\n", "bytes", "library", "fastest other", "us",
                "speedup", "choice");
    const auto* first = runs.front().front();
    const std::size_t lengths = first ? first->rows.size() : 0;
    for (std::size_t i = 0; i < lengths; ++i) {
      RoundRows rows;
      for (const auto& rounds : runs) {
        rows.emplace_back();
        for (const auto* r : rounds)
          rows.back().push_back(r && i < r->rows.size() ? &r->rows[i] : nullptr);
      }
      auto c = choose(v.algorithms, rows, o.tolerance_percent / 100);
      if (c.changed && unchanged_because) {
        c.why = unchanged_because(v.collective, c);
        c.changed = c.why.empty();
      }
      ++points;
      changed += c.changed;
      // A figure not measured (a failed or missing table) is "-", never a number.
      const auto us = [](double median) {
        return median > 0 ? fmt::format("{:.3f}", median) : "-";
      };
      const bool both = c.default_us > 0 && c.fastest_us > 0;
      std::printf("%12zu %12s  %-24s %12s %8s  %s\n", c.bytes, us(c.default_us).c_str(),
                  c.fastest.name.empty() ? "-" : c.fastest.name.c_str(), us(c.fastest_us).c_str(),
                  both ? fmt::format("{:.2f}", c.default_us / c.fastest_us).c_str() : "-",
                  c.changed ? c.fastest.name.c_str() : ("library's own: " + c.why).c_str());
      if (c.changed)
        out.note(fmt::format(
            "tune: {} at {} bytes: {} ({:.3g} us) instead of the library's own "
            "choice ({:.3g} us), {:.2f} times as fast",
            v.collective, c.bytes, c.fastest.name, c.fastest_us, c.default_us, c.speedup()));
      t.choices.push_back(c);
    }
    tuned.push_back(std::move(t));
  }
  std::printf(
      "\n# %d of %d points choose another algorithm than the library's own (tolerance %s "
      "%%)\n",
      changed, points, cli::number_text(o.tolerance_percent).c_str());
  out.summary({"tune_points", static_cast<double>(points), "points"});
  out.summary({"tune_changed", static_cast<double>(changed), "points"});
  std::fflush(stdout);
  return tuned;
}

// The first MPI error raised on a communicator while a probe runs (every rank's own).
int probe_error = MPI_SUCCESS;
void record_probe_error(MPI_Comm*, int* code, ...) {
  if (probe_error == MPI_SUCCESS) probe_error = *code;
}

// Runs the collective once at each length with the algorithm forced, errors recorded instead of
// fatal (the engine's communicators inherit MPI_COMM_WORLD's handler): "" when it ran on every
// rank, else the library's words for the error. Open MPI's two_proc algorithms, for one, return
// an error on more than 2 processes; timed, that error would be the fastest "algorithm".
std::string probe(const core::SuitePlan& plan, core::EngineSettings settings,
                  const std::string& variable, int algorithm) {
  settings.accurate = false;
  settings.repetitions_rule = [](const core::RepetitionSettings&, std::size_t, bool) { return 1; };
  settings.warm_up_rule = [](std::size_t, int) { return 0; };
  MPI_Errhandler recorder = MPI_ERRHANDLER_NULL;
  MPI_Errhandler fatal = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &fatal);
  MPI_Comm_create_errhandler(record_probe_error, &recorder);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, recorder);
  probe_error = MPI_SUCCESS;
  set_algorithm(variable, algorithm);
  core::Reporter discarded;
  core::run_suite(plan, settings, discarded);
  set_algorithm(variable, 0);  // MPICH reads it at every call: not this agreement's algorithm
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, fatal);
  MPI_Errhandler_free(&recorder);
  MPI_Errhandler_free(&fatal);
  int worst = probe_error;
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst == MPI_SUCCESS) return "";
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(worst, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

int run(const cli::Launch& launch, const std::string& serialized, int thread_level) {
  const auto o = nlohmann::json::parse(serialized).get<Options>();
  const int world_size = mpi::world_size();
  core::EngineSettings settings;
  settings.npmin = world_size;  // every rank: the algorithms of this communicator size
  settings.root_shift = false;  // root 0, as the library's decision is asked of it
  settings.timeout_s = o.output.timeout_s;
  settings.accurate = true;
  settings.accurate_settings = o.method.settings();

  core::RunInfo info = core::collect_run_info("tune", launch.command_line, thread_level);
  info.suite_title = "the MPI library's collective algorithms";
  for (auto& [name, value] : cli::method_settings(o.method)) info.settings[name] = value;
  info.settings["tolerance_percent"] = cli::number_text(o.tolerance_percent);
  info.settings["rounds"] = std::to_string(o.rounds);
  for (const auto& v : o.variables) {
    info.settings[kAlgorithmsSettingPrefix + v.collective] = algorithms_text(v);
    info.benchmarks.push_back(v.collective);
  }
  info.min_length = o.lengths.front();
  info.max_length = o.lengths.back();
  info.user_lengths = true;

  cli::RunReporters reporters([&] { return std::make_unique<TextReporter>(o); }, o.output, info);
  AlgorithmTables tables(reporters.out());
  for (const auto& n : o.left_out) tables.note(n);
  core::SuiteOutcome outcome;
  // The algorithms that run at this process count (probe()): the ones timed and chosen from.
  std::vector<AlgorithmVariable> variables;
  for (auto v : o.variables) {
    const core::Benchmark* benchmark = nullptr;
    for (const auto& b : imb::mpi1::all_benchmarks())
      if (b.name == v.collective) benchmark = &b;
    core::SuitePlan plan;
    plan.suite = "tune";
    plan.benchmarks = {benchmark};
    plan.lengths = [&](const core::Benchmark&) { return o.lengths; };
    std::vector<Algorithm> runnable = {v.algorithms.front()};  // the library's own choice
    for (std::size_t k = 1; k < v.algorithms.size(); ++k) {
      if (const auto error = probe(plan, settings, v.variable, v.algorithms[k].value);
          !error.empty())
        tables.note(
            fmt::format("tune: {}'s {} cannot run on {} processes (the library: {}): not "
                        "timed",
                        v.collective, v.algorithms[k].name, world_size, error));
      else
        runnable.push_back(v.algorithms[k]);
    }
    v.algorithms = std::move(runnable);
    // Each round in another order: round r starts with algorithm r - 1.
    const std::size_t count = v.algorithms.size();
    for (int round = 1; round <= o.rounds && !outcome.failed && outcome.all_ran; ++round)
      for (std::size_t k = 0; k < count; ++k) {
        const auto& a = v.algorithms[(k + static_cast<std::size_t>(round - 1)) % count];
        // Before the engine makes the communicators it times on (Open MPI reads it then).
        set_algorithm(v.variable, a.value);
        tables.set_algorithm(a, round);
        const auto one = core::run_suite(plan, settings, tables);
        outcome.all_ran &= one.all_ran;
        outcome.failed |= one.failed;
        if (one.failed || !one.all_ran) break;
      }
    set_algorithm(v.variable, 0);  // the library's own choice again
    variables.push_back(std::move(v));
    if (outcome.failed || !outcome.all_ran) break;
  }
  // The library's tuning file of the choice (rank 0), stored with the run as a setting.
  std::string file;
  const bool open_mpi = o.variables.front().variable.rfind("coll_tuned_", 0) == 0;
  const char* setting = open_mpi ? "open_mpi_rules" : "mpich_selection";
  if (reporters.root()) {
    std::string why;
    const auto selection = open_mpi ? std::nullopt : read_mpich_selection(why);
    UnchangedBecause unchanged_because;
    if (selection)
      unchanged_because = [&](const std::string& collective, const LengthChoice& c) {
        const auto own = mpich_own_selection(*selection, collective, c.bytes, world_size);
        if (own.empty() || own != mpich_container(*selection, collective, c.fastest.name))
          return std::string();
        return fmt::format(
            "{} is what MPICH's own selection takes here ({}): forced, it only skipped the "
            "selection",
            c.fastest.name, own);
      };
    const auto tuned = choices(o, variables, tables, world_size, unchanged_because, tables);
    if (open_mpi) {
      file = open_mpi_rules_file(tuned, world_size, o.merged_into);
    } else {
      std::vector<std::string> notes;
      if (selection)
        file = mpich_selection_file(*selection, tuned, world_size, notes, o.merged_into);
      else
        notes.push_back("tune: MPICH's selection file cannot be made: " + why);
      for (const auto& n : notes) tables.note(n);
    }
    if (!o.rules_file.empty()) {
      if (file.empty()) {
        tables.note("tune: no algorithm beats the library's own choice: " + o.rules_file +
                    " is not written");
      } else {
        output::replace_file(o.rules_file, file);
        const auto apply = open_mpi ? "mpirun --mca coll_tuned_use_dynamic_rules 1 --mca "
                                      "coll_tuned_dynamic_rules_filename " +
                                          o.rules_file + " ..."
                                    : "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" + o.rules_file +
                                          " mpiexec ...   (or mpiexec -genv with it)";
        std::printf("\n# %s written to %s; apply it with\n#   %s\n",
                    open_mpi ? "Open MPI's rules" : "MPICH's selection file", o.rules_file.c_str(),
                    apply.c_str());
      }
    }
  }
  reporters.measured(info);
  if (!file.empty()) info.settings[setting] = file;
  reporters.finish(info, outcome.all_ran);
  return cli::exit_code(outcome);
}

cli::SuiteEntry entry() {
  return {"tune",
          "The MPI library's collective algorithms: the fastest per length, and its tuning file",
          {},
          59,
          cli::main_of({.parse = parse, .run = run, .environment = {{kOpenMpiDynamicRules, "1"}}})};
}

}  // namespace

MPISCOPE_REGISTER_SUITE(entry());

}  // namespace mpiscope::tune
