#include "db/import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <istream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/curve_model.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/osu/osu.hpp"
#include "suites/skampi/output_file.hpp"

namespace mpiscope::db {

namespace {

using core::trim;

// A file's lines, read one at a time (a file of any size is never held whole); one line can be
// given back to be read again by the next step of a parser. A file is read through
// core::InputFile (a regular file of text, lines bounded); a text in memory (tests) through a
// stream.
class LineReader {
 public:
  explicit LineReader(core::InputFile& file) : file_(&file) {}
  explicit LineReader(std::istream& in) : in_(&in) {}
  bool next(std::string& line) {
    if (has_pushed_) {
      line = std::move(pushed_);
      has_pushed_ = false;
    } else {
      if (file_ ? !file_->next_line(line) : !std::getline(*in_, line)) return false;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find('\0') != std::string::npos)
        throw ImportError("a binary file, not an IMB, OSU or SKaMPI text output");
    }
    ++number_;
    return true;
  }
  void give_back(std::string line) {
    pushed_ = std::move(line);
    has_pushed_ = true;
    --number_;
  }
  std::size_t number() const { return number_; }  // of the last line read, from 1

 private:
  core::InputFile* file_ = nullptr;
  std::istream* in_ = nullptr;
  std::string pushed_;
  bool has_pushed_ = false;
  std::size_t number_ = 0;
};

// A table longer than any benchmark prints is a damaged or crafted file: refused, so that one
// table (what an import holds in memory) stays small.
void check_table_size(const std::string& name, std::size_t rows) {
  if (rows >= kMaxRowsPerTable)
    throw ImportError("table '" + name + "' has more than " + std::to_string(kMaxRowsPerTable) +
                      " rows; no benchmark prints that many, so this is not its output");
}
void check_table_size(const core::BenchmarkRun& b) {
  check_table_size(b.name, b.rows.size());
}

// A figure no measurement can give: a time of zero or below (no operation takes no time; a
// printed 0.00 or a negative time is a broken timer or a damaged file), or a negative bandwidth.
// Empty when the row is physical.
std::string non_physical(const core::Measurement& m) {
  auto time = [](const char* name, double t) {
    return std::isfinite(t) && t <= 0 ? std::string(name) + " " + fmt::format("{:g}", t) + " us"
                                      : "";
  };
  for (const auto& [name, t] :
       {std::pair{"t_min", m.t_min_us},
        {"t_max", m.t_max_us},
        {"t_avg", m.t_avg_us},
        {"median", m.accurate ? m.accurate->summary_us.median : kNotRecorded}})
    if (auto why = time(name, t); !why.empty()) return why;
  for (const auto& g : m.groups)
    for (double t : {g.t_min_us, g.t_max_us, g.t_avg_us})
      if (auto why = time("a group's time", t); !why.empty()) return why;
  if (m.mbytes_per_sec && *m.mbytes_per_sec < 0)
    return "bandwidth " + fmt::format("{:g}", *m.mbytes_per_sec) + " MiB/s";
  return "";
}

// What every parser does with a finished table: count it, note its name and size, hand it on.
// A row with a non-physical figure is stored as not measured, as a row IMB printed without
// numbers is, so that no plot or comparison takes it for a measurement.
struct TableCollector {
  StoredRun& header;
  const TableSink& sink;
  std::size_t tables = 0, rows = 0, non_physical_rows = 0;
  void operator()(core::BenchmarkRun&& b) {
    for (auto& m : b.rows) {
      if (!m.measured) continue;
      const std::string why = non_physical(m);
      if (why.empty()) continue;
      // No times, as IMB's rows without numbers are stored; the row's axis values (SKaMPI's
      // argument and process count) stay.
      m.measured = false;
      m.t_min_us = m.t_max_us = m.t_avg_us = kNotRecorded;
      m.mbytes_per_sec.reset();
      m.groups.clear();
      m.accurate.reset();
      m.overlap.reset();
      m.note = "not measured: the file prints " + why + ", which no measurement gives";
      if (non_physical_rows++ == 0)
        header.notes.push_back(
            "rows with a time of zero or below, or a negative bandwidth, are stored as not "
            "measured (first: " +
            b.name + ", " + why + ")");
    }
    auto& names = header.info.benchmarks;
    if (names.size() >= kMaxBenchmarkNames)
      throw ImportError("more than " + std::to_string(kMaxBenchmarkNames) +
                        " benchmark names; no benchmark output has that many");
    if (std::find(names.begin(), names.end(), b.name) == names.end()) names.push_back(b.name);
    const int groups = std::max<int>(1, static_cast<int>(b.groups.size()));
    header.info.world_size = std::max(header.info.world_size, b.nprocs * groups + b.inactive);
    // A point-to-point curve gets its model as a live run's does (core/curve_model.hpp).
    if (!b.model) b.model = core::model_of(b);
    ++tables;
    rows += b.rows.size();
    sink(std::move(b));
  }
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

bool to_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno == 0 && std::isfinite(out);
}

// "# Key   : value" of IMB's header.
bool header_value(const std::string& line, const std::string& key, std::string& value) {
  if (line.rfind("# " + key, 0) != 0) return false;
  const auto colon = line.find(':');
  if (colon == std::string::npos) return false;
  if (trim(line.substr(2, colon - 2)) != key) return false;
  value = trim(line.substr(colon + 1));
  return true;
}

core::Measurement blank_row() {
  core::Measurement m;
  m.measured = true;
  m.t_min_us = m.t_max_us = m.t_avg_us = kNotRecorded;
  return m;
}

// ---- IMB ----------------------------------------------------------------------------------

// IMB's Mbytes/sec are 2^20 bytes per second up to IMB 2017 (IMB 3.x prints them so, and so
// do mpiscope's IMB 3.1 tables) and 10^6 bytes per second from IMB 2018 on (its IMB_output.c
// divides by 1e6). The version comes from the title: "Intel (R) MPI Benchmark Suite V3.2.4,
// MPI-1 part", "Intel(R) MPI Benchmarks 2021.3, MPI-1 part", "mpiscope 1.0, IMB 3.1 compatible
// tables (MPI-1 part)".
struct ImbVersion {
  std::string name;  // "3.2.4", "2021.3", "mpiscope (IMB 3.1 tables)"; empty: not recognised
  bool decimal_megabytes = false;
};

ImbVersion imb_version_of(const std::string& title) {
  if (title.rfind("mpiscope", 0) == 0) {
    static const std::regex tables(R"(IMB (\S+) compatible)");
    std::smatch m;
    const bool found = std::regex_search(title, m, tables);
    return {"mpiscope (IMB " + (found ? m[1].str() : std::string("3.1")) + " tables)", false};
  }
  static const std::regex version(
      R"(MPI Benchmark(?:s| Suite)\s+V?(\d+)((?:\.\d+)*(?: Update \d+)?))");
  std::smatch m;
  if (!std::regex_search(title, m, version)) return {};
  return {m[1].str() + m[2].str(), std::stoi(m[1].str()) >= 2018};
}

// Whether the file's Mbytes/sec are 10^6 bytes per second: Intel's from IMB 2018 on; mpiscope's
// say so in their "# Units:" line (current IMB's rules print 10^6, -imb_rules 3.1 2^20).
bool decimal_megabytes(const core::RunInfo& info) {
  if (info.suite_title.rfind("mpiscope", 0) == 0)
    return info.settings.count("imported_megabyte") &&
           info.settings.at("imported_megabyte") == "10^6";
  return imb_version_of(info.suite_title).decimal_megabytes;
}

bool is_imb_title(const std::string& line) {
  return line.find("MPI Benchmarks") != std::string::npos ||
         line.find("MPI Benchmark Suite") != std::string::npos ||
         (line.find("IMB") != std::string::npos && line.find("part") != std::string::npos);
}

// Intel's IMB-IO spells the file pointer with a capital (S_Write_Indv), mpiscope in lower case
// (S_Write_indv), as the IMB guide's tables do; imports take mpiscope's spelling so that both
// land in one table of the report and of compare.
std::string io_name_as_mpiscope_spells_it(const std::string& name) {
  static const std::regex io(R"(^([SPC]_I?(?:Write|Read)_)(Indv|Expl|Shared|Priv)$)");
  std::smatch m;
  if (!std::regex_match(name, m, io)) return name;
  return m[1].str() + core::to_lower(m[2].str());
}

bool is_io_read(const std::string& name) {
  static const std::regex read(R"(^[SPC]_I?Read_)");
  return std::regex_search(name, read);
}

std::string imb_suite_of(const std::string& title) {
  if (title.find("NBC") != std::string::npos) return "imb-nbc";
  if (title.find("MT part") != std::string::npos) return "imb-mt";
  if (title.find("P2P") != std::string::npos) return "imb-p2p";
  if (title.find("MPI-4") != std::string::npos) return "imb-mpi4";
  if (title.find("RMA") != std::string::npos) return "imb-rma";
  if (title.find("MPI-1") != std::string::npos || title.find("MPI1") != std::string::npos)
    return "imb-mpi1";
  if (title.find("EXT") != std::string::npos || title.find("MPI-2") != std::string::npos)
    return "imb-ext";
  if (title.find("IO") != std::string::npos) return "imb-io";
  return "imb";
}

// IMB's header settings: which version printed the file and how its Mbytes/sec were stored.
void record_imb_version(StoredRun& run) {
  const ImbVersion version = imb_version_of(run.info.suite_title);
  auto& settings = run.info.settings;
  settings["imb_version"] = version.name.empty() ? "not recognised" : version.name;
  const bool decimal = decimal_megabytes(run.info);
  settings.erase("imported_megabyte");  // said below, for the run
  if (decimal) {
    settings["imported_mbytes_per_sec"] = "10^6 bytes/s as printed, stored as MiB/s (2^20)";
  } else {
    settings["imported_mbytes_per_sec"] = "2^20 bytes/s as printed (MiB/s), stored unchanged";
    if (version.name.empty())
      run.notes.push_back(
          "IMB version not recognised (no title line): Mbytes/sec taken as 2^20 bytes/s, as IMB "
          "3.x prints them; IMB 2018 and later print 10^6 bytes/s");
  }
}

// Current IMB's Uniband and Biband window: -window_size from the calling sequence, else the
// default of the version that printed the file (256 from IMB 2021.2 on, 64 before; mpiscope 256).
int imb_window_size(const core::RunInfo& info) {
  const auto& argv = info.command_line;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    double w = 0;
    if (argv[i] == "-window_size" && to_number(argv[i + 1], w) && w >= 1)
      return static_cast<int>(w);
  }
  const ImbVersion version = imb_version_of(info.suite_title);
  if (info.suite_title.rfind("mpiscope", 0) == 0) return 256;
  static const std::regex year_update(R"((\d+)(?:\.(\d+))?)");
  std::smatch m;
  if (std::regex_search(version.name, m, year_update)) {
    const int year = std::stoi(m[1].str()), update = m[2].matched ? std::stoi(m[2].str()) : 0;
    return year > 2021 || (year == 2021 && update >= 2) ? 256 : 64;
  }
  return 256;
}

