// `mpiscope guidelines`: the command line, the run of every collective and mock-up the chosen
// guidelines name (the engine's accurate meter), and the verdicts, printed, noted in the run's
// records and, with --fail-on-violation, the exit status.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/convergence.hpp"
#include "core/engine.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "suites/guidelines/guidelines.hpp"

namespace mpiscope::guidelines {
namespace {

// The chance, over all the points of a run together, that some verdict is wrong.
constexpr double kRunLevel = 0.05;

constexpr std::size_t kMaxLength = std::size_t{64} << 20;

struct Options {
  std::vector<std::string> collectives;  // the guidelines of these collectives; empty: all
  std::vector<std::size_t> lengths = {4, 64, 1024, 16384, 262144};
  double tolerance_percent = 10;
  bool fail_on_violation = false;
  cli::OutputOptions output;
  cli::MethodOptions method{.method = "accurate", .budget_s = 0.5};
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, collectives, lengths, tolerance_percent,
                                   fail_on_violation, output, method)

std::vector<Guideline> chosen(const Options& o) {
  std::vector<Guideline> out;
  for (const auto& g : all_guidelines())
    if (o.collectives.empty() ||
        std::find(o.collectives.begin(), o.collectives.end(), g.collective) != o.collectives.end())
      out.push_back(g);
  return out;
}

cli::ParseResult parse(const cli::Launch& launch, const std::vector<std::string>& args,
                       int world_size) {
  Options o;
  std::string collectives, lengths;
  CLI::App app{
      "Self-consistent performance guidelines: each collective is timed beside its mock-up, the "
      "same operation built from other MPI calls on the same communicator (Allreduce <= Reduce + "
      "Bcast, Bcast <= Scatter + Allgather, ...), with the accurate meter at the same lengths; a "
      "guideline is violated at a length when the collective's interval of the median lies "
      "above the mock-up's by more than the tolerance: the library could do better with its own "
      "calls. The intervals are at 1 - 0.05 / the run's points each, so that all of the run's "
      "verdicts together are wrong with a chance of at most 5 %.",
      launch.program};
  app.add_option("--guidelines", collectives,
                 "Only the guidelines of these collectives, comma-separated (Allreduce, Reduce, "
                 "Bcast, Gather, Allgather, Scatter, Alltoall, Reduce_scatter_block; default: all)")
      ->type_name("NAME[,NAME…]");
  app.add_option("--lengths", lengths,
                 "Message lengths in bytes per process, comma-separated, each a multiple of 4 "
                 "(the reductions sum floats) (default: 4,64,1024,16384,262144)")
      ->type_name("BYTES[,BYTES…]");
  app.add_option("--tolerance", o.tolerance_percent,
                 "How much slower than its mock-up a collective may be before it violates its "
                 "guideline")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(cli::number_in({0, 1000}));
  app.add_flag("--fail-on-violation", o.fail_on_violation,
               "Exit 3 when some guideline is violated at some length");
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  app.footer(
      "The guidelines, their mock-ups and the rule are in docs/guidelines.md. Only the accurate "
      "method rules on a guideline (its medians and their intervals); --budget defaults to "
      "0.5 s per point.\n"
      "Exit status: 0 ok (violations are reported, not failures, unless --fail-on-violation), "
      "1 a measurement could not run, 2 bad command line, 3 a violation with "
      "--fail-on-violation, 4 --timeout.");
  return cli::parse_command_line(app, args, [&] {
    if (world_size < 2)
      throw cli::UsageError("the guidelines need at least 2 processes; " +
                            std::to_string(world_size) + " is running");
    for (const auto& name : core::split(collectives, ',')) {
      const auto n = core::trim(name);
      if (n.empty()) continue;
      const auto& all = all_guidelines();
      if (std::none_of(all.begin(), all.end(),
                       [&](const Guideline& g) { return g.collective == n; }))
        throw cli::UsageError("--guidelines: no guideline of '" + n +
                              "' (Allreduce, Reduce, Bcast, Gather, Allgather, Scatter, Alltoall, "
                              "Reduce_scatter_block)");
      o.collectives.push_back(n);
    }
    // The reductions sum 4-byte floats: every length a multiple of 4.
    if (!lengths.empty()) o.lengths = cli::parse_lengths(lengths, "--lengths", 4, kMaxLength);
    o.output.validate();
    o.method.validate();
    if (!o.method.accurate())
      throw cli::UsageError(
          "--method " + o.method.method +
          ": a guideline is judged from medians and their intervals, which only the "
          "accurate method gives");
    return nlohmann::json(o).dump();
  });
}

// Keeps each finished table for the verdicts (rank 0), passing every event on.
class Tables : public core::ForwardingReporter {
 public:
  using ForwardingReporter::ForwardingReporter;
  void benchmark_finished(const core::BenchmarkRun& b) override {
    finished_[b.name] = b;
    inner().benchmark_finished(b);
  }
  const core::BenchmarkRun* table(const std::string& name) const {
    const auto it = finished_.find(name);
    return it == finished_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, core::BenchmarkRun> finished_;
};

// The text on stdout: the header, one line per measured table, the notes.
class TextReporter : public core::Reporter {
 public:
  explicit TextReporter(const Options& o) : options_(o) {}
  void run_started(const core::RunInfo& i) override {
    std::printf("# mpiscope guidelines: each collective beside its mock-up on %d processes\n",
                i.world_size);
    std::printf("# MPI library: %s\n", i.mpi_library.substr(0, i.mpi_library.find('\n')).c_str());
    std::printf("# Method: %s\n", i.settings.at("method_description").c_str());
    std::printf("# Tolerance: %s %%\n", cli::number_text(options_.tolerance_percent).c_str());
    std::fflush(stdout);
  }
  void benchmark_finished(const core::BenchmarkRun& b) override {
    int measured = 0;
    for (const auto& m : b.rows) measured += m.measured;
    std::printf("# measured %s: %d of %zu lengths\n", b.name.c_str(), measured, b.rows.size());
    std::fflush(stdout);
  }
  void note(const std::string& n) override { std::printf("# %s\n", n.c_str()); }

