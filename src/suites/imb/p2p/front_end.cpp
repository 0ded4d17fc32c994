// IMB-P2P (`mpiscope imb-p2p`, alias IMB-P2P): current IMB's point-to-point patterns with its
// command line (imb_p2p.c): benchmark names, -msglog, -msgsz, -msglen, -iter, -pause, -msgwr and
// -msgrd. Unlike Intel's, an option or name it does not know is an error, not ignored.
#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <cmath>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/option_table.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/engine.hpp"
#include "core/input_file.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "suites/imb/options.hpp"
#include "suites/imb/p2p/benchmarks.hpp"
#include "suites/imb/p2p/text_output.hpp"

namespace mpiscope::imb::p2p {
namespace {

constexpr int kMaxLog = 30;  // MPI counts are ints; Intel's accepts 2^47 and overflows them
constexpr std::size_t kDefaultLargest = std::size_t{4} << 20;

struct Options {
  bool help = false, list = false;
  std::vector<std::string> benchmarks;  // in the order named; empty: all
  std::vector<std::size_t> lengths;     // empty: 0, 1, 2, 4, … 4 MiB
  long long iterations_max = 100000;
  long long numerator = 100LL * 8 * 1024 * 1024;  // repetitions = numerator / X, at most max
  double pause_s = 0.1;
  bool write = true, read = true;
  bool check = false;  // mpiscope's -check (Intel's IMB-P2P has none)
  cli::OutputOptions output;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, help, list, benchmarks, lengths, iterations_max,
                                   numerator, pause_s, write, read, check, output)

using Spec = cli::OptionSpec<Options>;

// "4097", "5k", "2m", "1g" (IMB-P2P's suffixes, powers of 1024).
std::size_t length_of(const std::string& text, const std::string& where) {
  std::string digits = core::trim(text);
  std::size_t scale = 1;
  if (!digits.empty()) {
    const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(digits.back())));
    if (last == 'k' || last == 'm' || last == 'g') {
      scale = last == 'k' ? 1024 : last == 'm' ? 1048576 : 1073741824;
      digits.pop_back();
    }
  }
  const auto n = cli::parse_integer<long long>(digits, where, 0, INT_MAX);
  if (static_cast<double>(n) * static_cast<double>(scale) > INT_MAX)
    throw std::invalid_argument(where + ": " + text +
                                " is more bytes than one MPI message holds (" +
                                std::to_string(INT_MAX) + ")");
  return static_cast<std::size_t>(n) * scale;
}