// A Uniband or Biband table prints no time: the time of one repetition (a window of messages
// between each of the P/2 pairs, both ways for Biband) follows from Msg/sec, so that compare,
// which compares times, matches it with mpiscope's rows.
void derive_window_times(core::BenchmarkRun& b, const core::RunInfo& info) {
  const double scale = core::to_lower(b.name) == "biband" ? 2.0 : 1.0;
  const int pairs = b.nprocs / 2;  // an odd process count leaves one rank idle
  const double messages = scale * imb_window_size(info) * pairs;
  for (auto& m : b.rows) {
    const auto* rate = m.value("message_rate");
    if (!m.measured || !rate || rate->value <= 0 || std::isfinite(m.t_max_us)) continue;
    m.t_min_us = m.t_max_us = m.t_avg_us = messages / rate->value * 1e6;
  }
}

// Stores every Mbytes/sec of a table in the model's MiB/s (2^20 bytes per second), keeping a
// 10^6 figure as printed beside it, and gives IMB-IO's tables mpiscope's names and modes.
void normalise_imb_table(core::BenchmarkRun& b, const core::RunInfo& info) {
  // The family a live run of the benchmark records (what decides, e.g., whether its curve has a
  // model): IMB-MPI1's from its descriptors.
  if (info.suite == "imb-mpi1")
    for (const auto& known : imb::mpi1::all_benchmarks())
      if (known.name == b.name) b.family = core::family_name(known.family);
  if (info.suite == "imb-io") {
    b.name = io_name_as_mpiscope_spells_it(b.name);
    if (is_io_read(b.name)) b.mode.clear();  // IMB-IO reads run one way; Intel calls it AGGREGATE
  }
  // IMB-NBC's and IMB-MPI4's overlap is over max(t_pure, t_CPU).
  if (info.suite == "imb-nbc" || info.suite == "imb-mpi4")
    for (auto& m : b.rows)
      if (m.overlap) m.overlap->base = core::OverlapBase::Larger;
  // IMB-MT prints the threads' bytes together (#bytes = X · threads); the model keeps X, as a
  // live run of mpiscope's does. Its UniBandMT and BiBandMT print t_avg itself, which stays the
  // only time of their rows.
  // IMB-P2P's t[usec] is the ranks' mean (the importer read it as t_max, IMB's t[usec]), and its
  // stencils name their grid in the title: "Stencil2D (2 x 2)" is Stencil2D on grid 2 x 2, as a
  // live run records it.
  if (info.suite == "imb-p2p") {
    static const std::regex grid(R"(^(\S+) \((\d+(?: x \d+)+)\)$)");
    std::smatch g;
    if (std::regex_match(b.name, g, grid)) {
      b.parameters["grid"] = g[2].str();
      b.name = g[1].str();
    }
    for (auto& m : b.rows) {
      if (!m.measured) continue;
      m.t_avg_us = m.t_max_us;
      m.t_max_us = std::nan("");
      m.values.push_back(
          {"headline_us", m.t_avg_us, "microseconds: the mean time the text prints"});
    }
  }
  if (info.suite == "imb-mt") {
    const auto threads = b.parameters.find("threads_per_process");
    const std::size_t n = threads == b.parameters.end() ? 1 : std::stoul(threads->second);
    for (auto& m : b.rows) m.bytes /= std::max<std::size_t>(n, 1);
  } else if (b.message_rate) {
    derive_window_times(b, info);
  }
  if (!decimal_megabytes(info)) return;
  constexpr double kMiBPerMB = 1e6 / 1048576.0;
  for (auto& m : b.rows) {
    if (!m.mbytes_per_sec) continue;
    m.values.push_back(
        {"imb_bandwidth", *m.mbytes_per_sec, "MB/s (10^6 bytes per second, as printed)"});
    *m.mbytes_per_sec *= kMiBPerMB;
    for (auto& g : m.groups)
      if (g.mbytes_per_sec) *g.mbytes_per_sec *= kMiBPerMB;
  }
}