 private:
  const Options& options_;
};

// "0.812 [0.80, 0.83]": the median and its interval, or "-" without them.
std::string interval_text(const core::Measurement& m) {
  const auto e = core::median_estimate(m);
  return e ? fmt::format("{:.3g} [{:.3g}, {:.3g}]", e->median, e->low, e->high) : "-";
}

// Every point's intervals at 1 - 0.05 / points (Bonferroni): a false VIOLATED (or a false holds)
// at some point needs one of its two intervals to miss its median on the wrong side, each at most
// (0.05 / points) / 2; over all the run's points at most 0.05 together.
double interval_confidence(const Options& o) {
  const std::size_t points = chosen(o).size() * o.lengths.size();
  return 1 - kRunLevel / static_cast<double>(std::max<std::size_t>(1, points));
}

// The verdicts of every chosen guideline, printed as a table each; returns the violated points.
int print_verdicts(const Options& o, const Tables& tables, int processes, core::Reporter& out) {
  const double tolerance = o.tolerance_percent / 100;
  int violated = 0, points = 0, cannot_tell = 0;
  for (const auto& g : chosen(o)) {
    const auto* c = tables.table(g.collective);
    const auto* m = tables.table(g.mock_up);
    std::printf("\n# %s (%d processes): medians [%.4g %% intervals] in us\n", g.name().c_str(),
                processes, 100 * interval_confidence(o));
    std::printf("#%11s  %-28s %-28s %7s  %s\n", "bytes", "collective", "mock-up", "factor",
                "verdict");
    if (!c || !m) {
      std::printf("# not measured\n");
      continue;
    }
    for (std::size_t i = 0; i < c->rows.size() && i < m->rows.size(); ++i) {
      const auto v = verdict(c->rows[i], m->rows[i], tolerance);
      ++points;
      std::printf("%12zu  %-28s %-28s %7s  %s%s\n", v.bytes, interval_text(c->rows[i]).c_str(),
                  interval_text(m->rows[i]).c_str(),
                  v.factor > 0 ? fmt::format("{:.2f}", v.factor).c_str() : "-",
                  verdict_name(v.verdict), v.why.empty() ? "" : (": " + v.why).c_str());
      if (v.verdict == Verdict::kViolated) {
        ++violated;
        out.note(fmt::format(
            "guideline {} violated at {} bytes: the collective takes {:.2f} times "
            "its mock-up's time ({} against {} us)",
            g.name(), v.bytes, v.factor, interval_text(c->rows[i]), interval_text(m->rows[i])));
      }
      cannot_tell += v.verdict == Verdict::kCannotTell;
    }
  }
  std::printf("\n# %d of %d points violate their guideline; %d cannot tell (tolerance %s %%)\n",
              violated, points, cannot_tell, cli::number_text(o.tolerance_percent).c_str());
  std::fflush(stdout);
  out.summary({"guideline_points", static_cast<double>(points), "points"});
  out.summary({"guideline_violations", static_cast<double>(violated), "points"});
  out.summary({"guideline_cannot_tell", static_cast<double>(cannot_tell), "points"});
  return violated;
}

int run(const cli::Launch& launch, const std::string& serialized, int thread_level) {
  const auto o = nlohmann::json::parse(serialized).get<Options>();
  const int world_size = mpi::world_size();
  // Every benchmark a chosen guideline names, once, in benchmarks() order.
  std::vector<const core::Benchmark*> needed;
  const auto guidelines = chosen(o);
  for (const auto& b : benchmarks())
    if (std::any_of(guidelines.begin(), guidelines.end(), [&](const Guideline& g) {
          return g.collective == b.name || g.mock_up == b.name;
        }))
      needed.push_back(&b);
  core::SuitePlan plan;
  plan.suite = "guidelines";
  plan.benchmarks = needed;
  plan.lengths = [&](const core::Benchmark&) { return o.lengths; };
  core::EngineSettings settings;
  settings.npmin = world_size;  // every rank: the guideline is about this communicator
  settings.root_shift = false;  // root 0, in the collective and its mock-up alike
  settings.timeout_s = o.output.timeout_s;
  settings.accurate = true;
  settings.accurate_settings = o.method.settings();
  settings.accurate_settings.stopping.confidence = interval_confidence(o);

  core::RunInfo info = core::collect_run_info("guidelines", launch.command_line, thread_level);
  info.suite_title = "self-consistent performance guidelines";
  for (auto& [name, value] : cli::method_settings(o.method)) info.settings[name] = value;
  info.settings["tolerance_percent"] = cli::number_text(o.tolerance_percent);
  info.settings["interval_confidence"] = fmt::format(
      "{:.6g} per point: 1 - {:g} / {} points, so that the run's verdicts together are wrong with "
      "a chance of at most {:g}",
      interval_confidence(o), kRunLevel, chosen(o).size() * o.lengths.size(), kRunLevel);
  std::string names;
  for (const auto& g : guidelines) names += (names.empty() ? "" : "; ") + g.name();
  info.settings["guidelines"] = names;
  info.min_length = o.lengths.front();
  info.max_length = o.lengths.back();
  info.user_lengths = true;
  for (const auto* b : needed) info.benchmarks.push_back(b->name);

  cli::RunReporters reporters([&] { return std::make_unique<TextReporter>(o); }, o.output, info);
  Tables tables(reporters.out());
  const core::SuiteOutcome outcome = core::run_suite(plan, settings, tables);
  int violated = reporters.root() ? print_verdicts(o, tables, world_size, tables) : 0;
  MPI_Bcast(&violated, 1, MPI_INT, 0, MPI_COMM_WORLD);
  reporters.measured(info);
  reporters.finish(info, outcome.all_ran);
  if (outcome.failed || !outcome.all_ran) return cli::exit_code(outcome);
  return o.fail_on_violation && violated > 0 ? static_cast<int>(cli::kCheckFailed)
                                             : static_cast<int>(cli::kOk);
}

cli::SuiteEntry entry() {
  return {"guidelines",
          "Self-consistent performance guidelines: each collective against its mock-up",
          {},
          58,
          cli::main_of({.parse = parse, .run = run})};
}

}  // namespace

MPISCOPE_REGISTER_SUITE(entry());

}  // namespace mpiscope::guidelines
