#include "suites/osu/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

#include "cli/numbers.hpp"
#include "core/input_file.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"

namespace mpiscope::osu {
namespace {

// `s` as a whole int (std::stoi's reading, all of it used), or nothing.
std::optional<int> whole_number(const std::string& s) {
  std::size_t used = 0;
  try {
    const int v = std::stoi(s, &used);
    if (!s.empty() && used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// OSU's -m: "max", "min:max", "min:" or ":max"; a minimum of at least 1, a maximum of at
// least 0. Anything else is OSU's "Invalid Message Size".
void set_sizes(Options& o, const std::string& text) {
  auto number = [&](const std::string& s) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty())
      throw std::invalid_argument("Invalid Message Size [-m " + text + "]");
    return v;
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) {
    if (colon != std::string::npos)
      throw std::invalid_argument("Invalid Message Size [-m " + text + "]");
    o.max_size = number(text);
  } else {
    const std::string low = text.substr(0, colon), high = text.substr(colon + 1);
    if (low.empty() && high.empty())
      throw std::invalid_argument("Invalid Message Size [-m " + text + "]");
    if (!low.empty()) o.min_size = number(low);
    if (!high.empty()) o.max_size = number(high);
    if (!low.empty() && o.min_size < 1)
      throw std::invalid_argument("Invalid Message Size [-m " + text + "]");
  }
  if (o.max_size < 0) throw std::invalid_argument("Invalid Message Size [-m " + text + "]");
}

// The program's defaults (osu_util.c process_options, osu_util.h).
void set_defaults(Options& o, const Program& p) {
  o.min_size = p.name == "osu_latency" || p.name == "osu_latency_persistent" ||
                       p.name == "osu_latency_mt" || p.name == "osu_latency_mp" ||
                       p.name == "osu_multi_lat" || p.name == "osu_partitioned_latency"
                   ? 0
                   : 1;
  o.max_size = is_collective(p.figure) ? 1 << 20 : 1 << 22;
  switch (p.figure) {
    case Figure::kBandwidth:
    case Figure::kRate:
    case Figure::kOneSidedBandwidth:
      o.iterations = 100, o.skip = 10, o.iterations_large = 20, o.skip_large = 2;
      break;
    case Figure::kLatency:
    case Figure::kOneSided:
      o.iterations = 10000, o.skip = 100, o.iterations_large = 1000, o.skip_large = 10;
      break;
    case Figure::kCollective:
    case Figure::kOverlap:
      o.iterations = 1000, o.skip = 100, o.iterations_large = 100, o.skip_large = 10;
      break;
    case Figure::kStartup:
      break;
  }
  o.window_creation = p.default_window;
  o.synchronization = p.default_sync;
}

// The value of `word` in `words`, case-insensitively as OSU's strcasecmp; nullptr if none.
template <typename T>
const T* find_word(const std::vector<std::pair<std::string, T>>& words, const std::string& word) {
  for (const auto& [name, value] : words)
    if (core::to_lower(word) == name) return &value;
  return nullptr;
}

// -w and -s: OSU's words; osu_put_bibw takes only the active-target ones.
void set_one_sided(Options& o, const Program& p, const std::string& window,
                   const std::string& sync) {
  if (!window.empty()) {
    if (!find_word(window_creation_words(), window))
      throw std::invalid_argument("Invalid option or invalid argument [-w " + window + "]");
    o.window_creation = core::to_lower(window);
  }
  if (!sync.empty()) {
    const Sync* s = find_word(sync_words(), sync);
    if (!s || (p.active_target_only && *s != Sync::Fence && *s != Sync::Pscw))
      throw std::invalid_argument("Invalid option or invalid argument [-s " + sync + "]");
    if (p.multi_pair_one_sided && *s != Sync::Flush)
      throw std::invalid_argument("Invalid option or invalid argument [-s " + sync +
                                  "]: " + p.name +
                                  " (a fork of OSU 7.4's, not OSU's) runs every pair in -s flush "
                                  "only; its other modes ran rank 0 and 1 alone");
    o.synchronization = core::to_lower(sync);
  }
}

// check_mem_limit: collectives whose buffers grow with the process count get their largest
// message cut to -M / nprocs, the others to -M, with OSU's warning.
void apply_mem_limit(Options& o, const Program& p, int world_size) {
  if (!is_collective(p.figure)) return;
  const long long scale = p.per_process_buffers ? world_size : 1;
  if (o.max_size * scale <= o.mem_limit) return;
  o.max_size = o.mem_limit / scale;
  o.warnings.push_back(fmt::format(
      "Warning! Limiting max message size to: {}. Increase -M, --mem-limit for higher message "
      "sizes.",
      o.max_size));
}

// -v: OSU's version line instead of the run.
cli::ParseResult with_version(cli::ParseResult result, bool version, const Program& p) {
  if (result.kind == cli::ParseResult::kRun && version)
    return {cli::ParseResult::kHelp,
            "# " + p.title + " v" + p.version + " (mpiscope " + core::mpiscope_version() + ")\n"};
  return result;
}

// -k: "fixed:N" (0 <= N < P) or "rotate", case-insensitively, with OSU's messages.
void set_root(Options& o, const std::string& text, int world_size) {
  const auto word = core::to_lower(text);
  if (word.rfind("rotate", 0) == 0) {
    o.root_rotates = true;
    return;
  }
  if (word.rfind("fixed", 0) != 0)
    throw std::invalid_argument("Invalid root rank rotate type. Valid types[fixed, rotate] [-k " +
                                text + "]");
  const auto colon = word.find(':');
  const std::string number = colon == std::string::npos ? "" : word.substr(colon + 1);
  const int root = whole_number(number).value_or(-1);
  if (root < 0)
    throw std::invalid_argument("Please pass root node rank. E.g: -k fixed:1 [-k " + text + "]");
  if (root >= world_size)
    throw std::invalid_argument(
        fmt::format("Root rank('-k') cannot be more than number of processes [-k {}: {} processes]",
                    text, world_size));
  o.root = root;
}

// -t's "[S:]R" for osu_latency_mt (threads, OSU's set_threads) and osu_latency_mp (forked
// children, set_processes): each count 1 to below `limit`; R alone gives S = `sender_alone`.
// `what` names the count in OSU's message ("Threads", "Processes").
std::pair<int, int> sender_and_receiver(const std::string& text, int limit, int sender_alone,
                                        const char* what) {
  const auto number = [&](const std::string& s) {
    const int v = whole_number(s).value_or(0);
    if (v < 1 || v >= limit)
      throw std::invalid_argument(
          fmt::format("Invalid Number of {} [-t {}]: [S:]R, each 1 to {}", what, text, limit - 1));
    return v;
  };
  const auto parts = core::split(text, ':');
  if (parts.empty() || parts.size() > 2) number("");  // throws: no count, or a second colon
  return {parts.size() == 2 ? number(parts[0]) : sender_alone, number(parts.back())};
}

namespace {
// One line of an indx file (already trimmed): a block, or nothing for a blank or '#' line.
void add_indexed_block(std::vector<std::array<int, 2>>& blocks, const std::string& path,
                       std::size_t number, const std::string& text) {
  if (text.empty() || text[0] == '#') return;
  const auto parts = core::split(text, ',');
  std::array<int, 2> block{-1, 0};
  bool ok = parts.size() == 2;
  for (std::size_t k = 0; ok && k < 2; ++k) {
    const auto v = whole_number(core::trim(parts[k]));
    ok = v.has_value();
    block[k] = v.value_or(-1);
  }
  if (!ok || block[0] < 0 || block[1] < 1 || block[0] > INT_MAX - block[1])
    throw std::invalid_argument(fmt::format(
        "-D indx:{} line {}: '{}' is not 'displacement, block length' (elements, displacement "
        "0 or more, length 1 or more)",
        core::printable(path), number, core::printable(text)));
  blocks.push_back(block);
}
}  // namespace

// -D's indx file: OSU's lines "displacement, block length" in elements, '#' lines comments. Every
// line is a block (OSU 7.4 passes one block fewer to MPI_Type_indexed than it reads and counts
// in its Transmit Size); blocks must not overlap, as a receive type's may not.
// The file is read as every option file is (core::InputFile: a regular file of text, bounded), so
// that a FIFO or /dev/zero is refused rather than read forever while the other ranks wait.
std::vector<std::array<int, 2>> read_indexed_blocks(const std::string& path) {
  std::vector<std::array<int, 2>> blocks;
  try {
    core::InputFile in(path, "an -D indx file (displacement, block length lines)",
                       core::kOptionFileLimits);
    for (std::string line; in.next_line(line);)
      add_indexed_block(blocks, path, in.line_number(), core::trim(line));
  } catch (const core::InputError& e) {
    throw std::invalid_argument(std::string("-D indx: ") + e.what());
  }
  if (blocks.empty())
    throw std::invalid_argument("-D indx:" + core::printable(path) +
                                ": no 'displacement, block length' line");
  auto sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k][0] < sorted[k - 1][0] + sorted[k - 1][1])
      throw std::invalid_argument(
          fmt::format("-D indx:{}: the blocks at {} and {} overlap (a received type's blocks may "
                      "not)",
                      core::printable(path), sorted[k - 1][0], sorted[k][0]));
  return blocks;
}

// -D: cont, vect[:STRIDE:BLOCK] or indx:FILE, case-insensitively as OSU's strncasecmp.
void set_derived_datatype(Options& o, const std::string& text) {
  const auto parts = core::split(text, ':');
  const auto kind = core::to_lower(parts.empty() ? "" : parts[0]);
  const auto count = [&](const std::string& word, const char* what) {
    const int v = whole_number(word).value_or(0);
    if (v < 1)
      throw std::invalid_argument(
          fmt::format("-D {}: the {} must be a count of 1 or more", text, what));
    return v;
  };
  if (kind == "cont" && parts.size() == 1) {
    o.ddt = "cont";
  } else if (kind == "vect" && (parts.size() == 1 || parts.size() == 3)) {
    o.ddt = "vect";
    if (parts.size() == 3) {
      o.ddt_stride = count(parts[1], "stride");
      o.ddt_block = count(parts[2], "block length");
    }
    if (o.ddt_block > o.ddt_stride)
      throw std::invalid_argument(fmt::format(
          "-D {}: the block length {} exceeds the stride {}, so that the received vector's "
          "blocks would overlap",
          text, o.ddt_block, o.ddt_stride));
  } else if (kind == "indx" && parts.size() >= 2) {
    o.ddt = "indx";
    o.ddt_file = text.substr(text.find(':') + 1);
    o.ddt_blocks = read_indexed_blocks(o.ddt_file);
  } else {
    throw std::invalid_argument("Invalid ddt type [-D " + text +
                                "]: cont, vect[:STRIDE:BLOCK] (elements; default 8:4) or "
                                "indx:FILE");
  }
}

// OSU 7.4's options that mpiscope does not offer, each refused with why and what instead (rather
// than CLI11's "unexpected argument"); hidden from the help.
struct Refused {
  const char* names;
  const char* why;
  bool takes_value = true;
};
const std::vector<Refused>& refused_options() {
  static const std::vector<Refused> list = {
      {"-G,--graph",
       "-G draws OSU's gnuplot graphs; mpiscope records the run (--db) and draws its curves with "
       "'mpiscope report'"},
      {"-P,--papi", "-P needs OSU built with PAPI: mpiscope reads no hardware counters"},
      {"-d,--accelerator",
       "-d (accelerator buffers) is not in mpiscope: its buffers are in host memory, as OSU's "
       "CPU build, which refuses -d too"},
      {"-a,--array-size", "-a (the accelerator's array size) is not in mpiscope: no accelerator"},
  };
  return list;
}

}  // namespace