// One data row of an IMB table under its column headings.
void add_imb_row(core::BenchmarkRun& b, const std::vector<std::string>& columns,
                 const std::vector<std::string>& cells, double first,
                 std::map<std::size_t, std::size_t>& row_of_bytes) {
  core::Measurement m = blank_row();
  bool complete = cells.size() == columns.size();
  for (std::size_t c = 0; complete && c < columns.size(); ++c) {
    double v = 0;
    if (!to_number(cells[c], v)) complete = false;
  }
  if (!complete) {
    // A row that was not measured: the length, then IMB's reason ("out-of-mem." …).
    m.measured = false;
    m.bytes = static_cast<std::size_t>(first);
    std::string note;
    for (std::size_t k = 1; k < cells.size(); ++k) note += (k > 1 ? " " : "") + cells[k];
    m.note = note;
    b.rows.push_back(m);
    return;
  }
  std::optional<int> group;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    double v = 0;
    to_number(cells[c], v);
    const std::string& col = columns[c];
    if (col == "Group")
      group = static_cast<int>(v);
    else if (col == "#bytes")
      m.bytes = static_cast<std::size_t>(v);
    else if (col == "#repetitions" || col == "#rep.s")
      m.repetitions = static_cast<int>(v);
    else if (col == "t_min[usec]")
      m.t_min_us = v;
    else if (col == "t_max[usec]" || col == "t[usec]" || col == "t_ovrl[usec]")
      m.t_max_us = v;
    else if (col == "t_avg[usec]")
      m.t_avg_us = v;
    else if (col == "Mbytes/sec")
      m.mbytes_per_sec = v;  // converted with the whole table, once the title is known
    else if (col == "defects")
      m.defects = v;
    else if (col == "Msg/sec")  // current IMB's Uniband and Biband
      m.values.push_back({"message_rate", v, "messages/s"});
    else if (col == "t_pure[usec]")
      m.overlap = core::OverlapTimes{v, 0, 0};
    else if (col == "t_CPU[usec]" && m.overlap)
      m.overlap->t_cpu_us = v;
    else if (col == "overlap[%]" && m.overlap)
      m.overlap->overlap_percent = v;
    else
      m.values.push_back({col, v, ""});
  }
  if (group) {
    // -multi 1 prints one line per group: one row with the groups' times.
    core::GroupTimes gt{m.t_min_us, m.t_max_us, m.t_avg_us, m.mbytes_per_sec};
    auto [it, fresh] = row_of_bytes.try_emplace(m.bytes, b.rows.size());
    if (fresh) b.rows.push_back(m);
    auto& row = b.rows[it->second];
    row.groups.push_back(gt);
    row.t_min_us = std::min(row.t_min_us, m.t_min_us);
    row.t_max_us = std::max(row.t_max_us, m.t_max_us);
    return;
  }
  b.rows.push_back(m);
}

// "# Benchmarking NAME" has been read: the table's header lines, column headings and rows.
core::BenchmarkRun read_imb_table(LineReader& lines, const std::string& name) {
  core::BenchmarkRun b;
  b.name = name;
  b.sized = false;
  std::vector<std::string> columns;
  for (std::string h; lines.next(h);) {
    int n = 0, g = 0, threads = 0;
    if (std::sscanf(h.c_str(), "# #processes = %d", &n) == 1) b.nprocs = n;
    // IMB-MT: "# #processes = 2 (threads: 4)".
    if (std::sscanf(h.c_str(), "# #processes = %d (threads: %d)", &n, &threads) == 2) {
      if (threads < 1 || threads > 1 << 20)
        throw ImportError("table '" + b.name + "': " + std::to_string(threads) +
                          " threads per process");
      b.parameters["threads_per_process"] = std::to_string(threads);
    }
    if (std::sscanf(h.c_str(), "# ( %d groups of %d processes", &g, &n) == 2) {
      if (g < 0 || static_cast<std::size_t>(g) > kMaxRowsPerTable)
        throw ImportError("table '" + b.name + "': " + std::to_string(g) +
                          " groups; IMB's -multi runs at most one group per process");
      b.nprocs = n;
      b.multi = true;
      b.groups.assign(static_cast<std::size_t>(std::max(g, 0)), {});
    }
    if (std::sscanf(h.c_str(), "# ( %d additional process", &n) == 1) b.inactive = n;
    if (h.find("MODE:") != std::string::npos)
      b.mode = core::to_lower(trim(h.substr(h.find("MODE:") + 5)));
    if (!h.empty() && h[0] != '#' && h.find("#repetitions") != std::string::npos) {
      columns = words(h);
      break;
    }
    if (h.rfind("# Benchmarking ", 0) == 0) {
      lines.give_back(h);
      break;
    }
  }
  if (columns.empty())
    throw ImportError("table '" + b.name + "' has no column headings (#repetitions …)");
  b.sized = std::find(columns.begin(), columns.end(), "#bytes") != columns.end();
  b.has_throughput = std::find(columns.begin(), columns.end(), "Mbytes/sec") != columns.end();
  b.message_rate = std::find(columns.begin(), columns.end(), "Msg/sec") != columns.end();
  b.overlap = std::find(columns.begin(), columns.end(), "t_ovrl[usec]") != columns.end();
  // IMB-RMA's Truly_passive_put: t_pure and t_ovrl without CPU time or overlap.
  b.pure_and_ovrl_only =
      b.overlap && std::find(columns.begin(), columns.end(), "t_CPU[usec]") == columns.end();
  b.check = std::find(columns.begin(), columns.end(), "defects") != columns.end();
  std::map<std::size_t, std::size_t> row_of_bytes;  // Multi rows: one row per length
  for (std::string line; lines.next(line);) {
    const std::string t = trim(line);
    if (t.empty()) {
      if (b.rows.empty() || columns[0] == "Group") continue;
      break;
    }
    double first = 0;
    const auto cells = words(t);
    if (t[0] == '#' || t[0] == '!' || !to_number(cells[0], first)) {
      lines.give_back(line);  // the next table or header line
      break;
    }
    check_table_size(b);
    add_imb_row(b, columns, cells, first, row_of_bytes);
  }
  return b;
}

