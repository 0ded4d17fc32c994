// The IMB text tables (guide section 6), column for column: 13-character columns, times in usec,
// throughput in Mbytes/sec: 2^20 bytes per second as IMB 3.1 defines it, or 10^6 as current IMB
// prints it (the result model keeps 2^20; the header says which the table shows).
#include "output/imb_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/control_variables.hpp"
#include "core/curve_model.hpp"
#include "core/overlap.hpp"
#include "core/provenance.hpp"
#include "core/text.hpp"

namespace mpiscope::output {

namespace {
constexpr int kColumn = 13;

std::string dashes(int columns) {
  std::string line(static_cast<std::size_t>(columns * kColumn), '-');
  line[0] = '#';
  return line;
}

std::string ranks_line(const std::vector<int>& ranks, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t i = from; i < to && i < ranks.size(); ++i) s += fmt::format(" {:4d}", ranks[i]);
  return s;
}

bool show_time_range(const core::BenchmarkRun& b) {
  // Single transfers show one time, except under -multi 0 (IMB's OUT_TIME_RANGE_AND_BW).
  return b.family != "single_transfer" || (b.multi && b.multi_outflag == 0);
}

bool per_group_rows(const core::BenchmarkRun& b) {
  return b.multi && b.multi_outflag == 1;
}

std::vector<std::string> headings(const core::BenchmarkRun& b) {
  std::vector<std::string> h;
  if (per_group_rows(b)) h.push_back("Group");
  if (b.sized) h.push_back("#bytes");
  h.push_back("#repetitions");
  if (b.accurate && !b.overlap) {  // --method accurate: statistics over repetitions
    h.insert(h.end(), {"#invalid", "t_med[usec]", "ci95_lo", "ci95_hi", "t_min[usec]"});
    if (b.has_throughput) h.push_back("Mbytes/sec");
    if (b.message_rate) h.push_back("Msg/sec");
    if (b.check && b.sized) h.push_back("defects");
    return h;
  }
  if (b.overlap && b.pure_and_ovrl_only) {  // IMB-RMA's Truly_passive_put
    h.insert(h.end(), {"t_pure[usec]", "t_ovrl[usec]"});
    if (b.check && b.sized) h.push_back("defects");
    return h;
  }
  if (b.overlap) {  // IMB 3.2.4 non-blocking I/O, IMB-NBC
    h.insert(h.end(), {"t_ovrl[usec]", "t_pure[usec]", "t_CPU[usec]", "overlap[%]"});
    if (b.check && b.sized) h.push_back("defects");
    return h;
  }
  if (b.message_rate) {
    // Current IMB's Uniband and Biband (OUT_BW_AND_MSG_RATE): no time column.
    h.insert(h.end(), {"Mbytes/sec", "Msg/sec"});
  } else if (show_time_range(b)) {
    h.insert(h.end(), {"t_min[usec]", "t_max[usec]", "t_avg[usec]"});
  } else {
    h.push_back("t[usec]");
  }
  if (b.has_throughput && !b.message_rate) h.push_back("Mbytes/sec");
  if (b.check && b.sized) h.push_back("defects");
  return h;
}
}  // namespace

ImbTextReporter::ImbTextReporter(std::FILE* out, std::string part_title, ImbTextStyle style)
    : out_(out), part_(std::move(part_title)), style_(std::move(style)) {}

std::string ImbTextReporter::shown(const std::string& name) const {
  if (!style_.current_io_text) return name;
  static const std::regex io(R"(^((?:Multi-)?[SPC]_I?(?:Write|Read)_)(indv|expl|shared|priv)$)");
  std::smatch m;
  if (!std::regex_match(name, m, io)) return name;
  std::string end = m[2].str();
  end[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(end[0])));
  return m[1].str() + end;
}