std::vector<Spec> option_table() {
  std::vector<Spec> t;
  t.push_back({"-msglog", "[k:]n", "lengths 0, 1, 2, 4, ... 2^n, or 2^k ... 2^n (n at most 30)",
               [](Options& o, const std::string& v) {
                 const auto parts = core::split(v, ':');
                 if (parts.empty() || parts.size() > 2)
                   throw std::invalid_argument("-msglog takes n or k:n, got '" + v + "'");
                 const int n = cli::parse_integer<int>(parts.back(), "-msglog n", 0, kMaxLog);
                 const int k =
                     parts.size() == 2 ? cli::parse_integer<int>(parts[0], "-msglog k", 0, n) : -1;
                 o.lengths.clear();
                 if (k < 0) o.lengths.push_back(0);
                 for (int e = std::max(k, 0); e <= n; ++e) o.lengths.push_back(std::size_t{1} << e);
               }});
  t.push_back(
      {"-msgsz", "SIZE",
       "one more length (K, M, G: times 1024, 1024^2, 1024^3); may be given again",
       [](Options& o, const std::string& v) { o.lengths.push_back(length_of(v, "-msgsz")); }});
  t.push_back(
      {"-msglen", "FILE", "lengths, one per line (K, M, G suffixes), '#' comments",
       [](Options& o, const std::string& v) {
         o.lengths.clear();
         try {
           core::InputFile in(v, "a -msglen file (message lengths)", core::kOptionFileLimits);
           for (std::string line; in.next_line(line);) {
             const std::string text = core::trim(line);
             if (text.empty() || text[0] == '#') continue;
             o.lengths.push_back(length_of(
                 text, "-msglen " + core::printable(v) + ":" + std::to_string(in.line_number())));
           }
         } catch (const core::InputError& e) {
           throw std::invalid_argument(e.what());
         }
         if (o.lengths.empty())
           throw std::invalid_argument("-msglen " + core::printable(v) + ": no message length");
       }});
  t.push_back({"-iter", "MAX[,MB]",
               "repetitions of a length: MB * 2^20 / X (default 800), at least 1 and at most MAX "
               "(default 100000); MAX at 0 bytes; a tenth of them untimed first",
               [](Options& o, const std::string& v) {
                 const auto parts = core::split(v, ',');
                 if (parts.empty() || parts.size() > 2)
                   throw std::invalid_argument("-iter takes MAX or MAX,MB, got '" + v + "'");
                 o.iterations_max =
                     cli::parse_integer<long long>(parts[0], "-iter MAX", 1, INT_MAX);
                 if (parts.size() == 2)
                   o.numerator =
                       cli::parse_integer<long long>(parts[1], "-iter MB", 1, 1 << 20) * 1048576;
               },
               [](const Options& o) {
                 return fmt::format("{},{}", o.iterations_max, o.numerator / 1048576);
               }});
  t.push_back({"-pause", "USEC", "microseconds every process sleeps before each length",
               [](Options& o, const std::string& v) {
                 o.pause_s =
                     static_cast<double>(cli::parse_integer<int>(v, "-pause", 0, 60000000)) / 1e6;
               },
               [](const Options& o) { return fmt::format("{:.0f}", o.pause_s * 1e6); }});
  for (const bool write : {true, false})
    t.push_back({write ? "-msgwr" : "-msgrd", "BOOL",
                 write ? "write one byte of each cache line of the send buffer before a send"
                       : "read one byte of each cache line of the receive buffer after a receive",
                 [write](Options& o, const std::string& v) {
                   (write ? o.write : o.read) = switch_value(v, write ? "-msgwr" : "-msgrd");
                 },
                 [write](const Options& o) {
                   return (write ? o.write : o.read) ? std::string("true") : std::string("false");
                 }});
  t.push_back({"-check", "",
               "after each length, one repetition more whose received data is compared with "
               "what its senders sent (outside the timed loop); wrong data prints CHECK FAILURES "
               "and exits 3 (mpiscope's; Intel's IMB-P2P has no check)",
               [](Options& o, const std::string&) { o.check = true; }});
  t.push_back({"-list", "", "print the benchmark names, one per line, and run nothing",
               [](Options& o, const std::string&) { o.list = true; }});
  return t;
}

Options parse(const std::vector<std::string>& args) {
  Options o;
  const auto table = option_table();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "-help" || a == "--help") {
      o.help = true;
    } else if (cli::take_option(table, args, i, o) ||
               cli::take_option(cli::output_option_table(), args, i, o.output)) {
    } else if (!a.empty() && a[0] == '-' && a.size() > 1) {
      throw std::invalid_argument("unknown option '" + a + "'");
    } else {
      const std::string name = canonical_name(a, benchmark_names());
      if (std::find(o.benchmarks.begin(), o.benchmarks.end(), name) == o.benchmarks.end())
        o.benchmarks.push_back(name);
    }
  }
  if (o.benchmarks.empty()) o.benchmarks = benchmark_names();
  o.output.validate();
  return o;
}

std::vector<std::size_t> lengths_of(const Options& o) {
  if (!o.lengths.empty()) return o.lengths;
  std::vector<std::size_t> out = {0};
  for (std::size_t x = 1; x <= kDefaultLargest; x *= 2) out.push_back(x);
  return out;
}

// IMB-P2P's get_iters: numerator / X rounded, within 1 and MAX (MAX at X = 0); the warm-up a
// tenth, at least 1 when there is more than one repetition.
int repetitions_of(const Options& o, std::size_t bytes) {
  if (bytes == 0) return static_cast<int>(o.iterations_max);
  const double n = std::round(static_cast<double>(o.numerator) / static_cast<double>(bytes));
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(o.iterations_max)));
}
int warm_up_of(int n) {
  return n / 10 == 0 && n > 1 ? 1 : n / 10;
}