StoredRun parse_imb(LineReader& lines, const TableSink& sink) {
  StoredRun run;
  run.source = "import:imb";
  run.ok = true;
  auto& info = run.info;
  info.suite = "imb";
  TableCollector tables{run, sink};
  std::string value;
  for (std::string line; lines.next(line);) {
    if (!line.empty() && line[0] == '#' && is_imb_title(line)) {
      if (info.suite_title.empty()) {
        // Current IMB-IO prints its title without a line end ("MPI-IO partn#-----").
        info.suite_title = trim(line.substr(1, line.find('#', 1) - 1));
        if (info.suite_title.ends_with("partn")) info.suite_title.pop_back();
        info.suite = imb_suite_of(info.suite_title);
      }
    } else if (header_value(line, "Date", value)) {
      info.date = value;
    } else if (header_value(line, "Machine", value)) {
      info.machine = value;
    } else if (header_value(line, "System", value)) {
      info.system = value;
    } else if (header_value(line, "Release", value)) {
      info.release = value;
    } else if (header_value(line, "Version", value)) {
      info.version = value;
    } else if (header_value(line, "MPI Version", value)) {
      info.mpi_version = value;
    } else if (header_value(line, "MPI Thread Environment", value)) {
      info.thread_level = value;
    } else if (header_value(line, "MPI Library", value)) {
      info.mpi_library = value;
    } else if (header_value(line, "Hosts", value)) {
      // mpiscope's "host (N ranks), …"
      static const std::regex host_re(R"(([^,\s]+) \((\d+) ranks?\))");
      for (std::sregex_iterator it(value.begin(), value.end(), host_re), end; it != end; ++it)
        info.ranks_per_host[(*it)[1]] = std::stoi((*it)[2]);
    } else if (line.rfind("# Units:", 0) == 0) {  // mpiscope's: which megabyte
      info.settings["imported_megabyte"] =
          line.find("Mbytes/sec = 10^6") != std::string::npos ? "10^6" : "2^20";
    } else if (line.rfind("# Calling sequence was", 0) == 0) {
      // The command line follows on '#' lines up to the next blank line.
      std::string next;
      bool more = lines.next(next);
      while (more && trim(next).empty()) more = lines.next(next);
      while (more && !trim(next).empty() && next[0] == '#') {
        for (const auto& w : words(next.substr(1))) info.command_line.push_back(w);
        if (info.command_line.size() > kMaxCommandWords)
          throw ImportError("line " + std::to_string(lines.number()) +
                            ": a calling sequence of more than " +
                            std::to_string(kMaxCommandWords) + " words; IMB prints no such line");
        more = lines.next(next);
      }
    } else if (line.rfind("# Benchmarking ", 0) == 0) {
      core::BenchmarkRun b = read_imb_table(lines, trim(line.substr(15)));
      normalise_imb_table(b, info);
      tables(std::move(b));
    }
  }
  if (tables.tables == 0) throw ImportError("no IMB table ('# Benchmarking …') found");
  record_imb_version(run);
  return run;
}

// ---- OSU ----------------------------------------------------------------------------------

// The words of an OSU title between "OSU MPI[-CUDA…]" and "Test": "# OSU MPI Allreduce Latency
// Test v7.3" -> "Allreduce Latency"; the one-sided tests join MPI to the call with an underscore
// ("OSU MPI_Put Latency Test" -> "Put Latency").
std::string osu_title_words(const std::string& title) {
  static const std::regex head(R"(^(#\s*)?OSU\s+(MPI(-\w+)?(\s+|_))?(.*?)\s+Test\b.*$)");
  std::smatch m;
  return std::regex_match(title, m, head) ? m[5].str() : title;
}

