#include "suites/imb/options.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <limits>

#include "cli/numbers.hpp"
#include "cli/suite_cli.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"

namespace mpiscope::imb {

namespace {
// The largest last-level caches are around 1 GB; beyond 16 GB it is a typo, not a cache.
constexpr double kMaxOffCacheMb = 16384;
constexpr cli::NumberRange kMemGbRange{0, 1048576, true};  // -mem: above 0, at most 1 PiB
// --cpu-target: IMB's TARGET_CPU_SECS is 0.1 s of work beside each transfer; a minute is plenty.
constexpr cli::NumberRange kCpuTargetRange{0, 60, true};
using core::split;
using core::trim;

// The shared checks of cli/numbers.hpp, as IMB's usage errors.
template <class Parse>
auto checked(Parse&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

double number(const std::string& text, const std::string& what, const cli::NumberRange& range) {
  return checked([&] { return cli::parse_number(text, what, range); });
}

long long integer(const std::string& text, const std::string& what, long long min, long long max) {
  return checked([&] { return cli::parse_integer<long long>(text, what, min, max); });
}

int positive_int(const std::string& text, const std::string& what) {
  return static_cast<int>(integer(text, what, 1, INT_MAX));
}

std::string canonical_name(const std::string& name, const std::vector<std::string>& known) {
  for (const auto& k : known)
    if (core::iequals(k, name)) return k;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw UsageError("unknown benchmark '" + name + "'; valid names (any case): " + list);
}

void add_benchmark(Options& o, const std::string& name, const std::vector<std::string>& known) {
  const std::string c = canonical_name(name, known);
  for (const auto& b : o.benchmarks)
    if (b == c) return;
  o.benchmarks.push_back(c);
}

std::size_t parse_length(const std::string& raw, const std::string& where) {
  std::string text = raw;
  std::size_t multiplier = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K'))
    multiplier = 1024, text.pop_back();
  else if (!text.empty() && (text.back() == 'm' || text.back() == 'M'))
    multiplier = 1048576, text.pop_back();
  long long v = 0;
  try {
    v = integer(text, where, LLONG_MIN, LLONG_MAX);
  } catch (const UsageError&) {
    throw UsageError(where + ": '" + raw + "' is not a message length (a non-negative integer)");
  }
  if (v < 0) throw UsageError(where + ": negative message length " + raw);
  const long double bytes = static_cast<long double>(v) * multiplier;
  if (bytes > INT_MAX)
    throw UsageError(where + ": " + raw + " bytes exceeds the largest MPI message (" +
                     std::to_string(INT_MAX) + " bytes)");
  return static_cast<std::size_t>(bytes);
}
}  // namespace

// The checked lines of an option file (core::InputFile: a regular file of text, bounded).
template <class F>
void for_each_line(const std::string& path, const std::string& what, F&& f) {
  try {
    core::InputFile file(path, what, core::kOptionFileLimits);
    for (std::string line; file.next_line(line);) f(trim(line), file.line_number());
  } catch (const core::InputError& e) {
    throw UsageError(e.what());
  }
}

std::vector<std::size_t> read_lengths_file(const std::string& path) {
  std::vector<std::size_t> lengths;
  for_each_line(path, "a -msglen file (message lengths)", [&](const std::string& t, std::size_t n) {
    if (t.empty() || t[0] == '#') return;
    lengths.push_back(parse_length(t, core::printable(path) + ":" + std::to_string(n)));
  });
  if (lengths.empty())
    throw UsageError("-msglen file '" + core::printable(path) + "' contains no message length");
  return lengths;
}

std::vector<std::string> read_selection_file(const std::string& path) {
  std::vector<std::string> names;
  for_each_line(path, "an -input file (benchmark names)", [&](const std::string& t, std::size_t n) {
    if (t.empty() || t[0] == '#') return;
    if (t.find_first_of(" \t") != std::string::npos)
      throw UsageError(core::printable(path) + ":" + std::to_string(n) +
                       ": one benchmark name per line expected, got '" + t + "'");
    names.push_back(t);
  });
  if (names.empty())
    throw UsageError("-input file '" + core::printable(path) + "' contains no benchmark name");
  return names;
}

// Current IMB's switch values: on, 1, enable, yes; off, 0, disable, no.
static bool on_or_off(const std::string& v, const std::string& option,
                      const std::string& values = "on or off") {
  const std::string w = core::to_lower(v);
  if (w == "on" || w == "1" || w == "enable" || w == "yes") return true;
  if (w == "off" || w == "0" || w == "disable" || w == "no") return false;
  throw UsageError(option + " takes " + values + ", got '" + v + "'");
}

std::optional<int> thread_level_of(const std::string& name) {
  const std::string w = core::to_lower(name);
  if (w == "single") return MPI_THREAD_SINGLE;
  if (w == "funneled") return MPI_THREAD_FUNNELED;
  if (w == "serialized") return MPI_THREAD_SERIALIZED;
  if (w == "multiple") return MPI_THREAD_MULTIPLE;
  return std::nullopt;
}

int requested_thread_level(const std::vector<std::string>& args) {
  int level = MPI_THREAD_SINGLE;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-thread_level") level = thread_level_of(args[i + 1]).value_or(level);
  return level;
}

Options parse_options(const std::vector<std::string>& args, const std::vector<std::string>& known,
                      int world_size, const Options& defaults,
                      const std::vector<std::string>& default_list) {
  Options o = defaults;
  std::vector<std::string> include, exclude;  // -include, -exclude (current IMB)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError("option " + a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "-help" || a == "--help") {
      o.help = true;
    } else if (a == "-npmin") {
      // The guide: P_min larger than the number of processes counts as that number; a value
      // that does not fit an integer at all is an error.
      o.npmin = static_cast<int>(std::min<long long>(
          integer(value(), "-npmin", 1, std::numeric_limits<long long>::max()), INT_MAX));
    } else if (a == "-multi") {
      const std::string& v = value();
      if (v != "0" && v != "1") throw UsageError("-multi takes 0 or 1, got '" + v + "'");
      o.multi = v == "1";
    } else if (a == "-off_cache") {
      const auto parts = split(value(), ',');
      if (parts.size() > 2) throw UsageError("-off_cache takes cache_size[,cache_line_size]");
      o.off_cache_mb = number(parts[0], "-off_cache size", {-1, kMaxOffCacheMb});
      if (o.off_cache_mb < 0 && o.off_cache_mb != -1)
        throw UsageError("-off_cache size must be -1 (default) or a size in MB >= 0");
      if (parts.size() == 2)
        o.off_cache_line = static_cast<std::size_t>(positive_int(parts[1], "-off_cache line size"));
    } else if (a == "-iter") {
      const auto parts = split(value(), ',');
      if (parts.size() > 3)
        throw UsageError("-iter takes msgspersample[,overall_vol[,msgs_nonaggr]]");
      o.msgs_per_sample = positive_int(parts[0], "-iter msgspersample");
      if (parts.size() > 1)
        o.overall_vol_mb = static_cast<std::size_t>(positive_int(parts[1], "-iter overall_vol"));
      if (parts.size() > 2) o.msgs_nonaggr = positive_int(parts[2], "-iter msgs_nonaggr");
    } else if (a == "-time") {
      o.time_s = number(value(), "-time", cli::kPositiveSeconds);
    } else if (a == "-warm_up") {
      const std::string& v = value();
      if (core::to_lower(v) == "imb3.1")
        o.warm_up = "imb3.1";
      else
        o.warm_up = on_or_off(v, "-warm_up", "on, off or imb3.1") ? "on" : "off";
    } else if (a == "-msglog") {
      // Current IMB: 0, then max(unit, 2^min) doubling up to 2^max; max < 31, min < max.
      const std::string& v = value();
      const auto parts = split(v, ':');
      if (parts.empty() || parts.size() > 2)
        throw UsageError("-msglog takes [min:]max, got '" + v + "'");
      o.msglog_max = static_cast<int>(integer(parts.back(), "-msglog max", 0, 30));
      o.msglog_min =
          parts.size() == 2 ? static_cast<int>(integer(parts[0], "-msglog min", 0, 30)) : 0;
      if (parts.size() == 2 && o.msglog_min >= o.msglog_max)
        throw UsageError("-msglog " + v + ": min must be less than max");
    } else if (a == "-zero_size") {
      o.zero_size = on_or_off(value(), "-zero_size");
    } else if (a == "-aggregate_mode") {
      const std::string& v = value();
      const std::string w = core::to_lower(v);
      if (w != "multi" && w != "aggregate" && w != "non_aggregate")
        throw UsageError("-aggregate_mode takes aggregate, non_aggregate or multi, got '" + v +
                         "'");
      o.aggregate_mode = w;
    } else if (a == "-include" || a == "-exclude") {
      auto& list = a == "-include" ? include : exclude;
      bool named = false;
      for (const auto& name : split(value(), ','))
        if (!trim(name).empty()) {
          list.push_back(canonical_name(trim(name), known));
          named = true;
        }
      if (!named) throw UsageError(a + " names no benchmark");
    } else if (a == "-root_shift") {
      o.root_shift = on_or_off(value(), "-root_shift");
    } else if (a == "-sync") {
      o.sync = on_or_off(value(), "-sync");
    } else if (a == "-iter_policy") {
      const std::string& v = value();
      const std::string w = core::to_lower(v);
      if (w != "imb3.1" && w != "dynamic" && w != "multiple_np" && w != "auto" && w != "off")
        throw UsageError("-iter_policy takes dynamic, multiple_np, auto, off or imb3.1, got '" + v +
                         "'");
      o.iter_policy = w;
    } else if (a == "-imb_barrier") {
      o.imb_barrier = on_or_off(value(), "-imb_barrier");
    } else if (a == "-thread_level") {
      const std::string& v = value();
      if (!thread_level_of(v))
        throw UsageError("-thread_level takes single, funneled, serialized or multiple, got '" + v +
                         "'");
      o.thread_level = core::to_lower(v);
    } else if (a == "-window_size") {
      o.window_size = static_cast<int>(integer(value(), "-window_size", 1, 1 << 20));
    } else if (a == "-mem") {
      o.mem_gb = number(value(), "-mem", kMemGbRange);
    } else if (a == "-msglen") {
      o.lengths = read_lengths_file(value());
    } else if (a == "-map") {
      const std::string& v = value();
      const auto parts = split(core::to_lower(v), 'x');
      if (parts.size() != 2) throw UsageError("-map takes PxQ (for example 2x3), got '" + v + "'");
      o.map_rows = positive_int(parts[0], "-map P");
      o.map_cols = positive_int(parts[1], "-map Q");
      if (static_cast<long long>(o.map_rows) * o.map_cols != world_size)
        throw UsageError("-map " + v + " describes " +
                         std::to_string(static_cast<long long>(o.map_rows) * o.map_cols) +
                         " processes, but " + std::to_string(world_size) + " are running");
    } else if (a == "-input") {
      for (const auto& name : read_selection_file(value())) add_benchmark(o, name, known);
    } else if (a == "-check") {
      o.check = true;
    } else if (a == "--samples") {
      o.samples = true;
    } else if (a == "--cpu-target") {
      o.cpu_target_s = number(value(), "--cpu-target", kCpuTargetRange);
    } else if (a == "--io-dir") {
      o.io_dir = value();
    } else if (checked([&] {
                 return cli::take_option(cli::output_option_table(), args, i, o.output) ||
                        cli::take_option(cli::method_option_table(), args, i, o.method);
               })) {
      // a shared option, stored
    } else if (!a.empty() && a[0] == '-' && a.size() > 1) {
      throw UsageError("unknown option '" + a + "'");
    } else {
      // "" and ",,," name nothing: an error, not the default list.
      bool named = false;
      for (const auto& name : split(a, ','))
        if (!trim(name).empty()) {
          add_benchmark(o, trim(name), known);
          named = true;
        }
      if (!named) throw UsageError("an empty benchmark name was given");
    }
  }
  if (!o.lengths.empty() && o.msglog_max >= 0)
    throw UsageError("-msglen and -msglog both choose the lengths: give one of them");
  if (!o.zero_size && !o.lengths.empty() &&
      std::all_of(o.lengths.begin(), o.lengths.end(), [](std::size_t x) { return x == 0; }))
    throw UsageError("-zero_size off leaves none of the -msglen lengths");
  // Current IMB: the named benchmarks (or all) plus -include, minus -exclude.
  if (!include.empty() || !exclude.empty()) {
    if (o.benchmarks.empty()) o.benchmarks = default_list.empty() ? known : default_list;
    for (const auto& name : include) add_benchmark(o, name, known);
    std::erase_if(o.benchmarks, [&](const std::string& b) {
      return std::find(exclude.begin(), exclude.end(), b) != exclude.end();
    });
    if (o.benchmarks.empty()) throw UsageError("-exclude leaves no benchmark to run");
  }
  try {
    o.method.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (o.method.accurate() && o.multi >= 0)
    throw UsageError("--method accurate does not run Multi mode: its samples need one group");
  if (o.method.accurate() && o.time_s > 0)
    throw UsageError("-time belongs to IMB's method; accurate mode stops by --budget");
  return o;
}

std::string help_text(const std::string& program, const std::vector<std::string>& benchmarks,
                      const Options& d) {
  std::string names;
  for (std::size_t i = 0; i < benchmarks.size(); ++i)
    names += (i % 6 == 0 ? "\n      " : ", ") + benchmarks[i];
  const std::string text =
      "\nCalling sequence (command line will be repeated in Output table!):\n\n" + program +
      R"(  [-h{{elp}}]
          [-npmin     <NPmin>]
          [-multi     <MultiMode>]
          [-off_cache <cache_size[,cache_line_size]>]
          [-iter      <msgspersample[,overall_vol[,msgs_nonaggr]]>]
          [-time      <max_runtime per sample>]
          [-warm_up   on|off|imb3.1]
          [-root_shift on|off]  [-sync on|off]  [-imb_barrier on|off]
          [-iter_policy dynamic|multiple_np|auto|off|imb3.1]
          [-thread_level single|funneled|serialized|multiple]
          [-window_size <messages>]
          [-aggregate_mode aggregate|non_aggregate|multi]
          [-mem       <max. per process memory for overall message buffers>]
          [-msglen    <Lengths_file>]  [-msglog [min:]max]  [-zero_size on|off]
          [-include b1[,b2...]]  [-exclude b1[,b2...]]
          [-map       <PxQ>]
          [-input     <filename>]
          [-check]  [--samples]  [--io-dir DIR]  [--cpu-target SECONDS]
)" + cli::output_options_synopsis("          ") +
      cli::option_table_synopsis(cli::method_option_table(), "          ") +
      R"(          [benchmark1 [,benchmark2 [,...]]]

where
  -npmin N      run on N, 2N, 4N, ... processes and on all of them (default N = {npmin})
  -multi 0|1    run the Multi- versions: disjoint groups of the active size at once;
                0 prints the slowest over all groups, 1 prints every group
  -off_cache S[,L]
                rotate through disjoint buffers so that repetitions do not reuse cached
                data; S = last-level cache size in MB (-1: detected from the system,
                8 MB if unknown), L = cache line size in bytes (detected, else 64)
  -iter A[,B[,C]]
                MSGSPERSAMPLE (default {msgs}), OVERALL_VOL in MB (default {vol}),
                MSGS_NONAGGR (default {nonaggr})
  -time T       at most about T seconds per message length (repetitions estimated in a
                short preparatory run; default: no limit)
  -warm_up on|off|imb3.1
                on (default, as current IMB): before each length is timed, run it
                untimed n/10 times (at least min(10, n)); off: no warm-up; imb3.1:
                IMB 3.1's 2 runs of a 4-byte message before a table's first length
  -root_shift on|off
                IMB-MPI1's and IMB-NBC's rooted collectives (Bcast, Reduce, Gather(v),
                Scatter(v)): off (default, as current IMB) keeps the root at rank 0;
                on (IMB 3.1) moves it round robin, root = i mod P in repetition i
  -sync on|off  IMB-MPI1's and IMB-NBC's collectives: on (default, as current IMB) puts
                an untimed barrier between repetitions and times each alone; off (IMB
                3.1) times the repetitions back to back, so that consecutive ones may
                overlap (pipelining). IMB 3.1's rules exactly: -warm_up imb3.1
                -root_shift on -sync off
  -imb_barrier on|off
                collectives: on synchronises before the timed loop (and between
                repetitions under -sync on) with mpiscope's own dissemination barrier of
                zero-byte MPI_Sendrecv instead of MPI_Barrier (default off, as current IMB)
  -iter_policy P
                how many repetitions a length gets, as current IMB: dynamic (the
                -iter rule, then cut to -time, 10 s unless given), multiple_np
                (MSGSPERSAMPLE along a hyperbola in X, a multiple of the processes),
                auto (multiple_np for rooted collectives, dynamic for the others), off
                (MSGSPERSAMPLE at every length); default imb3.1: the -iter rule, cut
                only by an explicit -time
  -thread_level L
                start MPI with MPI_Init_thread at level L (single, funneled,
                serialized, multiple; default single, funneled with --timeout); the
                header's MPI Thread Environment line gives the level MPI provided
  -window_size N
                Uniband and Biband: messages in flight per repetition (default 256,
                as current IMB; IMB 2019 to 2021.1 used 64)
  -aggregate_mode M
                IMB-EXT, IMB-IO, IMB-RMA: which of the two modes run; aggregate (M
                transfers, then one completion), non_aggregate (each transfer completed)
                or multi (default: both, a table each), as current IMB
  -mem G        at most G GB of message buffers per process (default 1); larger lengths
                are skipped with a note saying how much they would need; with -off_cache
                a length rotates through as many buffers as fit
  -msglen FILE  message lengths, one per line (bytes; k and m suffixes allowed)
  -msglog [min:]max
                lengths 0, then max(unit, 2^min) doubling up to 2^max (max <= 30, min < max;
                default min 0), as current IMB
  -zero_size on|off
                off leaves out the length 0 (default on)
  -include LIST, -exclude LIST
                comma-separated benchmarks added to, or removed from, those named (or all)
  -map PxQ      renumber the P*Q processes row by row of a P x Q matrix filled column by
                column (e.g. -map 4x2 pairs rank i with rank i+4 in Multi-PingPong)
  -input FILE   benchmark names, one per line; '#' starts a comment
  -check        verify every received buffer against what was sent (outside the timed
                loop) and add a 'defects' column: the count of wrong bytes
  --samples     time every repetition separately and keep the samples in the JSON
                (adds a timer read per repetition to the timed loop)
  --io-dir DIR  IMB-IO: where the benchmark files go (default: the current directory);
                names are unique to the run and every file is removed at the end
  --cpu-target S
                IMB-IO non-blocking flavours: CPU work overlapped with each transfer
                (TARGET_CPU_SECS, default 0.1 s)
)" + cli::output_options_help() +
      cli::method_options_help(d.method) +
      R"(
Times are in usec (microseconds); Mbytes/sec means 2^20 bytes per second, as in IMB 3.1.
Benchmark names are case-insensitive:)";
  return fmt::format(fmt::runtime(text), fmt::arg("npmin", d.npmin),
                     fmt::arg("msgs", d.msgs_per_sample), fmt::arg("vol", d.overall_vol_mb),
                     fmt::arg("nonaggr", d.msgs_nonaggr)) +
         names + "\n\n";
}

}  // namespace mpiscope::imb