void ImbTextReporter::run_started(const core::RunInfo& info) {
  const std::string line = dashes(4);
  fmt::print(out_, "{}\n#    mpiscope {}, IMB {} compatible tables ({} part)    \n{}\n", line,
             info.mpiscope_version, style_.imb_version, part_, line);
  fmt::print(out_, "# Date                  : {}\n", info.date);
  fmt::print(out_, "# Machine               : {}\n", info.machine);
  fmt::print(out_, "# System                : {}\n", info.system);
  fmt::print(out_, "# Release               : {}\n", info.release);
  fmt::print(out_, "# Version               : {}\n", info.version);
  fmt::print(out_, "# MPI Version           : {}\n", info.mpi_version);
  fmt::print(out_, "# MPI Thread Environment: {}\n", info.thread_level);
  fmt::print(out_, "# MPI Library           : {}\n",
             info.mpi_library.substr(0, info.mpi_library.find('\n')));
  std::string hosts;
  for (const auto& [host, ranks] : info.ranks_per_host)
    hosts += fmt::format("{}{} ({} ranks)", hosts.empty() ? "" : ", ", host, ranks);
  fmt::print(out_, "# Hosts                 : {}\n", hosts);
  fmt::print(out_, "\n\n# Calling sequence was: \n\n#");
  const auto& argv = info.command_line;
  // IMB's wrapping: a line break after every sixth word, keeping an option with its value.
  for (std::size_t i = 0; i < argv.size(); ++i) {
    fmt::print(out_, " {}", argv[i]);
    if (i == 0 || i % 6 != 0) continue;
    if (argv[i][0] == '-' && i + 1 < argv.size()) fmt::print(out_, " {}", argv[++i]);
    if (i + 1 < argv.size()) fmt::print(out_, "\n#{}", std::string(argv[0].size() + 1, ' '));
  }
  fmt::print(out_, "\n\n");
  const char* lengths = style_.io_header ? "IO lengths" : "Message lengths";
  const char* length = style_.io_header ? "io portion" : "message length";
  if (info.user_lengths) {
    fmt::print(out_, "# {} were user defined\n", lengths);
  } else {
    fmt::print(out_, "# Minimum {} in bytes:   {}\n", length, info.min_length);
    fmt::print(out_, "# Maximum {} in bytes:   {}\n", length, info.max_length);
  }
  fmt::print(out_, "#\n");
  if (!style_.io_header) {
    // IMB-MPI1's -data_type and -red_data_type, as current IMB prints them.
    const auto setting = [&](const char* name, const char* otherwise) {
      const auto it = info.settings.find(name);
      return it == info.settings.end() ? std::string(otherwise) : it->second;
    };
    fmt::print(out_, "# MPI_Datatype                   :   {} \n", setting("datatype", "MPI_BYTE"));
    fmt::print(out_, "# MPI_Datatype for reductions    :   {}\n",
               setting("reduction_datatype", "MPI_FLOAT"));
    fmt::print(out_, "# MPI_Op                         :   MPI_SUM  \n");
  }
  fmt::print(out_, "#\n");
  fmt::print(out_, "# Units: t[usec] in microseconds; Mbytes/sec = {}\n",
             style_.decimal_megabytes ? "10^6 bytes per second (current IMB)"
                                      : "2^20 bytes per second (IMB 3.1)");
  if (info.settings.count("imb_rules_text"))
    fmt::print(out_, "# Rules: {}\n", info.settings.at("imb_rules_text"));
  // Which warm-up rule ran, what -off_cache rotates through (IMB front ends), the heap policy.
  for (const auto& [key, label] : {std::pair{"warm_up_rule", "Warm-up"},
                                   {"collectives_rule", "Collectives"},
                                   {"repetitions_rule", "Repetitions"},
                                   {"off_cache_rule", "Off-cache"},
                                   {"heap", "Heap"}})
    if (info.settings.count(key)) fmt::print(out_, "# {}: {}\n", label, info.settings.at(key));
  // What configured MPI and where the ranks ran (core/provenance.hpp), one line each.
  if (const auto env = core::environment_line(info.settings); !env.empty()) {
    fmt::print(out_, "# MPI environment: {}\n", env);
    fmt::print(out_, "# CPU binding: {}\n", info.settings.at(core::kCpuBindingSetting));
    if (const auto it = info.settings.find(core::kChangedControlVariablesSetting);
        it != info.settings.end())
      fmt::print(out_, "# MPI control variables changed: {}\n", it->second);
  }
  if (info.settings.count("method") && info.settings.at("method") == "accurate") {
    fmt::print(out_, "# Method: {}\n", info.settings.at("method_description"));
    fmt::print(out_,
               "#   t_med = median over the valid repetitions; ci95_lo..ci95_hi = its 95% "
               "confidence interval;\n#   #repetitions = valid ones, #invalid = started late or "
               "overran their window; Mbytes/sec from t_med\n");
    fmt::print(
        out_, "# Timer: MPI_Wtime, resolution {} s measured (MPI_Wtick {}), {} s per call\n",
        info.settings.count("timer_resolution_s") ? info.settings.at("timer_resolution_s") : "?",
        info.settings.count("timer_wtick_s") ? info.settings.at("timer_wtick_s") : "?",
        info.settings.count("timer_cost_s") ? info.settings.at("timer_cost_s") : "?");
    fmt::print(out_, "#\n");
  }
  fmt::print(out_, "#\n");
  fmt::print(out_, "\n# List of Benchmarks to run:\n\n");
  for (const auto& name : info.benchmarks)
    fmt::print(out_, "# {}{}\n", info.multi ? "(Multi-)" : "", shown(name));
  // Current IMB reports a name it does not know, in lower case, and runs the others.
  if (const auto it = info.settings.find("unknown_benchmarks"); it != info.settings.end()) {
    std::istringstream names(it->second);
    for (std::string name; names >> name;)
      fmt::print(out_, "Invalid benchmark name {}\n", core::to_lower(name));
  }
  std::fflush(out_);
}