bool takes_derived_datatype(const Program& p) {
  return p.sized && !is_one_sided(p.figure) && p.name.find("reduce") == std::string::npos;
}

core::Neighbourhood neighbourhood_of(const Options& o) {
  core::Neighbourhood n;
  n.text = o.neighbourhood;
  if (o.neighbourhood.rfind("graph", 0) == 0) {
    n.kind = core::Neighbourhood::Kind::Graph;
    for (const auto& [source, destination] : o.neighbourhood_edges)
      n.edges.emplace_back(source, destination);
    return n;
  }
  n = core::parse_neighbourhood(o.neighbourhood);  // cart:D:R, checked at parsing
  return n;
}

core::ElementLayout element_layout_of(const Options& o) {
  core::ElementLayout l;
  if (o.ddt == "cont") l.kind = core::LayoutKind::Contiguous;
  if (o.ddt == "vect") {
    l.kind = core::LayoutKind::Vector;
    l.stride = o.ddt_stride;
    l.block_length = o.ddt_block;
  }
  if (o.ddt == "indx") {
    l.kind = core::LayoutKind::Indexed;
    for (const auto& [displacement, length] : o.ddt_blocks)
      l.blocks.push_back({.displacement = displacement, .length = length});
  }
  return l;
}

std::string derived_datatype_text(const Options& o) {
  if (o.ddt == "vect") return fmt::format("vect:{}:{}", o.ddt_stride, o.ddt_block);
  if (o.ddt == "indx") return fmt::format("indx:{} ({} blocks)", o.ddt_file, o.ddt_blocks.size());
  return o.ddt;
}

