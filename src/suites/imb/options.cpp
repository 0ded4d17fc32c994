#include "suites/imb/options.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <limits>

#include "cli/numbers.hpp"
#include "cli/suite_cli.hpp"
#include "core/element_layout.hpp"
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

bool is_known(const std::string& name, const std::vector<std::string>& known) {
  return std::any_of(known.begin(), known.end(),
                     [&](const std::string& k) { return core::iequals(k, name); });
}

std::string list_of(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
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

std::string canonical_name(const std::string& name, const std::vector<std::string>& known) {
  for (const auto& k : known)
    if (core::iequals(k, name)) return k;
  throw UsageError("unknown benchmark '" + name + "'; valid names (any case): " + list_of(known));
}

std::optional<bool> switch_word(const std::string& value) {
  const std::string w = core::to_lower(value);
  if (w == "on" || w == "1" || w == "enable" || w == "yes" || w == "true") return true;
  if (w == "off" || w == "0" || w == "disable" || w == "no" || w == "false") return false;
  return std::nullopt;
}

bool switch_value(const std::string& value, const std::string& option) {
  if (const auto on = switch_word(value)) return *on;
  throw UsageError(option +
                   " takes on or off (1 or 0, yes or no, true or false, enable or "
                   "disable), got '" +
                   value + "'");
}

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
  if (const auto on = switch_word(v)) return *on;
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

Options imb31_rules(Options o) {
  o.rules = kImb31Rules;
  o.iter_policy = "imb3.1";
  o.warm_up = "imb3.1";
  o.root_shift = true;
  o.sync = false;
  return o;
}

std::string rules_of(const std::vector<std::string>& args) {
  std::string rules = kCurrentRules;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-imb_rules") {
      const std::string w = core::to_lower(args[i + 1]);
      if (w != kCurrentRules && w != kImb31Rules && w != "imb3.1")
        throw UsageError("-imb_rules takes current or 3.1, got '" + args[i + 1] + "'");
      rules = w == kCurrentRules ? kCurrentRules : kImb31Rules;
    }
  return rules;
}