// "# OSU MPI Allreduce Latency Test v7.3" -> osu_allreduce: the program mpiscope runs under that
// title (so "Non-Blocking Broadcast Latency" is osu_ibcast, as mpiscope's own run of it), else
// the point-to-point tests' program names, else a name made from the title.
std::string osu_program(const std::string& title) {
  static const std::vector<std::pair<std::string, std::string>> known = {
      {"Bi-Directional Bandwidth", "osu_bibw"},
      {"Multiple Bandwidth / Message Rate", "osu_mbw_mr"},
      {"Multi-threaded Latency", "osu_latency_mt"},
      {"Multi-process Latency", "osu_latency_mp"},
      {"Multiple Latency", "osu_multi_lat"},
      {"Bandwidth", "osu_bw"},
      {"Latency", "osu_latency"}};
  const std::string t = osu_title_words(title);
  for (const auto& p : osu::programs())
    if (core::to_lower(osu_title_words(p.title)) == core::to_lower(t)) return p.name;
  for (const auto& [words_of_title, program] : known)
    if (t == words_of_title) return program;
  // Collectives and one-sided tests: "Allreduce Latency" -> osu_allreduce, "Put Latency" ->
  // osu_put_latency.
  std::string name = core::to_lower(t);
  const std::string suffix = " latency";
  const bool collective_like =
      name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
      name.find("put") == std::string::npos && name.find("get") == std::string::npos &&
      name.find("acc") == std::string::npos;
  if (collective_like) name.resize(name.size() - suffix.size());
  std::string out = "osu_";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// Column headings are separated by two or more blanks ("Avg Latency(us)" has one inside).
std::vector<std::string> osu_columns(const std::string& heading) {
  std::vector<std::string> cols;
  // -z's bandwidth headings run into each other: "P5 Tail BW(MB/s) P50 Tail BW(MB/s)".
  static const std::regex joined(R"(\)\s(P\d))");
  std::string body = std::regex_replace(trim(heading.substr(1)), joined, ")  $1");
  static const std::regex sep(R"(\s{2,}|\t+)");
  for (std::sregex_token_iterator it(body.begin(), body.end(), sep, -1), end; it != end; ++it)
    if (!trim(it->str()).empty()) cols.push_back(trim(it->str()));
  return cols;
}

std::string unit_in(const std::string& col) {
  const auto open = col.find('(');
  const auto close = col.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  const std::string u = col.substr(open + 1, close - open - 1);
  return u == "us" ? "microseconds" : u;
}

// OSU's -f columns of the non-blocking collectives, under the names mpiscope's osu rows give them.
const std::map<std::string, std::string> osu_overlap_values = {{"Coll. Init(us)", "coll_init_us"},
                                                               {"MPI_Test(us)", "mpi_test_us"},
                                                               {"MPI_Wait(us)", "mpi_wait_us"},
                                                               {"Min Comm.(us)", "t_pure_min_us"},
                                                               {"Max Comm.(us)", "t_pure_max_us"}};

// The header lines of OSU 7.4 that say how the figures were measured, as mpiscope's osu suite
// records them (suites/osu/front_end.cpp). Every other '# Key: value' line is a diagnostic
// ("# HOST/POSIX_MEMALIGN: allocated 8 bytes at 0x7f…", a host name, a CUDA device) that differs
// from launch to launch: as a parameter it would make each file's tables a table of their own,
// which compare never matches with a run.
// "# Datatype: MPI_CHAR.", "# Window creation: …", "# Synchronization: …", and OSU 7.5's
// osu_partitioned_latency's "# Partitions: 8".
bool is_osu_parameter(const std::string& key) {
  return key == "datatype" || key == "window creation" || key == "synchronization" ||
         key == "partitions";
}

StoredRun parse_osu(LineReader& lines, const TableSink& sink) {
  StoredRun run;
  run.source = "import:osu";
  run.ok = true;
  run.info.suite = "osu";
  run.info.suite_title = "OSU Micro-Benchmarks";
  TableCollector tables{run, sink};
  std::optional<core::BenchmarkRun> current;  // the table being read
  // osu_mbw_mr -V: a table per window (as mpiscope's run gives them, parameter "window"), read
  // from its two profiles, MB/s and then messages/s, rows of a size and a figure per window.
  bool varied = false, rate_profile = false;
  std::vector<int> windows;
  std::map<int, core::BenchmarkRun> by_window;
  auto finish_varied = [&] {
    for (const int w : windows)
      if (const auto it = by_window.find(w); it != by_window.end() && !it->second.rows.empty())
        tables(std::move(it->second));
    by_window.clear();
    rate_profile = false;
  };
  auto finish_table = [&] {
    finish_varied();
    if (current && !current->rows.empty()) tables(std::move(*current));
    current.reset();
  };
  std::vector<std::string> columns;
  // The neighbourhood collectives' lines before their title: "Dimensions size = 3 " (a Cartesian
  // topology's shape) and "Time took to create topology graph:…". OSU prints neither the radius
  // nor the graph file, so the table names its topology as far as the text does, and compares
  // with no run of mpiscope's (whose tables name theirs: cart:1:1).
  std::string topology;
  for (std::string raw; lines.next(raw);) {
    const std::string line = trim(raw);
    if (line.rfind("Dimensions size =", 0) == 0) {
      topology = "cart, shape " + trim(line.substr(17)) + " (OSU's output names no radius)";
      continue;
    }
    if (line.rfind("Time took to create topology graph:", 0) == 0) {
      if (topology.empty()) topology = "graph (OSU's output names no file)";
      continue;
    }
    if (line.rfind("# OSU ", 0) == 0) {
      finish_table();
      current.emplace();
      current->name = osu_program(line);
      if (!topology.empty()) {
        // OSU 7.4's osu_neighbor_alltoallw prints osu_alltoallw's title.
        if (current->name == "osu_alltoallw") current->name = "osu_neighbor_alltoallw";
        current->parameters["neighbourhood"] = topology;
        topology.clear();
      }
      // As mpiscope's osu suite records the program (osu::programs(), the one description).
      if (const auto* program = osu::find_program(current->name)) {
        const auto kind = osu::table_kind(*program);
        current->family = kind.family;
        current->nprocs = kind.nprocs;  // the others' process count is not in the file
      } else {
        const bool pair = current->name.rfind("osu_latency", 0) == 0;  // osu_latency_mt, …
        current->family = pair ? "single_transfer" : "collective";
        current->nprocs = pair ? 2 : 0;
      }
      current->sized = false;
      columns.clear();
      varied = false;
      windows.clear();
      if (run.info.suite_title == "OSU Micro-Benchmarks") {
        static const std::regex version(R"(\bv(\d[\w.]*))");
        std::smatch m;
        if (std::regex_search(line, m, version))
          run.info.suite_title = "OSU Micro-Benchmarks " + m[1].str();
      }
      continue;
    }
    if (!current) continue;
    // osu_init's one line: the ranks' MPI_Init times in whole milliseconds.
    static const std::regex init_line(
        R"(^nprocs:\s*(\d+),\s*min:\s*(\d+) ms,\s*max:\s*(\d+) ms,\s*avg:\s*(\d+) ms$)");
    if (std::smatch init; std::regex_match(line, init, init_line)) {
      core::Measurement m = blank_row();
      const double processes = std::stod(init[1]), least = std::stod(init[2]),
                   most = std::stod(init[3]), mean = std::stod(init[4]);
      m.t_min_us = 1e3 * least;
      m.t_max_us = 1e3 * most;
      m.t_avg_us = 1e3 * mean;
      const char* printed = "ms (each rank's whole milliseconds, as OSU prints them)";
      m.values = {{"nprocs", processes, "processes"},
                  {"osu_min_ms", least, printed},
                  {"osu_max_ms", most, printed},
                  {"osu_avg_ms", mean, printed}};
      current->family = "startup";
      current->nprocs = static_cast<int>(processes);
      current->rows.push_back(m);
      continue;
    }
    if (line.rfind('#', 0) == 0) {
      const std::string body = trim(line.substr(1));
      if (body.find("window size: varied") != std::string::npos) {
        varied = true;
        continue;
      }
      if (varied) {
        if (body == "Message Rate Profile") rate_profile = true;
        std::vector<int> heading;  // "#      1  2  4 … 128": the windows
        for (const auto& w : words(body)) {
          double v = 0;
          if (!to_number(w, v) || v < 1) {
            heading.clear();
            break;
          }
          heading.push_back(static_cast<int>(v));
        }
        if (!heading.empty()) {
          windows = heading;
          continue;
        }
        if (body.rfind("Datatype:", 0) == 0) {  // -T all: the next type's profiles
          finish_varied();
          std::string v = trim(body.substr(9));
          if (!v.empty() && v.back() == '.') v.pop_back();
          current->parameters["datatype"] = v;
        }
        continue;
      }
      const auto colon = body.find(':');
      // "# Overall(us)  Compute(us) …": osu_ibarrier's columns (not "# Overall = Coll. Init …").
      if (body.rfind("Size", 0) == 0 || body.find("Latency") != std::string::npos ||
          body.find("MB/s") != std::string::npos || body.rfind("Overall(us)", 0) == 0) {
        columns = osu_columns(line);
        // OSU 7.4's osu_bw_fan_in and osu_bw_fan_out print osu_bw's title and head their MB/s
        // "Avg Latency(us)" (print_only_header has no case for them): a fan's bandwidth over
        // every node, of either direction, which must not compare with a two-rank osu_bw.
        if (current->name == "osu_bw" && columns.size() >= 2 && columns[1] == "Avg Latency(us)") {
          columns[1] = "Bandwidth (MB/s)";
          current->name = "osu_bw_fan";
          current->family = "parallel_transfer";
          current->nprocs = 0;
          current->parameters["direction"] = "in or out (OSU's output does not say)";
        }
        current->sized = !columns.empty() && columns[0] == "Size";
        current->overlap = std::find(columns.begin(), columns.end(), "Overlap(%)") != columns.end();
        // -D: OSU's text says that a derived datatype moved the data, not which one, so the
        // table compares with no run of mpiscope's (whose tables name theirs).
        if (std::find(columns.begin(), columns.end(), "Transmit Size") != columns.end())
          current->parameters["derived_datatype"] = "unnamed (OSU's -D output names no type)";
      } else if (const auto key = core::to_lower(trim(body.substr(0, colon)));
                 colon != std::string::npos && is_osu_parameter(key)) {
        // "# Datatype: MPI_CHAR.", "# Window creation: MPI_Win_allocate", …
        std::string v = trim(body.substr(colon + 1));
        if (!v.empty() && v.back() == '.') v.pop_back();
        if (key == "datatype" && !current->rows.empty()) {
          // -T all (or -T given twice): the next type's table under the same title.
          core::BenchmarkRun next = *current;
          next.rows.clear();
          finish_table();
          current = std::move(next);
        }
        current->parameters[key] = v;
      }
      continue;
    }
    if (varied && !windows.empty() && !line.empty()) {
      const auto cells = words(line);
      double size = 0;
      if (cells.size() != windows.size() + 1 || !to_number(cells[0], size)) continue;
      for (std::size_t k = 0; k < windows.size(); ++k) {
        double v = 0;
        if (!to_number(cells[k + 1], v)) continue;
        auto [it, made] = by_window.try_emplace(windows[k], *current);
        core::BenchmarkRun& t = it->second;
        if (made) {
          t.rows.clear();
          t.sized = true;
          t.has_throughput = true;
          t.parameters["window"] = std::to_string(windows[k]);
        }
        const auto bytes = static_cast<std::size_t>(size);
        if (rate_profile) {  // the same size's row of the MB/s profile
          for (auto& row : t.rows)
            if (row.bytes == bytes) row.values.push_back({"message_rate", v, "messages/s"});
          continue;
        }
        core::Measurement m = blank_row();
        m.bytes = bytes;
        m.mbytes_per_sec = v / 1.048576;  // OSU's MB/s are 10^6 bytes/s; the model's 2^20
        m.values.push_back({"osu_bandwidth", v, "MB/s (10^6 bytes per second, as printed)"});
        if (v > 0) m.t_avg_us = static_cast<double>(bytes) / v;
        check_table_size(t);
        t.rows.push_back(m);
      }
      continue;
    }
    if (columns.empty() || line.empty()) continue;
    const auto cells = words(line);
    if (cells.size() != columns.size()) continue;  // launcher chatter between the tables
    core::Measurement m = blank_row();
    core::OverlapTimes overlap;  // the non-blocking collectives' figures
    overlap.base = core::OverlapBase::Pure;
    bool numeric = true;
    for (std::size_t c = 0; c < cells.size() && numeric; ++c) {
      double v = 0;
      if (columns[c] == "Validation" && (cells[c] == "Pass" || cells[c] == "Fail")) {  // -c
        m.defects = cells[c] == "Fail" ? 1 : 0;
        continue;
      }
      if (!to_number(cells[c], v)) {
        numeric = false;
        break;
      }
      const std::string& col = columns[c];
      if (col == "Size")
        m.bytes = static_cast<std::size_t>(v);
      else if (col == "Latency (us)" || col == "Avg Latency(us)" || col == "Latency(us)" ||
               col == "Overall(us)")
        m.t_avg_us = v;
      else if (col == "Min Latency(us)")
        m.t_min_us = v;
      else if (col == "Max Latency(us)")
        m.t_max_us = v;
      else if (col == "Iterations")
        m.repetitions = static_cast<int>(v);
      else if (col == "Bandwidth (MB/s)" || col == "MB/s") {
        m.mbytes_per_sec = v / 1.048576;  // OSU's MB/s are 10^6 bytes/s; the model's 2^20
        m.values.push_back({"osu_bandwidth", v, "MB/s (10^6 bytes per second, as printed)"});
      } else if (col == "Messages/s")
        m.values.push_back({"message_rate", v, "messages/s"});
      else if (col == "Transmit Size")  // -D: the bytes the derived datatype moves
        m.values.push_back({"transmit_size", v, "bytes"});
      else if (col == "Pure Comm.(us)")
        overlap.t_pure_us = v;
      else if (col == "Compute(us)")
        overlap.t_cpu_us = v;
      else if (col == "Overlap(%)")
        overlap.overlap_percent = overlap.raw_percent = v;
      else if (const auto named = osu_overlap_values.find(col); named != osu_overlap_values.end())
        m.values.push_back({named->second, v, "microseconds"});
      else
        m.values.push_back({col, v, unit_in(col)});
    }
    if (!numeric) continue;
    if (current->overlap) {
      overlap.t_ovrl_us = m.t_avg_us;
      m.overlap = overlap;
    }
    // A bandwidth-only table (osu_bw, osu_bibw, osu_mbw_mr) still compares: its time is the one
    // OSU's figure implies per message, X (under -D the bytes moved) / bandwidth, as mpiscope's osu
    // suite reports it.
    if (const auto* bw = m.value("osu_bandwidth");
        bw && bw->value > 0 && std::isnan(m.t_avg_us) && std::isnan(m.t_max_us)) {
      const auto* moved = m.value("transmit_size");  // -D: the bandwidth counts what moved
      m.t_avg_us = (moved ? moved->value : static_cast<double>(m.bytes)) / bw->value;
    }
    check_table_size(*current);
    if (m.mbytes_per_sec) current->has_throughput = true;
    current->rows.push_back(m);
  }
  finish_table();
  if (tables.tables == 0)
    throw ImportError("an OSU title but no table of numbers under a '# Size …' heading");
  return run;
}

// ---- SKaMPI -------------------------------------------------------------------------------

// Each '# begin result' block's rows, split into one table per process count and parameters
// (a "-nodes" measurement varies the process count inside one block); the tables are handed on
// at the block's end.
StoredRun parse_skampi(LineReader& lines, const TableSink& sink) {
  StoredRun run;
  run.source = "import:skampi";
  run.ok = true;
  run.info.suite = "skampi";
  run.info.suite_title = "SKaMPI";
  TableCollector tables{run, sink};
  static const std::regex begin_re(R"re(^#\s*begin result\s+"([^"]*)")re");
  static const std::regex end_re(R"re(^#\s*end result)re");
  std::string result;                               // the open "# begin result" block
  std::map<std::string, core::BenchmarkRun> block;  // its tables by process count and parameters
  std::vector<std::string> block_order;             // … in the order they began
  std::size_t block_rows = 0;
  auto finish_block = [&] {
    for (const auto& id : block_order) tables(std::move(block.at(id)));
    block_rows = 0;
    block.clear();
    block_order.clear();
  };
  bool in_result = false;
  for (std::string raw; lines.next(raw);) {
    const std::string line = trim(raw);
    std::smatch m;
    if (line.rfind("# SKaMPI", 0) == 0) {
      run.info.suite_title = trim(line.substr(2));
    } else if (line.rfind("# Started at", 0) == 0) {
      run.info.date = trim(line.substr(12));
    } else if (std::regex_search(line, m, begin_re)) {
      finish_block();
      result = m[1];
      in_result = true;
    } else if (std::regex_search(line, m, end_re)) {
      finish_block();
      in_result = false;
    } else if (in_result && !line.empty() && line[0] != '#') {
      const std::string where = "line " + std::to_string(lines.number());
      // name= value pairs, then [bytes] time stderr repetitions [time of each process…];
      // the bytes column exists when the varied argument is a count of elements.
      const auto cells = words(line);
      std::map<std::string, std::string> keys;
      std::size_t c = 0;
      while (c + 1 < cells.size() && cells[c].size() > 1 && cells[c].back() == '=') {
        keys[cells[c].substr(0, cells[c].size() - 1)] = cells[c + 1];
        c += 2;
      }
      std::vector<double> nums;
      for (; c < cells.size(); ++c) {
        double v = 0;
        if (!to_number(cells[c], v))
          throw ImportError(where + ": '" + cells[c] + "' is not a number in result \"" + result +
                            "\"");
        nums.push_back(v);
      }
      const bool sized = keys.count("count") > 0;
      const std::size_t needed = sized ? 4 : 3;
      if (nums.size() < needed)
        throw ImportError(
            where + ": expected " +
            (sized ? "bytes, time, error and repetitions" : "time, error and repetitions") +
            " in result \"" + result + "\"");
      core::Measurement row = blank_row();
      std::size_t k = 0;
      if (sized) row.bytes = static_cast<std::size_t>(nums[k++]);
      row.t_avg_us = nums[k++];
      row.values.push_back({"std_error", nums[k++], "microseconds"});
      row.repetitions = static_cast<int>(nums[k++]);
      row.rank_times_us.assign(nums.begin() + static_cast<long>(k), nums.end());
      double count = 0;
      if (sized && !to_number(keys["count"], count))
        throw ImportError(where + ": count= '" + keys["count"] + "' is not a number");
      if (sized) row.values.push_back({"count", count, "elements"});

      std::map<std::string, std::string> params;
      int nprocs = static_cast<int>(row.rank_times_us.size());
      for (const auto& [key, v] : keys) {
        if (key == "count") continue;
        double n = 0;
        if (key == "nodes" || key == "procs") {
          if (!to_number(v, n) || n < 1 || n > 1e7 || n != std::floor(n))
            throw ImportError(where + ": " + key + "= '" + v + "' is not a process count");
          nprocs = static_cast<int>(n);
        } else {
          params[key] = v;
        }
      }
      std::string id = std::to_string(nprocs);
      for (const auto& [key, v] : params) id += "|" + key + "=" + v;
      // One block's tables are held until its end: bounded together as one table is.
      check_table_size(result, block_rows++);
      auto [it, fresh] = block.try_emplace(id);
      core::BenchmarkRun& b = it->second;
      if (fresh) {
        block_order.push_back(id);
        b.name = result;
        b.family = "skampi";
        b.sized = sized;
        b.nprocs = nprocs;
        b.parameters = params;
      }
      check_table_size(b);
      b.rows.push_back(std::move(row));
    }
  }
  finish_block();
  if (tables.tables == 0)
    throw ImportError("no SKaMPI measurement ('# begin result \"…\"' followed by rows) found");
  return run;
}

// ---- mpiscope's SKaMPI output files ------------------------------------------------------

// The output file's header (@KEY value) into the fields where a live run records the same
// facts (suites/skampi/run.cpp), so that a run and its imported file carry the same metadata.
void record_skampi_header(const std::string& key, const std::string& value, std::size_t line,
                          StoredRun& run) {
  auto& info = run.info;
  static const std::map<std::string, std::string> setting_of = {
      {"MACHINE", "machine"},         {"NODE", "node"},    {"NETWORK", "network"},
      {"MPIVERSION", "mpiversion"},   {"USER", "user"},    {"MEMORY", "memory_kb"},
      {"CACHEWARMUP", "cachewarmup"}, {"CONFIG", "config"}};
  double n = 0;
  if (key == "NPROCS") {
    if (!to_number(value, n) || n < 1 || n > 1e7 || n != std::floor(n))
      throw ImportError("line " + std::to_string(line) + ": @NPROCS '" + value +
                        "' is not a process count");
    info.world_size = static_cast<int>(n);
  } else if (key == "MPI_LIBRARY") {
    info.mpi_library = value;
  } else if (key == "DATE") {
    info.date_iso = value;
  } else if (key == "MPISCOPE") {
    info.mpiscope_version = value;
  } else if (key == "POSTPROC") {
    info.settings["merged"] = value + " (mpiscope skampi postproc)";
    run.notes.push_back(
        "medians over runs written by mpiscope skampi postproc (" + value +
        "): each row's times are the median over the runs that measured its argument, how many "
        "is its merged_runs value");
  } else if (const auto it = setting_of.find(key); it != setting_of.end()) {
    if (!value.empty()) info.settings[it->second] = value;  // as a run records them
  } else {
    info.settings[core::to_lower(key)] = value;
  }
}

// A row of a postproc file: its repetitions and used columns count the runs it is the median
// of, not repetitions.
void as_median_of_runs(core::Measurement& m, const skampi::PointRow& p) {
  m.repetitions = 0;
  std::erase_if(m.values, [](const core::NamedValue& v) { return v.name == "used_repetitions"; });
  m.values.push_back(
      {"merged_runs", static_cast<double>(p.repetitions), "runs whose median this row is"});
  if (!p.converged) m.note = "standard error not reached in every run";
}

// Each complete suite block becomes the table a live run records for it: skampi::benchmark_of
// and skampi::measurement_of build both, db::table_as_stored stores both.
StoredRun parse_mpiscope_skampi(LineReader& lines, const TableSink& sink) {
  StoredRun run;
  run.source = "import:mpiscope-skampi";
  run.ok = true;
  run.info.suite = "skampi";
  run.info.suite_title = "SKaMPI";
  TableCollector tables{run, sink};
  std::optional<skampi::SuiteResult> finished;  // handed on outside the reader
  skampi::OutputReader reader("", [&](skampi::SuiteResult&& s) { finished = std::move(s); });
  std::size_t header_lines = 0;
  long defects = 0;
  for (std::string line; lines.next(line);) {
    try {
      reader.line(line);
    } catch (const std::runtime_error& e) {
      throw ImportError(e.what());
    }
    for (const auto& header = reader.header(); header_lines < header.size(); ++header_lines)
      record_skampi_header(header[header_lines].first, header[header_lines].second, lines.number(),
                           run);
    if (const auto* open = reader.open_suite()) check_table_size(open->name, open->rows.size());
    if (!finished) continue;
    const bool merged = run.info.settings.count("merged") > 0;
    // As a live run records them: the ping-pong pair a setting (the first suite's), the notes.
    for (const auto& [name, value] : skampi::suite_settings(*finished))
      run.info.settings.emplace(name, value);
    for (auto& n : skampi::suite_notes(*finished)) run.notes.push_back(std::move(n));
    core::BenchmarkRun b = skampi::benchmark_of(*finished, run.info.world_size);
    if (merged) b.parameters.erase("runs");  // the setting and each row's merged_runs say it
    for (const auto& p : finished->rows) {
      core::Measurement m = skampi::measurement_of(p, finished->argument_unit);
      if (merged) as_median_of_runs(m, p);
      defects += p.defects;
      b.rows.push_back(std::move(m));
    }
    finished.reset();
    tables(table_as_stored(b));
  }
  skampi::OutputFile file;
  try {
    file = reader.finish();
  } catch (const std::runtime_error& e) {
    throw ImportError(e.what());
  }
  if (tables.tables == 0)
    throw ImportError("no complete suite block ('@BEGIN_SUITE NAME' … '@END_SUITE NAME') found");
  if (!file.complete) {
    run.ok = false;
    run.notes.push_back("the run did not finish (no @END_RUN)" +
                        (file.torn_suite.empty()
                             ? std::string()
                             : "; suite " + file.torn_suite + " was interrupted and is left out"));
  }
  if (defects > 0) {
    run.ok = false;
    run.notes.push_back("datatype check: " + std::to_string(defects) + " wrong bytes received");
  }
  return run;
}

// Looks at the file's lines until one tells its format; the reader is left where it stopped.
Format detect(LineReader& lines) {
  for (std::string line; lines.next(line);) {
    if (line.rfind(skampi::kOutputFileMagic, 0) == 0) return Format::kMpiscopeSkampi;
    if (line.rfind("# OSU ", 0) == 0) return Format::kOsu;
    if (line.rfind("# SKaMPI", 0) == 0 || line.rfind("# begin result", 0) == 0)
      return Format::kSkampi;
    if (line.rfind("# Benchmarking ", 0) == 0 || line.find("MPI Benchmark") != std::string::npos)
      return Format::kImb;
  }
  throw ImportError(
      "not an IMB, OSU or SKaMPI output file (found no '# Benchmarking' table of IMB, no '# OSU' "
      "title, no SKaMPI '# begin result' and no '#SKAMPI-OUTPUT' line of mpiscope skampi)");
}

StoredRun parse(LineReader& lines, Format f, const TableSink& sink) {
  switch (f) {
    case Format::kImb:
      return parse_imb(lines, sink);
    case Format::kOsu:
      return parse_osu(lines, sink);
    case Format::kSkampi:
      return parse_skampi(lines, sink);
    case Format::kMpiscopeSkampi:
      return parse_mpiscope_skampi(lines, sink);
  }
  throw ImportError("unknown format");
}

// A whole text parsed with its tables kept.
StoredRun parse_text(const std::string& text, Format f) {
  std::istringstream in(text);
  LineReader lines(in);
  std::vector<core::BenchmarkRun> kept;
  StoredRun run = parse(lines, f, [&](core::BenchmarkRun&& b) { kept.push_back(std::move(b)); });
  run.benchmarks = std::move(kept);
  return run;
}

}  // namespace

const char* format_name(Format f) {
  switch (f) {
    case Format::kImb:
      return "imb";
    case Format::kOsu:
      return "osu";
    case Format::kSkampi:
      return "skampi";
    case Format::kMpiscopeSkampi:
      return "mpiscope-skampi";
  }
  return "?";
}

Format detect_format(const std::string& text) {
  std::istringstream in(text);
  LineReader lines(in);
  return detect(lines);
}

StoredRun parse_imb_text(const std::string& text) {
  return parse_text(text, Format::kImb);
}
StoredRun parse_osu_text(const std::string& text) {
  return parse_text(text, Format::kOsu);
}
StoredRun parse_skampi_text(const std::string& text) {
  return parse_text(text, Format::kSkampi);
}
StoredRun parse_mpiscope_skampi_text(const std::string& text) {
  return parse_text(text, Format::kMpiscopeSkampi);
}

StoredRun import_file(const std::string& path, const TableSink& sink) {
  try {
    core::InputFile file(path, "an IMB, OSU or SKaMPI output file", core::kImportLimits);
    // Two passes over the file: the format (from the first telling line), then the tables.
    LineReader probe(file);
    const Format f = detect(probe);
    file.rewind();
    LineReader lines(file);
    StoredRun run = parse(lines, f, sink);
    run.source_file = path;
    return run;
  } catch (const core::InputError& e) {
    throw ImportError(e.what());  // it names the file
  } catch (const ImportError& e) {
    throw ImportError("'" + path + "': " + e.what());
  }
}

StoredRun import_file(const std::string& path) {
  std::vector<core::BenchmarkRun> kept;
  StoredRun run = import_file(path, [&](core::BenchmarkRun&& b) { kept.push_back(std::move(b)); });
  run.benchmarks = std::move(kept);
  return run;
}

}  // namespace mpiscope::db