bool takes_root(const std::string& program) {
  for (const char* name :
       {"osu_gather", "osu_gatherv", "osu_scatter", "osu_scatterv", "osu_reduce", "osu_igather",
        "osu_igatherv", "osu_iscatter", "osu_iscatterv", "osu_ireduce"})
    if (program == name) return true;
  return false;
}

WindowCreation window_creation_of(const Options& o) {
  const auto* w = find_word(window_creation_words(), o.window_creation);
  return w ? *w : WindowCreation::Allocate;
}

Sync sync_of(const Options& o) {
  const auto* s = find_word(sync_words(), o.synchronization);
  return s ? *s : Sync::Flush;
}

cli::ParseResult parse(const std::vector<std::string>& args, int world_size,
                       const std::string& shown) {
  const Program* p = args.empty() ? nullptr : find_program(args[0]);
  if (!p) {
    std::string names;
    for (const auto& q : programs()) names += (names.empty() ? "" : ", ") + q.name;
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help"))
      return {cli::ParseResult::kHelp, "Usage: " + shown + " NAME [options]\nNAME: " + names +
                                           "\nRun '" + shown + " NAME -h' for its options.\n"};
    return {cli::ParseResult::kError, (args.empty() ? std::string("name an OSU benchmark")
                                                    : "unknown OSU benchmark '" + args[0] + "'") +
                                          " (" + names + ")"};
  }
  Options o;
  o.program = p->name;
  set_defaults(o, *p);
  if (p->figure == Figure::kStartup) {  // OSU's startup option string: nothing but help
    bool version = false, session = false;
    CLI::App app(p->title + " (OSU micro-benchmarks 7.4 on mpiscope)", p->name);
    app.set_help_flag("-h,--help", "print this help");
    app.add_flag("-v,--version", version, "print the version");
    app.add_flag("-I,--session", session)->group("");
    if (p->name == "osu_init") cli::add_output_options(app, o.output);  // its times are results
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    auto result = cli::parse_command_line(app, rest, [&] {
      if (session)
        throw std::invalid_argument(
            "-I: " + p->name +
            " would time a cold start of MPI by a session; mpiscope's processes start MPI with "
            "MPI_Init_thread before they read their options, so it cannot (the other programs "
            "take -I)");
      o.output.validate();
      return nlohmann::json(o).dump();
    });
    return with_version(std::move(result), version, *p);
  }
  const bool windowed = p->figure == Figure::kBandwidth || p->figure == Figure::kRate ||
                        p->figure == Figure::kOneSidedBandwidth;
  const bool one_sided = is_one_sided(p->figure);
  std::string window_word, sync_word;
  std::string sizes;
  int iterations = 0, skip = -1;
  long long mem_limit = 0;
  bool version = false;
  CLI::App app(p->title + " (OSU micro-benchmarks 7.4 on mpiscope's engine)", p->name);
  app.set_help_flag("-h,--help", "print this help");
  app.add_flag("-v,--version", version, "print the version");
  if (p->sized)
    app.add_option(
        "-m,--message-size", sizes,
        fmt::format("[min:]max message sizes in bytes (default {}:{})", o.min_size, o.max_size));
  app.add_option("-i,--iterations", iterations, "timed iterations at every size")
      ->check(cli::integer_of<int>());
  app.add_option("-x,--warmup", skip, "untimed warm-up iterations at every size")
      ->check(cli::integer_of<int>());
  if (windowed)
    app.add_option("-W,--window-size", o.window, "messages in flight per iteration (default 64)")
        ->check(cli::integer_of<int>());
  if (one_sided) {
    std::string words;
    for (const auto& [word, sync] : sync_words())
      if (!p->active_target_only || sync == Sync::Fence || sync == Sync::Pscw)
        words += (words.empty() ? "" : ", ") + word;
    app.add_option("-w,--win-option", window_word,
                   "window creation: create, allocate or dynamic (default allocate)");
    app.add_option("-s,--sync-option", sync_word,
                   "synchronization: " + words + " (default " + o.synchronization + ")");
  }
  int probes = 0;
  const bool threaded = p->name == "osu_latency_mt";
  const bool forking = p->name == "osu_latency_mp";
  std::string threads_text;
  if (threaded)
    app.add_option("-t,--num-threads", threads_text,
                   "[S:]R: rank 0's S sender threads (default 1) and rank 1's R receiver threads "
                   "(default 2) share each size's iterations; each 1 to 127");
  if (forking)
    app.add_option("-t,--num-processes", threads_text,
                   "[S:]R: children forked by rank 0 (S, default 2) and rank 1 (R, default 2) "
                   "before the run, each sleeping 2 s; R alone forks none on rank 0; each 1 to "
                   "127");
  if (p->figure == Figure::kOverlap)
    app.add_option("-t,--num-test-calls", probes,
                   "MPI_Test calls during the CPU work of each iteration (default 0)")
        ->check(cli::integer_of<int>());
  // OSU's option strings have -f for the collectives only (osu_util_options.h).
  if (is_collective(p->figure))
    app.add_flag("-f,--full", o.full,
                 "print min, max and the iteration count (latency figures); every phase "
                 "(overlap)");
  // osu_barrier and osu_ibarrier move no data: OSU's option strings have no -c for them, and a
  // Validation column there could only ever say Pass.
  bool validate_nothing = false, validate_fan = false;
  if (is_fan(*p))  // OSU 7.4's congestion option string has no -c
    app.add_flag("-c,--validation", validate_fan)->group("");
  else if (p->sized)
    app.add_flag("-c,--validation", o.validate, "verify the received data (Validation column)");
  else
    app.add_flag("-c,--validation", validate_nothing)->group("");
  // -b where OSU 7.4's option strings have it: the point-to-point programs.
  std::string buffers;
  const bool point_to_point = p->figure == Figure::kLatency || p->figure == Figure::kBandwidth ||
                              p->figure == Figure::kRate;
  app.add_option("-b,--buffer-num", buffers,
                 "single (default): a window's messages out of and into one buffer each; "
                 "multiple: X bytes of their own for every message (osu_bw, osu_bibw, their "
                 "persistent forms, osu_mbw_mr; the latency programs' buffers are made per size "
                 "either way)")
      ->group(point_to_point && !threaded && !forking ? "Options" : "");
  // -l where OSU 7.4's option string has it: the gathers, scatters, all-to-alls and reductions.
  bool in_place_elsewhere = false;
  if (has_in_place_form(p->name))
    app.add_flag("-l,--in-place", o.in_place,
                 "call the collective in place: MPI_IN_PLACE where OSU 7.4 passes it (every "
                 "rank's send buffer; a rooted call's at the root)");
  else if (p->sized)
    app.add_flag("-l,--in-place", in_place_elsewhere)->group("");
  // OSU 7.4's -T, where its option string has it: every program but the one-sided ones. Given
  // more than once, each adds its type's table (OSU appends them too); all: char, int, float.
  std::vector<std::string> type_words;
  // OSU 7.4's -z[P,P,...] (optional argument): percentiles of the iterations' figures.
  std::string tail;
  const bool tail_offered =
      !one_sided && (p->sized || p->figure == Figure::kCollective || p->figure == Figure::kOverlap);
  if (tail_offered)
    app.add_option("-z,--tail-lat", tail,
                   "[P,P,...] also print the P-th percentiles of the iterations' latency or "
                   "bandwidth (default 50,90,99; at most 5, each 1 to 100): osu_latency, osu_bw, "
                   "osu_bibw and their persistent forms from rank 0's iterations; the blocking "
                   "collectives from each iteration's mean over the ranks")
        ->expected(0, 1);
  if (!one_sided && p->sized)
    app.add_option("-T,--type", type_words,
                   "mpi_char, mpi_int, mpi_float or all: the datatype moved or reduced, a table "
                   "each (default mpi_char; sizes of no whole element are left out)");
  app.add_option("-M,--mem-limit", mem_limit,
                 "memory per process in bytes, caps the largest collective message "
                 "(default 536870912)")
      ->check(cli::integer_of<long long>());
  std::string ddt_text;
  if (takes_derived_datatype(*p))
    app.add_option("-D,--ddt", ddt_text,
                   "cont, vect[:STRIDE:BLOCK] or indx:FILE: each message is one derived datatype "
                   "over the X bytes (OSU 7.4's -D): contiguous; X / STRIDE blocks of BLOCK "
                   "elements, STRIDE apart (default 8:4); the file's 'displacement, block length' "
                   "lines in elements. The Transmit Size column is what the type moves, and "
                   "bandwidths count it");
  else
    app.add_option("-D,--ddt", ddt_text)->group("");
  std::string partitions_text;
  if (p->name == "osu_partitioned_latency")
    app.add_option("-q,--partitions", partitions_text,
                   "Q partitions of each message (default 8), each of n / Q elements; sizes are "
                   "whole partitions of whole elements (1 <= Q <= 65536)");
  std::string topology_text;
  if (is_neighbourhood_collective(p->name))
    app.add_option(
        "-N,--nhbrhd-type", topology_text,
        "cart:D:R (default cart:1:1): a periodic grid of D dimensions (MPI_Dims_create's "
        "shape of the processes), each process's neighbours those within R steps in "
        "every dimension; or graph:FILE, a directed graph of 'source,destination' lines "
        "('#' comments)");
  std::string root_text;
  if (takes_root(p->name))
    app.add_option("-k,--root-rank", root_text,
                   "fixed:N (the root is rank N) or rotate (iteration i's root is rank i mod P); "
                   "default fixed:0");
  int pairs = 0, print_rate = 1;
  if (p->figure == Figure::kRate) {
    app.add_option("-p,--num-pairs", pairs, "pairs that send (default P / 2)")
        ->check(cli::integer_of<int>());
    app.add_option("-R,--print-rate", print_rate,
                   "1: print the Messages/s column (default); 0: not")
        ->check(cli::integer_of<int>());
    app.add_flag("-V,--vary-window", o.vary_window,
                 "a table over windows of 1, 2, 4, ... 128 messages: MB/s (and messages/s) per "
                 "size and window, instead of -W's one window");
  }
  if (p->figure != Figure::kRate) {  // OSU's other programs have no -V
    app.add_flag("-V,--vary-window", o.vary_window)->group("");
  }
  int validation_warmup = 0;
  if (p->figure != Figure::kOneSided && p->figure != Figure::kOneSidedBandwidth)
    app.add_option("-u,--validation-warmup", validation_warmup,
                   "OSU's validation warm-up iterations (0 to 10) with -c; mpiscope checks the "
                   "data in repetitions of its own, outside the timed loop")
        ->check(cli::integer_of<int>());
  std::map<std::string, std::string> refused_values;
  for (const auto& r : refused_options()) {
    if (r.takes_value)
      app.add_option(r.names, refused_values[r.names])->group("");
    else
      app.add_flag(r.names)->group("");
  }
  app.add_flag("-I,--session", o.session,
               "measure on a communicator made from an MPI session (MPI 4.0): MPI_Session_init, "
               "the group of the process set mpi://WORLD, MPI_Comm_create_from_group; MPI itself "
               "is started with MPI_Init_thread too");
  cli::add_output_options(app, o.output);
  cli::add_method_options(app, o.method);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const auto given = [&](const char* name) {
    const auto* option = app.get_option_no_throw(name);
    return option && option->count() > 0;
  };
  auto result = cli::parse_command_line(app, rest, [&] {
    for (const auto& r : refused_options()) {
      const std::string flag(r.names, std::string_view(r.names).find(','));
      if (app.count(flag) == 0) continue;
      throw std::invalid_argument(r.why);
    }
    if (app.count("-V") > 0 && p->figure != Figure::kRate)
      throw std::invalid_argument("-V (a table over window sizes) is for osu_mbw_mr; " + p->name +
                                  " has no -V");
    if (o.vary_window) {
      if (o.validate || app.count("-z") > 0)
        throw std::invalid_argument(
            "-V prints a table of MB/s per size and window: no Validation or tail columns; run "
            "-c or -z with -W");
      if (app.count("-W") > 0)
        o.warnings.push_back("-V: the window varies from 1 to 128 messages; -W " +
                             std::to_string(o.window) + " is not used");
    }
    if (app.count("-b") > 0) {
      if (!point_to_point || threaded || forking)
        throw std::invalid_argument(
            "-b (single or multiple buffers) is for OSU 7.4's point-to-point programs whose "
            "option strings have it; " +
            p->name + " has none");
      const auto word = core::to_lower(buffers);
      if (word != "single" && word != "multiple")
        throw std::invalid_argument("Invalid buffer number [-b " + buffers +
                                    "]: single or multiple");
      o.buffer_per_message = word == "multiple";
    }
    if (threaded) {
      if (app.count("-t") > 0)  // R alone: one sender thread
        std::tie(o.sender_threads, o.receiver_threads) =
            sender_and_receiver(threads_text, kMaxThreads, 1, "Threads");
      if (o.validate && o.sender_threads != o.receiver_threads)
        throw std::invalid_argument(
            "Number of sender and receiver threads must be same when validation is enabled. Use "
            "option -t to set");
      if (o.method.accurate())
        throw std::invalid_argument(
            "--method accurate times one repetition at a time on one thread; osu_latency_mt's "
            "iterations are shared among threads");
    }
    if (forking && app.count("-t") > 0)  // R alone: rank 0 forks none, as OSU's
      std::tie(o.sender_processes, o.receiver_processes) =
          sender_and_receiver(threads_text, kMaxProcesses, 0, "Processes");
    if (!partitions_text.empty())
      o.partitions = cli::parse_integer<int>(partitions_text, "-q", 1, 65536);
    if (validate_fan)
      throw std::invalid_argument(
          "Invalid option [-c]: OSU 7.4's " + p->name +
          " has no validation (a parent's one receive buffer takes every child's messages)");
    if (validate_nothing)
      throw std::invalid_argument("Invalid option [-c]: " + p->name +
                                  " moves no data, so there is none to validate");
    if (in_place_elsewhere)
      throw std::invalid_argument(
          "-l (MPI_IN_PLACE) is for OSU 7.4's gathers, scatters, all-to-alls and reductions; " +
          p->name + " has no in-place form");
    if (given("-D")) {
      if (!takes_derived_datatype(*p))
        throw std::invalid_argument(
            "-D (derived datatypes) is for OSU 7.4's programs whose option strings have it: the "
            "point-to-point programs and the collectives that move data without reducing it; " +
            p->name + " has none");
      if (o.validate)
        throw std::invalid_argument("Derived data type does not support validation [-D " +
                                    ddt_text + " with -c]");
      set_derived_datatype(o, ddt_text);
    }
    if (o.session && !mpi::kHasSessions)
      throw std::invalid_argument(fmt::format(
          "-I (MPI sessions) needs an MPI 4.0 library; this one implements MPI {}.{} (OSU built "
          "without MPI-4 support refuses -I too)",
          MPI_VERSION, MPI_SUBVERSION));
    if (given("-k")) set_root(o, root_text, world_size);
    if (is_neighbourhood_collective(p->name)) {
      const auto n = core::parse_neighbourhood(given("-N") ? topology_text : o.neighbourhood);
      core::neighbours_of(n, world_size);  // throws where the topology does not fit
      o.neighbourhood = n.text;
      for (const auto& [source, destination] : n.edges)
        o.neighbourhood_edges.push_back({source, destination});
    }
    if (given("-p")) {
      if (pairs < 1 || pairs > world_size / 2)
        throw std::invalid_argument(
            fmt::format("Invalid number of pairs [-p {}]: 1 to {} with {} processes", pairs,
                        world_size / 2, world_size));
      o.pairs = pairs;
    }
    if (print_rate != 0 && print_rate != 1)
      throw std::invalid_argument(fmt::format("Invalid print rate [-R {}]: 0 or 1", print_rate));
    o.print_rate = print_rate == 1;
    if (given("-u")) {
      if (validation_warmup < 0 || validation_warmup > 10)
        throw std::invalid_argument(fmt::format(
            "Number of Validation Warmup Iterations must be 0 to 10 [-u {}]", validation_warmup));
      o.warnings.push_back(
          "-u: mpiscope checks the data (-c) in repetitions of its own outside the timed loop; "
          "OSU's validation warm-ups, which precede each of its checked iterations, have nothing "
          "to precede");
    }
    if (p->sized && app.count("-m") > 0)
      set_sizes(o, sizes);  // -m '' too: an error, not the defaults
    if (app.count("-i") > 0) {
      if (iterations < 1)
        throw std::invalid_argument(
            fmt::format("Invalid Number of Iterations [-i {}]", iterations));
      o.iterations = o.iterations_large = iterations;
    }
    if (app.count("-x") > 0) {
      if (skip < 0)
        throw std::invalid_argument(
            fmt::format("Invalid Number of Warmup Iterations [-x {}]", skip));
      o.skip = o.skip_large = skip;
    }
    if (p->figure == Figure::kOverlap && app.count("-t") > 0) {
      if (probes < 0)
        throw std::invalid_argument(fmt::format("Invalid Number of Probes [-t {}]", probes));
      o.probes = probes;
    }
    if (!type_words.empty()) {
      o.types.clear();
      for (const auto& w : type_words) {
        if (core::to_lower(w) == "all") {
          for (const auto& t : osu_types()) o.types.push_back(osu_type_word(t));
        } else if (const OsuType* t = find_osu_type(w)) {
          o.types.push_back(osu_type_word(*t));
        } else {
          throw std::invalid_argument("Invalid datatype [-T " + w +
                                      "]: mpi_char, mpi_int, mpi_float or all");
        }
      }
    }
    if (tail_offered && app.count("-z") > 0) {
      if (!has_tail_figures(*p))
        throw std::invalid_argument(
            "-z: mpiscope prints tail figures for osu_latency, osu_bw, osu_bibw, their "
            "persistent forms and the blocking and non-blocking collectives; not for " +
            p->name);
      if (o.method.accurate())
        throw std::invalid_argument(
            "-z with --method accurate: the accurate meter's own percentiles are in the JSON and "
            "the database");
      for (const auto& word : core::split(tail.empty() ? "50,90,99" : tail, ',')) {
        const int percent = whole_number(word).value_or(-1);
        if (percent < 1 || percent > 100)
          throw std::invalid_argument("Percentile range must be in between 1 and 100 [-z " + tail +
                                      "]");
        o.tail_percentiles.push_back(percent);
      }
      if (o.tail_percentiles.size() > 5)
        throw std::invalid_argument("-z takes at most 5 percentiles [-z " + tail + "]");
    }
    if (o.window < 1)
      throw std::invalid_argument(fmt::format("Invalid Window Size [-W {}]", o.window));
    if (app.count("-M") > 0) {
      // No memory at all is a mistake; a positive value under OSU's lowest gets OSU's warning.
      if (mem_limit < 1)
        throw std::invalid_argument(fmt::format(
            "Invalid Memory Limit [-M {}]: a number of bytes above 0 (at least {} is used)",
            mem_limit, kLowestMemLimit));
      o.mem_limit = mem_limit;
      if (mem_limit < kLowestMemLimit) {
        o.mem_limit = kLowestMemLimit;
        o.warnings.push_back(
            fmt::format("Requested memory limit too low, using [{}] instead.", kLowestMemLimit));
      }
    }
    if (o.min_size > o.max_size && p->sized)
      throw std::invalid_argument(fmt::format(
          "Invalid Message Size: the minimum {} exceeds the maximum {}", o.min_size, o.max_size));
    if (one_sided) set_one_sided(o, *p, window_word, sync_word);
    if (o.validate && one_sided)
      throw std::invalid_argument("Benchmark does not support validation");
    if (p->exactly_two && world_size != 2)
      throw std::invalid_argument("This test requires exactly two processes");
    if (!p->exactly_two && world_size < 2)
      throw std::invalid_argument("This test requires at least two processes");
    if (p->name == "osu_get_multi_lat" && world_size % 2 != 0)
      throw std::invalid_argument("This test requires an even number of processes");
    o.method.validate();
    apply_mem_limit(o, *p, world_size);
    o.output.validate();
    return nlohmann::json(o).dump();
  });
  return with_version(std::move(result), version, *p);
}

}  // namespace mpiscope::osu
