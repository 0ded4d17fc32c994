#include "suites/presta/options.hpp"

#include <climits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cli/numbers.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"
#include "output/files.hpp"

namespace mpiscope::presta {

const std::vector<std::string>& test_names() {
  static const std::vector<std::string> names = {"com", "laten", "rma", "allred", "globalop"};
  return names;
}

Test test_named(const std::string& name) {
  const auto& names = test_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Test>(i);
  throw UsageError("unknown PRESTA test '" + name + "' (com, laten, rma, allred or globalop)");
}

Pairing pairing_of(const Options& o, int world_size) {
  return {world_size, o.procs_per_smp,
          o.allocation == 'c' ? Allocation::kCyclic : Allocation::kBlock, o.nearest};
}

namespace {

const char* kSummary[] = {
    "com : MPI interprocess communication bandwidth benchmark",
    "laten : MPI interprocess communication latency benchmark",
    "rma : MPI interprocess communication benchmark for one-sided operations",
    "allred : MPI_Allreduce in a simulated application (compute phases between operations)",
    ("globalop : loops of MPI_Barrier, MPI_Reduce, MPI_Bcast, MPI_Allreduce and "
     "MPI_Reduce+MPI_Bcast, with and without a simulated compute phase")};

std::string suite_help(const std::string& program) {
  std::string h = "PRESTA 1.1 tests (LLNL), measured by mpiscope\n\nUsage: " + program +
                  " <test> [OPTION]...   (or the aliases com, laten, rma, allred, globalop)\n\n";
  for (const char* s : kSummary) h += std::string("  ") + s + "\n";
  return h + "\n'" + program + " <test> -h' lists a test's options. Every test also takes\n" +
         cli::method_options_help();
}

void add_pair_options(CLI::App& app, Options& o, bool sized, bool rma) {
  if (sized) {
    app.add_option("-b", o.size_start, "message start size in bytes          default=32")
        ->check(cli::integer_of<long long>());
    if (rma)
      app.add_option("-c", o.epochs, "number of epochs between measurements (required)")
          ->check(cli::integer_of<int>());
    app.add_option("-e", o.size_stop, "message stop size in bytes           default=8388608")
        ->check(cli::integer_of<long long>());
  }
  app.add_option("-f", o.process_file, "process count source file (one count per line)");
  app.add_option("-o", o.ops,
                 rma ? "number of operations per epoch (required)"
                     : "number of operations between measurements (required)")
      ->check(cli::integer_of<int>());
  app.add_option("-p", o.allocation, "allocate processes: c(yclic) or b(lock)   default=b");
  if (sized)
    app.add_option("-s", o.size_factor, "message size increase factor         default=2")
        ->check(cli::integer_of<long long>());
  app.add_option("-t", o.procs_per_smp, "processes per SMP")->check(cli::integer_of<int>());
  app.add_flag("-i", o.print_pairs, "print process pair information       default=false");
  app.add_flag(
      "-n", [&o](std::int64_t) { o.barrier = false; },
      "do not use barrier within measurement  default=barrier used");
  app.add_flag("-r", o.nearest, "partner processes with nearby rank   default=false");
}

std::string read_text(const std::string& path, const char* what) {
  try {
    return core::read_text_file(path, what);  // a regular text file, bounded (core/input_file.hpp)
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

// Checks what CLI11 cannot know and fills the process counts; throws UsageError.
void validate(Options& o, const std::string& name, int world_size, bool smp_given) {
  o.output.validate();
  try {
    o.method.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (o.test == Test::kAllred) {
    if (o.method.accurate()) {
      // The stopping rule decides how many samples; a sample count given would be ignored.
      if (o.samples > 0)
        throw UsageError(
            "allred with --method accurate takes 2 arguments, [# of comp iterations] and [inner "
            "iterations]: the stopping rule (--min-reps, --max-reps, --budget, --target-ci) "
            "replaces [total samples]");
      if (o.compute_iterations < 0 || o.inner_iterations <= 0)
        throw UsageError(
            "allred with --method accurate takes 2 arguments: [# of comp iterations] (0 or more) "
            "[inner iterations] (a positive integer)");
      return;
    }
    if (o.compute_iterations < 0 || o.inner_iterations <= 0 || o.samples <= 0)
      throw UsageError(
          "allred takes 3 arguments: [# of comp iterations] (0 or more) [inner iterations] "
          "[total samples] (positive integers)");
    return;
  }
  if (o.test == Test::kGlobalop) {
    if (o.loop_iterations <= 0) throw UsageError("--iterations must be a positive integer");
    if (o.loop_compute_iterations < 0)
      throw UsageError("--compute-iterations must be 0 or a positive integer");
    return;
  }
  if (o.ops <= 0)
    throw UsageError(name + " requires -o (" +
                     (o.test == Test::kRma ? std::string("number of operations per epoch")
                                           : std::string("number of operations between "
                                                         "measurements")) +
                     "), a positive integer");
  if (o.test == Test::kRma && o.epochs <= 0)
    throw UsageError("rma requires -c (number of epochs between measurements), a positive integer");
  if (o.allocation != 'b' && o.allocation != 'c')
    throw UsageError(std::string("-p takes b (block) or c (cyclic), not '") + o.allocation + "'");
  if (smp_given && o.procs_per_smp <= 0)
    throw UsageError("-t (processes per SMP) must be a positive integer");
  if (o.test != Test::kLaten) {
    if (o.size_start < 0) throw UsageError("-b (message start size) must not be negative");
    if (o.size_stop < o.size_start)
      throw UsageError("-e (message stop size " + std::to_string(o.size_stop) +
                       ") is smaller than -b (message start size " + std::to_string(o.size_start) +
                       ")");
    if (o.size_stop > INT_MAX)
      throw UsageError("-e " + std::to_string(o.size_stop) +
                       " exceeds the largest MPI message of " + std::to_string(INT_MAX) + " bytes");
    if (o.size_factor < 2) throw UsageError("-s (message size increase factor) must be 2 or more");
  }
  const Pairing p = pairing_of(o, world_size);
  if (auto e = pairing_error(p); !e.empty()) throw UsageError(e);
  o.process_counts =
      o.process_file.empty()
          ? default_process_counts(p)
          : parse_process_counts(read_text(o.process_file, "a -f process count file"),
                                 o.process_file, p);
}

}  // namespace

cli::ParseResult parse(const std::vector<std::string>& args, int world_size,
                       const std::string& program) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help")
    return {args.empty() ? cli::ParseResult::kError : cli::ParseResult::kHelp,
            args.empty() ? "name a PRESTA test: com, laten, rma, allred or globalop"
                         : suite_help(program)};
  Options o;
  o.test = test_named(args[0]);
  const std::string& name = args[0];
  CLI::App app(kSummary[static_cast<int>(o.test)], program);
  app.set_help_flag("-h,--help", "print use information");
  switch (o.test) {
    case Test::kCom:
      add_pair_options(app, o, true, false);
      break;
    case Test::kLaten:
      add_pair_options(app, o, false, false);
      break;
    case Test::kRma:
      add_pair_options(app, o, true, true);
      break;
    case Test::kAllred:
      app.add_option("compute_iterations", o.compute_iterations,
                     "number of compute iterations between MPI_Allreduce operations")
          ->check(cli::integer_of<int>());
      app.add_option("inner_iterations", o.inner_iterations,
                     "number of MPI_Allreduce operations between time samples")
          ->check(cli::integer_of<int>());
      app.add_option("samples", o.samples,
                     "total number of time samples (not with --method accurate: the stopping "
                     "rule decides)")
          ->check(cli::integer_of<int>());
      break;
    case Test::kGlobalop:
      app.add_option("--iterations", o.loop_iterations,
                     "operations per timed loop (mpiscope extension)  default=1000")
          ->check(cli::integer_of<int>());
      app.add_option("--compute-iterations", o.loop_compute_iterations,
                     "compute iterations of the simulated compute phase (mpiscope extension)  "
                     "default=1000")
          ->check(cli::integer_of<int>());
      break;
  }
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  return cli::parse_command_line(app, rest, [&] {
    const CLI::Option* smp = app.get_option_no_throw("-t");
    validate(o, name, world_size, smp && smp->count() > 0);
    return nlohmann::json(o).dump();
  });
}

}  // namespace mpiscope::presta