std::string help_text(const std::string& program) {
  const auto table = option_table();
  std::string names;
  for (const auto& n : benchmark_names()) names += (names.empty() ? "" : ", ") + n;
  return "\n" + program + "  [-help]\n" + cli::option_table_synopsis(table, "          ") +
         cli::output_options_synopsis("          ") + "          [benchmark ...]\n\nwhere\n" +
         cli::option_table_help(table, Options{}) + cli::output_options_help() +
         "\nEvery benchmark runs on all processes at once. t[usec] is the mean over the ranks of "
         "the time per message a rank\nhandles; Mbytes/sec (10^6 bytes per second) and Msg/sec "
         "count every rank's messages over the slowest rank's time.\nBenchmarks (any case): " +
         names + "\n\n";
}

int run(const std::string& serialized, int thread_level,
        const std::vector<std::string>& command_line) {
  const Options o = nlohmann::json::parse(serialized).get<Options>();
  const int world_size = mpi::world_size();
  core::EngineSettings s;
  s.repetitions_rule = [&o](const core::RepetitionSettings&, std::size_t bytes, bool) {
    return repetitions_of(o, bytes);
  };
  s.warm_up_rule = [](std::size_t, int n) { return warm_up_of(n); };
  s.repetitions.warm_up = core::WarmUp::EveryLength;
  s.repetitions.n_barr = 1;
  s.own_barrier_everywhere = true;  // IMB-P2P's barrier: zero-byte MPI_Sendrecv, distances 2^k
  s.npmin = world_size;
  s.pause_before_length_s = o.pause_s;
  s.timeout_s = o.output.timeout_s;
  s.check = o.check;
  const std::vector<core::Benchmark> all =
      benchmarks({.write = o.write, .read = o.read}, world_size);
  const auto lengths = lengths_of(o);
  core::SuitePlan plan;
  plan.suite = "imb-p2p";
  for (const auto& name : o.benchmarks)
    for (const auto& b : all)
      if (b.name == name) plan.benchmarks.push_back(&b);
  plan.lengths = [&lengths](const core::Benchmark&) { return lengths; };
  core::RunInfo info = core::collect_run_info("imb-p2p", command_line, thread_level);
  info.settings["iter"] = fmt::format("{},{}", o.iterations_max, o.numerator / 1048576);
  info.settings["repetitions_rule"] = fmt::format(
      "round({} MB / X), at least 1 and at most {} ({} at 0 bytes); a tenth of them (at least 1) "
      "untimed before",
      o.numerator / 1048576, o.iterations_max, o.iterations_max);
  info.settings["pause_s"] = cli::number_text(o.pause_s);
  info.settings["msgwr"] = o.write ? "true" : "false";
  info.settings["msgrd"] = o.read ? "true" : "false";
  info.settings["check"] = o.check ? "1" : "0";
  info.settings["synchronisation"] =
      "a dissemination barrier of zero-byte MPI_Sendrecv before each timed loop (IMB-P2P's)";
  info.settings["megabyte"] = "10^6 bytes in the text's Mbytes/sec; 2^20 in mbytes_per_sec";
  info.settings["timer"] = "MPI_Wtime";
  for (const auto* b : plan.benchmarks) info.benchmarks.push_back(b->name);
  cli::RunReporters reporters([&] { return std::make_unique<TextReporter>(stdout, lengths); },
                              o.output, info);
  core::MeanTimeHeadline mean(reporters.out(), [](const core::BenchmarkRun&) { return true; });
  return reporters.run(plan, s, info, &mean);
}

cli::SuiteMain imb_p2p_main() {
  return cli::main_of(
      {.help = "-help",
       .parse =
           [](const cli::Launch& launch, const std::vector<std::string>& args, int) {
             const Options o = parse(args);
             if (o.help)
               return cli::ParseResult{cli::ParseResult::kHelp, help_text(launch.program)};
             if (o.list) return cli::listing(benchmark_names());
             return cli::ParseResult{cli::ParseResult::kRun, nlohmann::json(o).dump()};
           },
       .run = [](const cli::Launch& launch, const std::string& options,
                 int thread_level) { return run(options, thread_level, launch.command_line); }});
}

}  // namespace

MPISCOPE_REGISTER_SUITE((cli::SuiteEntry{
    "imb-p2p",
    "Intel MPI Benchmarks IMB-P2P: point-to-point patterns on every process at once",
    {{"IMB-P2P", {}}},
    17,
    imb_p2p_main()}));

}  // namespace mpiscope::imb::p2p
