// IMB-MT (`mpiscope imb-mt`, alias IMB-MT): current IMB's multi-threaded benchmarks, with its
// command line (MT_suite.cpp and imb.cpp's common options). As Intel's, it runs one thread per
// process unless -thread_level multiple, and then as many as OMP_NUM_THREADS says (else one per
// core, OpenMP's default); mpiscope's -threads N sets the count and asks for
// MPI_THREAD_MULTIPLE itself. Rank 0 decides the count, so that every process runs the same.
#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <thread>

#include "cli/frontend.hpp"
#include "cli/numbers.hpp"
#include "cli/option_table.hpp"
#include "cli/registry.hpp"
#include "cli/suite_cli.hpp"
#include "core/engine.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "suites/imb/mt/benchmarks.hpp"
#include "suites/imb/mt/text_output.hpp"
#include "suites/imb/options.hpp"

namespace mpiscope::imb::mt {
namespace {

struct Options {
  bool help = false;
  bool list = false;                    // -list: the benchmark names, and nothing run
  std::vector<std::string> benchmarks;  // canonical names in IMB-MT's order; empty: all
  std::string thread_level = "single";  // Intel's default: one thread per process
  int threads = 0;                      // -threads; 0: from -thread_level and OMP_NUM_THREADS
  int stride = 0, warmup = 100, repeat = 1000, window_size = 64;
  std::string barrier = "on";
  std::vector<int> counts = {1, 2, 4, 8};
  int malloc_align = 64;
  std::string malloc_algo = "serial";
  bool check = false, header = true;
  std::string datatype = "int";
  cli::OutputOptions output;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Options, help, list, benchmarks, thread_level, threads, stride,
                                   warmup, repeat, window_size, barrier, counts, malloc_align,
                                   malloc_algo, check, header, datatype, output)

using Spec = cli::OptionSpec<Options>;

int integer(const std::string& text, const std::string& what, long long min, long long max) {
  return static_cast<int>(cli::parse_integer<long long>(text, what, min, max));
}

struct Lists {
  std::vector<std::string> include, exclude;
};

std::vector<Spec> option_table(Lists& lists) {
  const auto names_into = [](std::vector<std::string>& into, const std::string& v,
                             const std::string& option) {
    bool named = false;
    for (const auto& name : core::split(v, ','))
      if (!core::trim(name).empty()) {
        into.push_back(canonical_name(core::trim(name), benchmark_names()));
        named = true;
      }
    if (!named) throw std::invalid_argument(option + " names no benchmark");
  };
  std::vector<Spec> t;
  t.push_back(
      {"-thread_level", "L",
       "single, funneled, serialized or multiple: the level MPI_Init_thread asks for; only "
       "multiple runs more than one thread per process (OMP_NUM_THREADS of them, else one per "
       "core), as Intel's IMB-MT",
       [](Options& o, const std::string& v) {
         if (!thread_level_of(v))
           throw std::invalid_argument(
               "-thread_level takes single, funneled, serialized or multiple, got '" + v + "'");
         o.thread_level = core::to_lower(v);
       },
       [](const Options& o) { return o.thread_level; }});
  t.push_back(
      {"-threads", "N",
       "mpiscope's: N threads per process (asks for MPI_THREAD_MULTIPLE itself); overrides "
       "OMP_NUM_THREADS",
       [](Options& o, const std::string& v) { o.threads = integer(v, "-threads", 1, 1024); }});
  t.push_back(
      {"-stride", "S",
       "point-to-point pairs: rank r with r + S for r in the even blocks of S ranks; SendRecvMT "
       "and ExchangeMT: a ring of distance S (0: half the processes)",
       [](Options& o, const std::string& v) { o.stride = integer(v, "-stride", 0, INT_MAX); },
       [](const Options& o) { return std::to_string(o.stride); }});
  t.push_back(
      {"-warmup", "N", "untimed repetitions before each count's timed ones",
       [](Options& o, const std::string& v) { o.warmup = integer(v, "-warmup", 0, INT_MAX); },
       [](const Options& o) { return std::to_string(o.warmup); }});
  t.push_back(
      {"-repeat", "N", "timed repetitions of each count",
       [](Options& o, const std::string& v) { o.repeat = integer(v, "-repeat", 1, INT_MAX); },
       [](const Options& o) { return std::to_string(o.repeat); }});
  t.push_back({"-window_size", "N", "UniBandMT and BiBandMT: messages in flight per repetition",
               [](Options& o, const std::string& v) {
                 o.window_size = integer(v, "-window_size", 1, 1 << 20);
               },
               [](const Options& o) { return std::to_string(o.window_size); }});
  t.push_back(
      {"-barrier", "on|off|special",
       "on: MPI_Barrier before each timed loop and between the collectives' repetitions (with "
       "threads: the threads meet, thread 0's barrier, they meet again); special: a "
       "dissemination barrier of zero-byte MPI_Sendrecv instead; off: none",
       [](Options& o, const std::string& v) {
         const std::string w = core::to_lower(v);
         if (w != "on" && w != "off" && w != "special")
           throw std::invalid_argument("-barrier takes on, off or special, got '" + v + "'");
         o.barrier = w;
       },
       [](const Options& o) { return o.barrier; }});
  t.push_back({"-count", "LIST",
               "comma-separated message lengths in elements of -datatype, per thread",
               [](Options& o, const std::string& v) {
                 o.counts.clear();
                 for (const auto& c : core::split(v, ','))
                   if (!core::trim(c).empty())
                     o.counts.push_back(integer(core::trim(c), "-count", 0, INT_MAX / 8));
                 if (o.counts.empty()) throw std::invalid_argument("-count names no count");
               },
               [](const Options&) { return std::string("1,2,4,8"); }});
  t.push_back(
      {"-malloc_align", "N",
       "buffer alignment in bytes (a power of two; mpiscope's buffers are page-aligned, so any "
       "up to 4096 holds)",
       [](Options& o, const std::string& v) {
         const int a = integer(v, "-malloc_align", 1, 4096);
         if ((a & (a - 1)) != 0)
           throw std::invalid_argument("-malloc_align takes a power of two up to 4096, got '" + v +
                                       "'");
         o.malloc_align = a;
       },
       [](const Options& o) { return std::to_string(o.malloc_align); }});
  t.push_back(
      {"-malloc_algo", "serial|continuous|parallel",
       "who allocates each thread's buffers, and where: the main thread, one allocation per "
       "thread (serial) or one block per direction cut into the threads' buffers, each as long "
       "as the longest count needs (continuous); or each thread its own (parallel: its pages "
       "first touched where they are used)",
       [](Options& o, const std::string& v) {
         const std::string w = core::to_lower(v);
         if (w != "serial" && w != "continuous" && w != "parallel")
           throw std::invalid_argument("-malloc_algo takes serial, continuous or parallel, got '" +
                                       v + "'");
         o.malloc_algo = w;
       },
       [](const Options& o) { return o.malloc_algo; }});
  t.push_back(
      {"-check", "BOOL",
       "on: after each count, verify every thread's received data against what its partner's "
       "thread sent (outside the timed loop); wrong data prints CHECK FAILURES and exits 3",
       [](Options& o, const std::string& v) { o.check = switch_value(v, "-check"); },
       [](const Options& o) { return o.check ? std::string("on") : std::string("off"); }});
  t.push_back({"-list", "", "print the benchmark names, one per line, and run nothing",
               [](Options& o, const std::string&) { o.list = true; }});
  t.push_back({"-noheader", "", "leave out the four-line header",
               [](Options& o, const std::string&) { o.header = false; }});
  t.push_back({"-datatype", "int|char", "what the messages are made of (MPI_INT or MPI_CHAR)",
               [](Options& o, const std::string& v) {
                 const std::string w = core::to_lower(v);
                 if (w != "int" && w != "char")
                   throw std::invalid_argument("-datatype takes int or char, got '" + v + "'");
                 o.datatype = w;
               },
               [](const Options& o) { return o.datatype; }});
  t.push_back({"-include", "LIST", "comma-separated benchmarks run besides those named",
               [&lists, names_into](Options&, const std::string& v) {
                 names_into(lists.include, v, "-include");
               }});
  t.push_back({"-exclude", "LIST", "comma-separated benchmarks left out",
               [&lists, names_into](Options&, const std::string& v) {
                 names_into(lists.exclude, v, "-exclude");
               }});
  t.push_back({"-input", "FILE", "benchmark names, one per line; '#' starts a comment",
               [](Options& o, const std::string& v) {
                 try {
                   for (const auto& name : read_selection_file(v))
                     o.benchmarks.push_back(canonical_name(name, benchmark_names()));
                 } catch (const UsageError& e) {
                   throw std::invalid_argument(e.what());
                 }
               }});
  return t;
}

bool is_help(const std::string& a) {
  return a == "-h" || a == "-help" || a == "--help";
}

// Whether the command line names -thread_level itself.
bool args_name_level(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "-thread_level") != args.end();
}

// The threads per process a run gets; rank 0's environment decides for every process.
int threads_of(const Options& o) {
  if (o.threads > 0) return o.threads;
  if (o.thread_level != "multiple") return 1;
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    const std::string first = core::split(env, ',').front();
    try {
      return cli::parse_integer<int>(core::trim(first), "OMP_NUM_THREADS", 1, 1024);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("OMP_NUM_THREADS='" + std::string(env) + "' is no thread count");
    }
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

Options parse(const std::vector<std::string>& args, int world_size) {
  Options o;
  Lists lists;
  const auto table = option_table(lists);
  std::vector<std::string> named;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (is_help(args[i])) {
      o.help = true;
    } else if (cli::take_option(table, args, i, o) ||
               cli::take_option(cli::output_option_table(), args, i, o.output)) {
    } else if (!args[i].empty() && args[i][0] == '-' && args[i].size() > 1) {
      throw std::invalid_argument("unknown option '" + args[i] + "'");
    } else {
      bool any = false;
      for (const auto& name : core::split(args[i], ','))
        if (!core::trim(name).empty()) {
          named.push_back(canonical_name(core::trim(name), benchmark_names()));
          any = true;
        }
      if (!any) throw std::invalid_argument("an empty benchmark name was given");
    }
  }
  if (o.threads > 1 && args_name_level(args) && o.thread_level != "multiple")
    throw std::invalid_argument("-threads " + std::to_string(o.threads) +
                                " runs threads that call MPI at once: -thread_level " +
                                o.thread_level + " does not allow that (give multiple)");
  if (o.threads > 0 && !args_name_level(args)) o.thread_level = "multiple";
  o.threads = threads_of(o);
  if (o.stride > world_size / 2)
    throw std::invalid_argument("-stride " + std::to_string(o.stride) +
                                " pairs no process: at most half the processes (" +
                                std::to_string(world_size / 2) + ")");
  if (o.check && o.datatype != "int")
    throw std::invalid_argument("-check verifies int data only, as IMB-MT's (-datatype int)");
  // The benchmarks in IMB-MT's order: those named (all when none), -include's, less -exclude's.
  std::vector<std::string> chosen = named;
  chosen.insert(chosen.end(), o.benchmarks.begin(), o.benchmarks.end());
  if (chosen.empty()) chosen = benchmark_names();
  chosen.insert(chosen.end(), lists.include.begin(), lists.include.end());
  o.benchmarks.clear();
  for (const auto& name : benchmark_names())
    if (std::find(chosen.begin(), chosen.end(), name) != chosen.end() &&
        std::find(lists.exclude.begin(), lists.exclude.end(), name) == lists.exclude.end())
      o.benchmarks.push_back(name);
  if (o.benchmarks.empty()) throw std::invalid_argument("-exclude leaves no benchmark to run");
  o.output.validate();
  return o;
}

std::string help_text(const std::string& program) {
  Lists lists;
  const auto table = option_table(lists);
  std::string names;
  for (const auto& n : benchmark_names()) names += (names.empty() ? "" : ", ") + n;
  return "\n" + program + "  [-help]\n" + cli::option_table_synopsis(table, "          ") +
         cli::output_options_synopsis("          ") +
         "          [benchmark1 [,benchmark2 [,...]]]\n\nwhere\n" +
         cli::option_table_help(table, Options{}) + cli::output_options_help() +
         "\nEach thread runs every benchmark at once with the others, on a communicator and "
         "buffers of its own.\n#bytes is the message length times the threads; times are in "
         "usec, Mbytes/sec 10^6 bytes per second.\nBenchmarks (any case): " +
         names + "\n\n";
}

core::EngineSettings engine_settings(const Options& o, int world_size) {
  core::EngineSettings s;
  s.repetitions_rule = [repeat = o.repeat](const core::RepetitionSettings&, std::size_t, bool) {
    return repeat;
  };
  s.warm_up_rule = [warmup = o.warmup](std::size_t, int) { return warmup; };
  s.repetitions.warm_up = core::WarmUp::EveryLength;
  s.repetitions.n_barr = o.barrier == "off" ? 0 : 1;
  s.own_barrier_everywhere = o.barrier == "special";
  s.root_shift = false;
  s.npmin = world_size;  // IMB-MT runs on every process only
  s.threads = o.threads;
  s.thread_buffers = o.malloc_algo == "parallel"     ? core::ThreadBuffers::Parallel
                     : o.malloc_algo == "continuous" ? core::ThreadBuffers::Continuous
                                                     : core::ThreadBuffers::Serial;
  s.pair_stride = o.stride;
  s.window_size = o.window_size;
  s.check = o.check;
  s.timeout_s = o.output.timeout_s;
  return s;
}

int run(const std::string& serialized, int thread_level,
        const std::vector<std::string>& command_line) {
  const Options o = nlohmann::json::parse(serialized).get<Options>();
  const int world_size = mpi::world_size();
  const core::EngineSettings settings = engine_settings(o, world_size);
  const Definition d{.threads = o.threads,
                     .window = o.window_size,
                     .stride = o.stride,
                     .char_elements = o.datatype == "char",
                     .barrier_between_repetitions = o.barrier != "off"};
  const std::vector<core::Benchmark> all = benchmarks(d);
  core::SuitePlan plan;
  plan.suite = "imb-mt";
  for (const auto& name : o.benchmarks)
    for (const auto& b : all)
      if (b.name == name) plan.benchmarks.push_back(&b);
  plan.lengths = [&o](const core::Benchmark& b) {
    std::vector<std::size_t> lengths;
    for (const int count : o.counts) lengths.push_back(static_cast<std::size_t>(count) * b.unit);
    return lengths;
  };
  core::RunInfo info = core::collect_run_info("imb-mt", command_line, thread_level);
  const auto num = cli::number_text;
  info.settings["threads_per_process"] = std::to_string(o.threads);
  info.settings["thread_level_requested"] =
      mpi::thread_level_name(thread_level_of(o.thread_level).value_or(MPI_THREAD_SINGLE));
  info.settings["repeat"] = std::to_string(o.repeat);
  info.settings["warmup"] = std::to_string(o.warmup);
  info.settings["stride"] = std::to_string(o.stride);
  info.settings["window_size"] = std::to_string(o.window_size);
  info.settings["barrier"] = o.barrier;
  info.settings["malloc_algo"] = o.malloc_algo;
  info.settings["malloc_align"] = std::to_string(o.malloc_align);
  info.settings["datatype"] = o.datatype == "char" ? "MPI_CHAR" : "MPI_INT";
  info.settings["check"] = o.check ? "1" : "0";
  info.settings["timeout_s"] = num(o.output.timeout_s);
  info.settings["megabyte"] =
      "10^6 bytes in the text's Mbytes/sec (IMB-MT); 2^20 in mbytes_per_sec";
  info.settings["synchronisation"] =
      o.barrier == "off"
          ? "none (-barrier off)"
          : std::string(o.barrier == "special" ? "a dissemination barrier" : "MPI_Barrier") +
                " before each timed loop and between the collectives' repetitions; with "
                "threads the threads meet, thread 0 synchronises the processes, they meet again";
  info.settings["timer"] = "MPI_Wtime";
  for (const auto* b : plan.benchmarks) info.benchmarks.push_back(b->name);
  cli::RunReporters reporters(
      [&] {
        return std::make_unique<TextReporter>(
            stdout, TextStyle{.threads = o.threads, .window = o.window_size, .header = o.header});
      },
      o.output, info);
  // UniBandMT and BiBandMT print t_avg alone.
  core::MeanTimeHeadline mean(reporters.out(),
                              [](const core::BenchmarkRun& b) { return b.message_rate; });
  return reporters.run(plan, settings, info, &mean);
}

cli::SuiteMain imb_mt_main() {
  return cli::main_of(
      {.help = "-help",
       .parse =
           [](const cli::Launch& launch, const std::vector<std::string>& args, int world_size) {
             const Options o = parse(args, world_size);
             if (o.help)
               return cli::ParseResult{cli::ParseResult::kHelp, help_text(launch.program)};
             if (o.list) return cli::listing(benchmark_names());
             return cli::ParseResult{cli::ParseResult::kRun, nlohmann::json(o).dump()};
           },
       .run = [](const cli::Launch& launch, const std::string& options,
                 int thread_level) { return run(options, thread_level, launch.command_line); },
       // -threads asks for MPI_THREAD_MULTIPLE unless -thread_level says otherwise (then parse
       // refuses it).
       .thread_level =
           [](const std::vector<std::string>& args) {
             const bool threads = std::find(args.begin(), args.end(), "-threads") != args.end();
             return threads && !args_name_level(args) ? MPI_THREAD_MULTIPLE
                                                      : requested_thread_level(args);
           }});
}

}  // namespace

MPISCOPE_REGISTER_SUITE((cli::SuiteEntry{
    "imb-mt",
    "Intel MPI Benchmarks IMB-MT: every thread of a process communicating at once",
    {{"IMB-MT", {}}},
    16,
    imb_mt_main()}));

}  // namespace mpiscope::imb::mt