void ImbTextReporter::benchmark_started(const core::BenchmarkRun& b) {
  const auto h = headings(b);
  const int ncols = static_cast<int>(h.size());
  fmt::print(out_, "\n{}\n# Benchmarking {} ", dashes(ncols), shown(b.name));
  if (b.groups.size() > 1) {
    fmt::print(out_, "\n# ( {} groups of {} processes each running simultaneous ) \n",
               b.groups.size(), b.nprocs);
    for (std::size_t g = 0; g < b.groups.size(); ++g)
      fmt::print(out_, "# Group  {}: {}\n# \n", g, ranks_line(b.groups[g], 0, b.groups[g].size()));
  } else if (!b.map_order.empty() && b.map_rows > 1 && b.map_cols > 1) {
    fmt::print(out_, "\n# #processes = {}; rank order (rowwise): \n", b.nprocs);
    const auto& active = b.groups[0];
    const auto row = static_cast<std::size_t>(b.map_cols);
    for (std::size_t from = 0; from < active.size(); from += row)
      fmt::print(out_, "# {}\n# \n", ranks_line(active, from, from + row));
  } else {
    fmt::print(out_, "\n# #processes = {} \n", b.nprocs);
  }
  if (b.inactive > 0)
    fmt::print(out_, "# ( {} additional process{} waiting in MPI_Barrier)\n", b.inactive,
               b.inactive == 1 ? "" : "es");
  fmt::print(out_, "{}\n", dashes(ncols));
  // IMB-EXT and IMB-IO writes: one table per mode; current IMB's IMB-IO names its reads' one.
  const bool io_read = style_.current_io_text && b.name != "Open_Close" && shown(b.name) != b.name;
  if (!b.mode.empty() || io_read) {
    std::string mode = b.mode.empty() ? "aggregate" : b.mode;
    for (auto& ch : mode) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    fmt::print(out_, "#\n#    MODE: {} \n#\n", mode);
  }
  for (const auto& col : h) fmt::print(out_, "{:>13}", col);
  fmt::print(out_, "\n");
  std::fflush(out_);
}

void ImbTextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (!m.measured) {
    // IMB prints the length followed by the reason (e.g. its "out-of-mem." rows).
    if (b.sized) fmt::print(out_, "{:13d}", m.bytes);
    fmt::print(out_, " {}\n", m.note);
    std::fflush(out_);
    return;
  }
  std::vector<std::string> doubtful_overlaps;  // notes printed under the row
  auto print_row = [&](int group, const core::GroupTimes& t) {
    if (group >= 0) fmt::print(out_, "{:13d}", group);
    if (b.sized) fmt::print(out_, "{:13d}", m.bytes);
    fmt::print(out_, "{:13d}", m.repetitions);
    if (m.overlap) {
      // The overlap of this row's t_ovrl (a group's under -multi 1), clamped as Intel prints it.
      const auto& o = *m.overlap;
      const double t_ovrl = m.accurate ? m.headline_us() : t.t_max_us;
      if (b.pure_and_ovrl_only) {
        fmt::print(out_, "{:13.2f}{:13.2f}", o.t_pure_us, t_ovrl);
        if (m.defects && b.sized) fmt::print(out_, "{:13.2f}", *m.defects);
        fmt::print(out_, "\n");
        return;
      }
      const auto f = core::overlap_figure(o.t_pure_us, o.t_cpu_us, t_ovrl, o.error_us, o.base);
      fmt::print(out_, "{:13.2f}{:13.2f}{:13.2f}{:13.2f}", t_ovrl, o.t_pure_us, o.t_cpu_us,
                 f.percent);
      if (m.defects && b.sized) fmt::print(out_, "{:13.2f}", *m.defects);
      fmt::print(out_, "\n");
      if (f.doubtful)
        doubtful_overlaps.push_back(fmt::format(
            "# overlap doubtful{}: raw {:.2f} % lies outside 0-100 % by more than its plausible "
            "error of {:.2f} % (CPU_Exploit calls varied by {:.1f} % at this point)",
            group >= 0 ? fmt::format(" in group {}", group) : "", f.raw_percent, f.error_percent,
            100 * o.cpu_spread));
      return;
    }
    if (m.accurate) {
      const auto& a = *m.accurate;
      const auto& ci = a.summary_us.median_ci;
      fmt::print(out_, "{:13d}{:13.2f}{:13.2f}{:13.2f}{:13.2f}", a.attempted - a.valid,
                 a.summary_us.median, ci.lower, ci.upper, a.summary_us.min);
    } else if (show_time_range(b) && !b.message_rate) {
      fmt::print(out_, "{:13.2f}{:13.2f}{:13.2f}", t.t_min_us, t.t_max_us, t.t_avg_us);
    } else if (!b.message_rate) {
      fmt::print(out_, "{:13.2f}", t.t_max_us);
    }
    if (b.has_throughput)
      fmt::print(out_, "{:13.2f}",
                 t.mbytes_per_sec.value_or(0) * (style_.decimal_megabytes ? 1.048576 : 1.0));
    if (b.message_rate) {
      const auto* rate = m.value("message_rate");
      fmt::print(out_, "{:13.0f}", rate ? rate->value : 0.0);
    }
    if (m.defects && b.sized) fmt::print(out_, "{:13.2f}", *m.defects);
    fmt::print(out_, "\n");
  };
  if (per_group_rows(b)) {
    fmt::print(out_, "\n");
    for (std::size_t g = 0; g < m.groups.size(); ++g) print_row(static_cast<int>(g), m.groups[g]);
  } else {
    print_row(-1, {m.t_min_us, m.t_max_us, m.t_avg_us, m.mbytes_per_sec});
  }
  for (const auto& text : doubtful_overlaps) fmt::print(out_, "{}\n", text);
  if (!m.note.empty()) fmt::print(out_, "# {}\n", m.note);  // a warning about a measured row
  std::fflush(out_);
}

void ImbTextReporter::note(const std::string& text) {
  fmt::print(out_, "\n{}\n\n", text);
  std::fflush(out_);
}

void ImbTextReporter::run_finished(const core::RunInfo& info, bool ok) {
  if (info.settings.count("check") && info.settings.at("check") == "1") {
    const auto failed = failed_benchmarks_.size();
    if (failed == 0) {
      fmt::print(out_, "\n\n!!!!  ALL BENCHMARKS SUCCESSFUL !!!! \n");
    } else {
      fmt::print(out_, "\n\n!!!!  {}  BENCHMARK{} FAILED     !!!! \n", failed,
                 failed == 1 ? "" : "S");
      for (const auto& name : failed_benchmarks_) fmt::print(out_, "{}    : FAILED !! \n", name);
    }
  }
  if (!ok) fmt::print(out_, "\n# Some measurements could not run: see the rows above.\n");
  if (!model_lines_.empty()) {
    // After every table, in comment lines: IMB's own tables and their order stay as Intel's.
    fmt::print(out_,
               "\n#----------------------------------------------------------------\n"
               "# {}\n"
               "#----------------------------------------------------------------\n",
               core::kModelHeading);
    for (const auto& line : model_lines_) fmt::print(out_, "# {}\n", line);
  }
  fmt::print(out_, "\n\n# All processes entering MPI_Finalize\n\n");
  std::fflush(out_);
}

void ImbTextReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (b.model)
    for (auto& line : core::model_lines(*b.model, b)) model_lines_.push_back(std::move(line));
  for (const auto& m : b.rows)
    if (m.defects && *m.defects > 0) {
      // Counted per benchmark, as IMB does, whatever the number of its tables.
      failed_benchmarks_.insert(shown(b.name.rfind("Multi-", 0) == 0 ? b.name.substr(6) : b.name));
      fmt::print(out_, "\n\n!!! Benchmark unsuccessful !!!\n\n");
      return;
    }
}

}  // namespace mpiscope::output