namespace {

// What the setters of the table below read and collect beyond the options themselves.
struct ParseState {
  const std::vector<std::string>& known;  // the suite's benchmark names
  int world_size;
  std::vector<std::string> include, exclude;  // -include, -exclude (current IMB)
};

using Spec = cli::OptionSpec<Options>;

std::string on_off(bool on) {
  return on ? "on" : "off";
}

// IMB's options, each named once: the parser, the synopsis and the help are made from this table.
// Options that only some IMB programs take are left out of the others' tables.
std::vector<Spec> option_table(const SuiteOptions& suite, ParseState& st) {
  std::vector<Spec> t;
  t.push_back({"-imb_rules", "current|3.1",
               "whose rules apply where no option says otherwise: current IMB's (2021: repetitions "
               "by -iter_policy dynamic, warm-up at every length, collectives rooted at 0 with a "
               "barrier between repetitions, Mbytes = 10^6 bytes) or IMB 3.1's exactly (its "
               "repetition rule, warm-up, root round robin, repetitions back to back, Mbytes = "
               "2^20 bytes); each option below still sets its own rule",
               [](Options& o, const std::string& v) {
                 o.rules = rules_of({"-imb_rules", v});
               },
               [](const Options& o) { return o.rules; }});
  t.push_back({"-npmin", "N", "run on N, 2N, 4N, ... processes and on all of them",
               [](Options& o, const std::string& v) {
                 // The guide: P_min larger than the number of processes counts as that number; a
                 // value that does not fit an integer at all is an error.
                 o.npmin = static_cast<int>(std::min<long long>(
                     integer(v, "-npmin", 1, std::numeric_limits<long long>::max()), INT_MAX));
               },
               [](const Options& o) { return std::to_string(o.npmin); }});
  t.push_back({"-multi", "0|1",
               "run the Multi- versions: disjoint groups of the active size at once; 0 prints the "
               "slowest over all groups, 1 prints every group",
               [](Options& o, const std::string& v) {
                 if (v != "0" && v != "1") throw UsageError("-multi takes 0 or 1, got '" + v + "'");
                 o.multi = v == "1";
               }});
  t.push_back({"-off_cache", "S[,L]",
               "rotate through disjoint buffers so that repetitions do not reuse cached data; S = "
               "last-level cache size in MB (-1: detected from the system, 8 MB if unknown), L = "
               "cache line size in bytes (detected, else 64)",
               [](Options& o, const std::string& v) {
                 const auto parts = split(v, ',');
                 if (parts.size() > 2)
                   throw UsageError("-off_cache takes cache_size[,cache_line_size]");
                 o.off_cache_mb = number(parts[0], "-off_cache size", {-1, kMaxOffCacheMb});
                 if (o.off_cache_mb < 0 && o.off_cache_mb != -1)
                   throw UsageError("-off_cache size must be -1 (default) or a size in MB >= 0");
                 if (parts.size() == 2)
                   o.off_cache_line =
                       static_cast<std::size_t>(positive_int(parts[1], "-off_cache line size"));
               }});
  t.push_back(
      {"-iter", "A[,B[,C]]", "MSGSPERSAMPLE, OVERALL_VOL in MB, MSGS_NONAGGR",
       [](Options& o, const std::string& v) {
         const auto parts = split(v, ',');
         if (parts.size() > 3)
           throw UsageError("-iter takes msgspersample[,overall_vol[,msgs_nonaggr]]");
         o.msgs_per_sample = positive_int(parts[0], "-iter msgspersample");
         if (parts.size() > 1)
           o.overall_vol_mb = static_cast<std::size_t>(positive_int(parts[1], "-iter overall_vol"));
         if (parts.size() > 2) o.msgs_nonaggr = positive_int(parts[2], "-iter msgs_nonaggr");
       },
       [](const Options& o) {
         return fmt::format("{},{},{}", o.msgs_per_sample, o.overall_vol_mb, o.msgs_nonaggr);
       }});
  t.push_back({"-time", "T",
               "at most about T seconds per message length (repetitions estimated in a short "
               "preparatory run); under -iter_policy dynamic or auto 10 s when not given",
               [](Options& o, const std::string& v) {
                 o.time_s = number(v, "-time", cli::kPositiveSeconds);
               }});
  t.push_back({"-warm_up", "on|off|imb3.1",
               "on (current IMB): before each length is timed, run it untimed n/10 times (at "
               "least min(10, n)); off: no warm-up; imb3.1: IMB 3.1's 2 runs of a 4-byte message "
               "before a table's first length",
               [](Options& o, const std::string& v) {
                 if (core::to_lower(v) == "imb3.1")
                   o.warm_up = "imb3.1";
                 else
                   o.warm_up = on_or_off(v, "-warm_up", "on, off or imb3.1") ? "on" : "off";
               },
               [](const Options& o) { return o.warm_up; }});
  if (suite.collective_options) {
    t.push_back(
        {"-root_shift", "on|off",
         "rooted collectives (Bcast, Reduce, Gather(v), Scatter(v)): off (current IMB) "
         "keeps the root at rank 0; on (IMB 3.1) moves it round robin, root = i mod P in "
         "repetition i",
         [](Options& o, const std::string& v) { o.root_shift = on_or_off(v, "-root_shift"); },
         [](const Options& o) { return on_off(o.root_shift); }});
    t.push_back({"-sync", "on|off",
                 "collectives: on (current IMB) puts an untimed barrier between repetitions and "
                 "times each alone; off (IMB 3.1) times the repetitions back to back, so that "
                 "consecutive ones may overlap (pipelining)",
                 [](Options& o, const std::string& v) { o.sync = on_or_off(v, "-sync"); },
                 [](const Options& o) { return on_off(o.sync); }});
  }
  t.push_back(
      {"-imb_barrier", "on|off",
       "collectives: on synchronises before the timed loop (and between the repetitions "
       "of IMB-MPI1's and IMB-NBC's under -sync on) with mpiscope's own dissemination "
       "barrier of zero-byte MPI_Sendrecv instead of MPI_Barrier",
       [](Options& o, const std::string& v) { o.imb_barrier = on_or_off(v, "-imb_barrier"); },
       [](const Options& o) { return on_off(o.imb_barrier); }});
  t.push_back(
      {"-iter_policy", "P",
       "how many repetitions a length gets: dynamic (the -iter rule, then cut to -time, "
       "10 s unless given), multiple_np (MSGSPERSAMPLE along a hyperbola in X, a multiple "
       "of the processes), auto (multiple_np for rooted collectives, dynamic for the "
       "others), off (MSGSPERSAMPLE at every length), imb3.1 (the -iter rule, cut only by "
       "an explicit -time)",
       [](Options& o, const std::string& v) {
         const std::string w = core::to_lower(v);
         if (w != "imb3.1" && w != "dynamic" && w != "multiple_np" && w != "auto" && w != "off")
           throw UsageError("-iter_policy takes dynamic, multiple_np, auto, off or imb3.1, got '" +
                            v + "'");
         o.iter_policy = w;
       },
       [](const Options& o) { return o.iter_policy; }});
  t.push_back({"-thread_level", "L",
               "start MPI with MPI_Init_thread at level L (single, funneled, serialized, "
               "multiple; funneled with --timeout); the header's MPI Thread Environment line "
               "gives the level MPI provided",
               [](Options& o, const std::string& v) {
                 if (!thread_level_of(v))
                   throw UsageError(
                       "-thread_level takes single, funneled, serialized or multiple, got '" + v +
                       "'");
                 o.thread_level = core::to_lower(v);
               },
               [](const Options& o) { return o.thread_level; }});
  t.push_back({"-window_size", "N",
               "Uniband and Biband: messages in flight per repetition (IMB 2019 to 2021.1 used "
               "64)",
               [](Options& o, const std::string& v) {
                 o.window_size = static_cast<int>(integer(v, "-window_size", 1, 1 << 20));
               },
               [](const Options& o) { return std::to_string(o.window_size); }});
  if (suite.data_types) {
    t.push_back({"-data_type", "T",
                 "what the transfers and data-moving collectives move: byte (MPI_BYTE), char, "
                 "int, float or double; lengths of no whole element are left out",
                 [](Options& o, const std::string& v) {
                   if (!core::find_element_type(core::to_lower(v)))
                     throw UsageError("-data_type takes byte, char, int, float or double, got '" +
                                      v + "'");
                   o.data_type = core::to_lower(v);
                 },
                 [](const Options& o) { return o.data_type; }});
    t.push_back({"-red_data_type", "T",
                 "what the reductions sum (MPI_SUM): char, int, float (MPI_FLOAT) or double",
                 [](Options& o, const std::string& v) {
                   const auto* w = core::find_element_type(core::to_lower(v));
                   if (!w || w->summed == core::Datatype::Byte)
                     throw UsageError("-red_data_type takes char, int, float or double, got '" + v +
                                      "'");
                   o.red_data_type = core::to_lower(v);
                 },
                 [](const Options& o) { return o.red_data_type; }});
    t.push_back({"-contig_type", "L",
                 "the datatype the calls name: base (the element, default), base_vec (one "
                 "MPI_Type_vector of the message's elements), resize (the element resized to "
                 "twice its extent: buffers twice the message, every other element carried) or "
                 "resize_vec (a vector of those); the reductions then sum with IMB's own "
                 "operation",
                 [](Options& o, const std::string& v) {
                   if (!core::find_imb_layout(core::to_lower(v)))
                     throw UsageError(
                         "-contig_type takes base, base_vec, resize or resize_vec, got '" + v +
                         "'");
                   o.contig_type = core::to_lower(v);
                 },
                 [](const Options& o) { return o.contig_type; }});
  }
  if (suite.msg_pause)
    t.push_back({"-msg_pause", "on|off",
                 "on (current IMB's): after each length, every process sleeps a tenth of the "
                 "time it took to measure it, at least 0.1 s",
                 [](Options& o, const std::string& v) { o.msg_pause = on_or_off(v, "-msg_pause"); },
                 [](const Options& o) { return on_off(o.msg_pause); }});
  if (suite.aggregate_modes)
    t.push_back({"-aggregate_mode", "M",
                 "which of a benchmark's two modes run: aggregate (M transfers, then one "
                 "completion), non_aggregate (each transfer completed) or multi (both, a table "
                 "each)",
                 [](Options& o, const std::string& v) {
                   const std::string w = core::to_lower(v);
                   if (w != "multi" && w != "aggregate" && w != "non_aggregate")
                     throw UsageError(
                         "-aggregate_mode takes aggregate, non_aggregate or multi, got '" + v +
                         "'");
                   o.aggregate_mode = w;
                 },
                 [](const Options& o) { return o.aggregate_mode; }});
  t.push_back({"-mem", "G",
               "at most G GB of message buffers per process; larger lengths are skipped with a "
               "note saying how much they would need; with -off_cache a length rotates through as "
               "many buffers as fit",
               [](Options& o, const std::string& v) { o.mem_gb = number(v, "-mem", kMemGbRange); },
               [](const Options& o) { return fmt::format("{:g}", o.mem_gb); }});
  t.push_back({"-msglen", "FILE", "message lengths, one per line (bytes; k and m suffixes allowed)",
               [](Options& o, const std::string& v) { o.lengths = read_lengths_file(v); }});
  t.push_back({"-msglog", "[min:]max",
               "lengths 0, then max(unit, 2^min) doubling up to 2^max (max <= 30, min < max; "
               "default min 0)",
               [](Options& o, const std::string& v) {
                 // Current IMB: 0, then max(unit, 2^min) doubling up to 2^max; max < 31, min < max.
                 const auto parts = split(v, ':');
                 if (parts.empty() || parts.size() > 2)
                   throw UsageError("-msglog takes [min:]max, got '" + v + "'");
                 o.msglog_max = static_cast<int>(integer(parts.back(), "-msglog max", 0, 30));
                 o.msglog_min = parts.size() == 2
                                    ? static_cast<int>(integer(parts[0], "-msglog min", 0, 30))
                                    : 0;
                 if (parts.size() == 2 && o.msglog_min >= o.msglog_max)
                   throw UsageError("-msglog " + v + ": min must be less than max");
               }});
  t.push_back({"-zero_size", "on|off", "off leaves out the length 0",
               [](Options& o, const std::string& v) { o.zero_size = on_or_off(v, "-zero_size"); },
               [](const Options& o) { return on_off(o.zero_size); }});
  for (const char* list : {"-include", "-exclude"}) {
    const bool include = list == std::string("-include");
    t.push_back({list, "LIST",
                 include ? "comma-separated benchmarks run besides those named (or the default "
                           "list), in the suite's order"
                         : "comma-separated benchmarks left out of those named (or the default "
                           "list)",
                 [&st, include, list](Options&, const std::string& v) {
                   auto& names = include ? st.include : st.exclude;
                   bool named = false;
                   for (const auto& name : split(v, ','))
                     if (!trim(name).empty()) {
                       names.push_back(canonical_name(trim(name), st.known));
                       named = true;
                     }
                   if (!named) throw UsageError(std::string(list) + " names no benchmark");
                 }});
  }
  t.push_back({"-map", "PxQ",
               "renumber the P*Q processes row by row of a P x Q matrix filled column by column "
               "(e.g. -map 4x2 pairs rank i with rank i+4 in Multi-PingPong)",
               [&st](Options& o, const std::string& v) {
                 const auto parts = split(core::to_lower(v), 'x');
                 if (parts.size() != 2)
                   throw UsageError("-map takes PxQ (for example 2x3), got '" + v + "'");
                 o.map_rows = positive_int(parts[0], "-map P");
                 o.map_cols = positive_int(parts[1], "-map Q");
                 const long long described = static_cast<long long>(o.map_rows) * o.map_cols;
                 if (described != st.world_size)
                   throw UsageError("-map " + v + " describes " + std::to_string(described) +
                                    " processes, but " + std::to_string(st.world_size) +
                                    " are running");
               }});
  t.push_back({"-input", "FILE", "benchmark names, one per line; '#' starts a comment",
               [&st](Options& o, const std::string& v) {
                 for (const auto& name : read_selection_file(v)) add_benchmark(o, name, st.known);
               }});
  t.push_back({"-check", "",
               "verify every received buffer against what was sent (outside the timed loop) and "
               "add a 'defects' column: the count of wrong bytes",
               [](Options& o, const std::string&) { o.check = true; }});
  t.push_back({"--samples", "",
               "time every repetition separately and keep the samples in the JSON (adds a timer "
               "read per repetition to the timed loop)",
               [](Options& o, const std::string&) { o.samples = true; }});
  if (suite.files) {
    t.push_back({"--io-dir", "DIR",
                 "where the benchmark files go; names are unique to the run and every file is "
                 "removed at the end",
                 [](Options& o, const std::string& v) { o.io_dir = v; },
                 [](const Options& o) { return o.io_dir; }});
    t.push_back({"--cpu-target", "S",
                 "the non-blocking flavours: CPU work overlapped with each transfer "
                 "(TARGET_CPU_SECS)",
                 [](Options& o, const std::string& v) {
                   o.cpu_target_s = number(v, "--cpu-target", kCpuTargetRange);
                 },
                 [](const Options& o) { return fmt::format("{:g} s", o.cpu_target_s); }});
  }
  return t;
}

bool is_help(const std::string& a) {
  return a == "-h" || a == "-help" || a == "--help";
}

}  // namespace

