// `mpiscope skampi CONFIG.skampi` and `mpiscope skampi postproc -o OUT FILE...`.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/install_paths.hpp"
#include "core/mpi.hpp"
#include "output/files.hpp"
#include "suites/skampi/output_file.hpp"
#include "suites/skampi/run.hpp"

namespace mpiscope::skampi {
namespace {

// What rank 0 hands to the other ranks: a run's configuration and options, or postproc's files.
struct HandOff {
  bool postproc = false;
  std::string out;                  // postproc: the merged file
  std::vector<std::string> inputs;  // postproc: the runs' output files
  Config config;
  cli::OutputOptions output;
  cli::MethodOptions method;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HandOff, postproc, out, inputs, config, output, method)

const char* kDescription =
    "SKaMPI: configuration-driven MPI measurements with a stated accuracy (Reussner, Sanders, "
    "Traeff). Runs the suites of CONFIG (a .skampi file), writes the output file (@OUTFILE), the "
    "log (@LOGFILE) and restarts an interrupted run where it stopped. `skampi postproc -o OUT "
    "FILE...` merges the output files of repeated runs into medians. See docs/skampi.md.";

cli::ParseResult parse(const cli::Launch&, const std::vector<std::string>& args, int world_size) {
  if (!args.empty() && args[0] == "postproc") {
    CLI::App app{"Merge SKaMPI output files of repeated runs into their medians",
                 "skampi postproc"};
    std::string out;
    std::vector<std::string> inputs;
    app.add_option("-o,--output", out, "The merged output file")->required()->type_name("FILE");
    app.add_option("files", inputs, "Output files of runs of the same configuration")
        ->required()
        ->type_name("FILE");
    return cli::parse_command_line(app, {args.begin() + 1, args.end()}, [&] {
      // Read now, on rank 0, so that garbage or a directory is a usage error, not an abort.
      for (const auto& f : inputs) {
        if (!std::filesystem::exists(f)) throw std::runtime_error(f + ": no such output file");
        read_output(f);
      }
      HandOff postproc;
      postproc.postproc = true;
      postproc.out = out;
      postproc.inputs = inputs;
      return nlohmann::json(postproc).dump();
    });
  }
  CLI::App app{kDescription, "skampi"};
  std::string config_path = ".skampi", outfile, logfile;
  long memory_kb = 0;
  cli::OutputOptions output;
  cli::MethodOptions method;
  app.add_option("config", config_path,
                 "The configuration file (default: .skampi), or the name of one shipped with "
                 "mpiscope: standard (every instance of the paper's Figure 2 once) or figure1")
      ->type_name("CONFIG");
  app.add_option("--outfile", outfile, "Output file instead of the configuration's @OUTFILE")
      ->type_name("FILE");
  app.add_option("--logfile", logfile, "Log file instead of the configuration's @LOGFILE")
      ->type_name("FILE");
  app.add_option("--memory", memory_kb, "Buffer memory per process in KBytes instead of @MEMORY")
      ->type_name("KBYTES")
      ->check(cli::integer_in(1L, kMaxMemoryKb));
  cli::add_output_options(app, output);
  cli::add_method_options(app, method);
  app.footer(
      "--method accurate times each point's operation repetition by repetition (synchronised "
      "starts, median and its 95% interval, the core's stopping rule) instead of SKaMPI's "
      "standard-error rule; the master-worker pattern and MPI_Buffer_attach keep SKaMPI's "
      "method. @METHOD in the configuration's preamble sets it too; --method wins.\n"
      "Subcommand: skampi postproc -o OUT FILE... (medians of repeated runs)");
  return cli::parse_command_line(app, args, [&] {
    // A configuration shipped with mpiscope by its name (share/mpiscope/skampi: "standard").
    const auto found = core::skampi_configuration(config_path);
    Config c = read_config(found ? *found : config_path);
    if (!outfile.empty()) c.outfile = outfile;
    if (!logfile.empty()) c.logfile = logfile;
    if (memory_kb > 0) c.memory_kb = memory_kb;
    resolve_limits(c, world_size);
    if (app.count("--method") == 0 && !c.method.empty()) method.method = c.method;
    method.validate();
    output.validate();
    // An existing output file is an interrupted run to resume or a finished one to keep: it must
    // be SKaMPI's, else restarting would abort every rank (or overwrite someone's file).
    std::error_code ignored;
    if (std::filesystem::exists(c.outfile) && !std::filesystem::is_empty(c.outfile, ignored)) {
      try {
        read_output(c.outfile);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) +
                                 "; choose another output file (--outfile or @OUTFILE)");
      }
    }
    for (const auto& path : {c.outfile, c.logfile}) output::check_writable(path);
    HandOff measure;
    measure.config = c;
    measure.output = output;
    measure.method = method;
    return nlohmann::json(measure).dump();
  });
}

int run(const cli::Launch& launch, const std::string& options, int thread_level) {
  auto h = nlohmann::json::parse(options).get<HandOff>();
  if (h.postproc) {
    if (mpi::world_rank() == 0) run_postproc(h.out, h.inputs);
    return 0;
  }
  return run_skampi({.config = std::move(h.config),
                     .output = std::move(h.output),
                     .method = std::move(h.method),
                     .command_line = launch.command_line},
                    thread_level);
}

}  // namespace

MPISCOPE_REGISTER_SUITE(cli::SuiteEntry{
    "skampi",
    "SKaMPI: configuration-driven, adaptive, accurate measurement suites",
    {},
    30,
    cli::main_of({.parse = parse, .run = run})});

}  // namespace mpiscope::skampi