Options parse_options(const std::vector<std::string>& args, const std::vector<std::string>& known,
                      int world_size, const SuiteOptions& suite,
                      const std::vector<std::string>& default_list) {
  Options o = suite.defaults(rules_of(args));
  const bool imb31 = o.rules == kImb31Rules;
  ParseState st{known, world_size, {}, {}};
  const auto table = option_table(suite, st);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (is_help(a)) {
      o.help = true;
    } else if (checked([&] {
                 return cli::take_option(table, args, i, o) ||
                        cli::take_option(cli::output_option_table(), args, i, o.output) ||
                        cli::take_option(cli::method_option_table(), args, i, o.method);
               })) {
      // stored
    } else if (!a.empty() && a[0] == '-' && a.size() > 1) {
      throw UsageError("unknown option '" + a + "'");
    } else {
      // "" and ",,," name nothing: an error, not the default list.
      bool named = false;
      for (const auto& name : split(a, ','))
        if (!trim(name).empty()) {
          named = true;
          // Current IMB reports a name it does not know and runs the others; IMB 3.1 stops.
          if (!imb31 && !is_known(trim(name), known)) {
            o.unknown_benchmarks.push_back(trim(name));
            continue;
          }
          add_benchmark(o, trim(name), known);
        }
      if (!named) throw UsageError("an empty benchmark name was given");
    }
  }
  if (!o.lengths.empty() && o.msglog_max >= 0)
    throw UsageError("-msglen and -msglog both choose the lengths: give one of them");
  if (!o.zero_size && !o.lengths.empty() &&
      std::all_of(o.lengths.begin(), o.lengths.end(), [](std::size_t x) { return x == 0; }))
    throw UsageError("-zero_size off leaves none of the -msglen lengths");
  // Current IMB: -include's benchmarks, then the named ones (or the default list), minus -exclude;
  // each runs once (Intel's runs a name given twice twice).
  if (!st.include.empty() || !st.exclude.empty()) {
    Options listed = o;
    listed.benchmarks.clear();
    for (const auto& name : st.include) add_benchmark(listed, name, known);
    for (const auto& name :
         o.benchmarks.empty() ? (default_list.empty() ? known : default_list) : o.benchmarks)
      add_benchmark(listed, name, known);
    std::erase_if(listed.benchmarks, [&](const std::string& b) {
      return std::find(st.exclude.begin(), st.exclude.end(), b) != st.exclude.end();
    });
    if (listed.benchmarks.empty()) throw UsageError("-exclude leaves no benchmark to run");
    o.benchmarks = std::move(listed.benchmarks);
  }
  if (suite.persistent_requests && o.root_shift)
    throw UsageError(
        "-root_shift on: each persistent request is made once per length, with root 0");
  if (suite.persistent_requests && o.off_cache_mb != 0)
    throw UsageError("-off_cache: each persistent request is made once per length, on one buffer");
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
                      const SuiteOptions& suite) {
  ParseState st{benchmarks, 1, {}, {}};
  auto table = option_table(suite, st);
  // Each default under current IMB's rules, and IMB 3.1's where it differs.
  for (auto& spec : table)
    if (spec.shown_default)
      spec.shown_default = [shown = spec.shown_default, &suite](const Options& current) {
        const std::string now = shown(current), then = shown(suite.imb31);
        return now == then ? now : now + "; -imb_rules 3.1: " + then;
      };
  std::string names;
  for (std::size_t i = 0; i < benchmarks.size(); ++i)
    names += (i % 6 == 0 ? "\n      " : ", ") + benchmarks[i];
  return "\nCalling sequence (command line will be repeated in Output table!):\n\n" + program +
         "  [-h{elp}]\n" + cli::option_table_synopsis(table, "          ") +
         cli::output_options_synopsis("          ") +
         cli::option_table_synopsis(cli::method_option_table(), "          ") +
         "          [benchmark1 [,benchmark2 [,...]]]\n\nwhere\n" +
         cli::option_table_help(table, suite.current) + cli::output_options_help() +
         cli::method_options_help(suite.current.method) +
         "\nTimes are in usec (microseconds); Mbytes/sec means 10^6 bytes per second, as current "
         "IMB\n(2^20 bytes per second under -imb_rules 3.1, as IMB 3.1). A benchmark name the "
         "suite does not\nhave is reported and the others run, as current IMB (a usage error "
         "under -imb_rules 3.1).\nBenchmark names are case-insensitive:" +
         names + "\n\n";
}

}  // namespace mpiscope::imb
