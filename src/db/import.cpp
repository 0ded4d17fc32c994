#include "db/import.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "core/text.hpp"

namespace mpiscope::db {

namespace {

using core::trim;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  return lines;
}

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

int world_size_of(const StoredRun& run) {
  int n = 0;
  for (const auto& b : run.benchmarks) {
    int groups = std::max<int>(1, static_cast<int>(b.groups.size()));
    n = std::max(n, b.nprocs * groups + b.inactive);
  }
  return n;
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
  if (title.rfind("mpiscope", 0) == 0) return {"mpiscope (IMB 3.1 tables)", false};
  static const std::regex version(
      R"(MPI Benchmark(?:s| Suite)\s+V?(\d+)((?:\.\d+)*(?: Update \d+)?))");
  std::smatch m;
  if (!std::regex_search(title, m, version)) return {};
  return {m[1].str() + m[2].str(), std::stoi(m[1].str()) >= 2018};
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
  if (title.find("MPI-1") != std::string::npos || title.find("MPI1") != std::string::npos)
    return "imb-mpi1";
  if (title.find("EXT") != std::string::npos || title.find("MPI-2") != std::string::npos)
    return "imb-ext";
  if (title.find("IO") != std::string::npos) return "imb-io";
  return "imb";
}

// Stores every Mbytes/sec in the model's MiB/s (2^20 bytes per second), keeping a 10^6 figure
// as printed beside it, and gives IMB-IO's tables mpiscope's names and modes.
void normalise_imb_units_and_names(StoredRun& run) {
  const ImbVersion version = imb_version_of(run.info.suite_title);
  auto& settings = run.info.settings;
  settings["imb_version"] = version.name.empty() ? "not recognised" : version.name;
  if (version.decimal_megabytes) {
    settings["imported_mbytes_per_sec"] = "10^6 bytes/s as printed, stored as MiB/s (2^20)";
  } else {
    settings["imported_mbytes_per_sec"] = "2^20 bytes/s as printed (MiB/s), stored unchanged";
    if (version.name.empty())
      run.notes.push_back(
          "IMB version not recognised (no title line): Mbytes/sec taken as 2^20 bytes/s, as IMB "
          "3.x prints them; IMB 2018 and later print 10^6 bytes/s");
  }
  constexpr double kMiBPerMB = 1e6 / 1048576.0;
  for (auto& b : run.benchmarks) {
    if (run.info.suite == "imb-io") {
      b.name = io_name_as_mpiscope_spells_it(b.name);
      if (is_io_read(b.name)) b.mode.clear();  // IMB-IO reads run one way; Intel calls it AGGREGATE
    }
    if (!version.decimal_megabytes) continue;
    for (auto& m : b.rows) {
      if (!m.mbytes_per_sec) continue;
      m.values.push_back(
          {"imb_bandwidth", *m.mbytes_per_sec, "MB/s (10^6 bytes per second, as printed)"});
      *m.mbytes_per_sec *= kMiBPerMB;
      for (auto& g : m.groups)
        if (g.mbytes_per_sec) *g.mbytes_per_sec *= kMiBPerMB;
    }
  }
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
  }
  return "?";
}

Format detect_format(const std::string& text) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind("# OSU ", 0) == 0) return Format::kOsu;
    if (line.rfind("# SKaMPI", 0) == 0 || line.rfind("# begin result", 0) == 0)
      return Format::kSkampi;
    if (line.rfind("# Benchmarking ", 0) == 0 || line.find("MPI Benchmark") != std::string::npos)
      return Format::kImb;
  }
  throw ImportError(
      "not an IMB, OSU or SKaMPI output file (found no '# Benchmarking' table of IMB, no '# OSU' "
      "title and no SKaMPI '# begin result')");
}

StoredRun parse_imb_text(const std::string& text) {
  StoredRun run;
  run.source = "import:imb";
  run.ok = true;
  auto& info = run.info;
  info.suite = "imb";
  const auto lines = lines_of(text);
  std::string value;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
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
    } else if (line.rfind("# Calling sequence was", 0) == 0) {
      // The command line follows on '#' lines up to the next blank line.
      std::size_t j = i + 1;
      while (j < lines.size() && trim(lines[j]).empty()) ++j;
      for (; j < lines.size() && !trim(lines[j]).empty() && lines[j][0] == '#'; ++j)
        for (const auto& w : words(lines[j].substr(1))) info.command_line.push_back(w);
      i = j;
    } else if (line.rfind("# Benchmarking ", 0) == 0) {
      core::BenchmarkRun b;
      b.name = trim(line.substr(15));
      b.sized = false;
      std::vector<std::string> columns;
      std::size_t j = i + 1;
      for (; j < lines.size(); ++j) {
        const std::string& h = lines[j];
        int n = 0, g = 0;
        if (std::sscanf(h.c_str(), "# #processes = %d", &n) == 1) b.nprocs = n;
        if (std::sscanf(h.c_str(), "# ( %d groups of %d processes", &g, &n) == 2) {
          b.nprocs = n;
          b.multi = true;
          b.groups.assign(static_cast<std::size_t>(g), {});
        }
        if (std::sscanf(h.c_str(), "# ( %d additional process", &n) == 1) b.inactive = n;
        if (h.find("MODE:") != std::string::npos)
          b.mode = core::to_lower(trim(h.substr(h.find("MODE:") + 5)));
        if (!h.empty() && h[0] != '#' && h.find("#repetitions") != std::string::npos) {
          columns = words(h);
          break;
        }
        if (h.rfind("# Benchmarking ", 0) == 0) break;
      }
      if (columns.empty())
        throw ImportError("table '" + b.name + "' has no column headings (#repetitions …)");
      b.sized = std::find(columns.begin(), columns.end(), "#bytes") != columns.end();
      b.has_throughput = std::find(columns.begin(), columns.end(), "Mbytes/sec") != columns.end();
      b.overlap = std::find(columns.begin(), columns.end(), "t_ovrl[usec]") != columns.end();
      b.check = std::find(columns.begin(), columns.end(), "defects") != columns.end();
      std::map<std::size_t, std::size_t> row_of_bytes;  // Multi rows: one row per length
      for (++j; j < lines.size(); ++j) {
        const std::string t = trim(lines[j]);
        if (t.empty()) {
          if (b.rows.empty() || columns[0] == "Group") continue;
          break;
        }
        if (t[0] == '#' || t[0] == '!') break;
        const auto cells = words(t);
        double first = 0;
        if (!to_number(cells[0], first)) break;
        core::Measurement m = blank_row();
        std::optional<int> group;
        std::size_t c = 0;
        bool complete = cells.size() == columns.size();
        for (; complete && c < columns.size(); ++c) {
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
          continue;
        }
        for (c = 0; c < columns.size(); ++c) {
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
            m.mbytes_per_sec = v;  // converted below once the whole title is known
          else if (col == "defects")
            m.defects = v;
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
          continue;
        }
        b.rows.push_back(m);
      }
      i = j - 1;
      run.benchmarks.push_back(std::move(b));
    }
  }
  if (run.benchmarks.empty()) throw ImportError("no IMB table ('# Benchmarking …') found");
  normalise_imb_units_and_names(run);
  info.world_size = world_size_of(run);
  for (const auto& b : run.benchmarks)
    if (std::find(info.benchmarks.begin(), info.benchmarks.end(), b.name) == info.benchmarks.end())
      info.benchmarks.push_back(b.name);
  return run;
}

// ---- OSU ----------------------------------------------------------------------------------

namespace {

// "# OSU MPI Allreduce Latency Test v7.3" -> osu_allreduce; the point-to-point tests keep the
// names of their programs.
std::string osu_program(const std::string& title) {
  static const std::vector<std::pair<std::string, std::string>> known = {
      {"Bi-Directional Bandwidth", "osu_bibw"},
      {"Multiple Bandwidth / Message Rate", "osu_mbw_mr"},
      {"Multi-threaded Latency", "osu_latency_mt"},
      {"Multiple Latency", "osu_multi_lat"},
      {"Bandwidth", "osu_bw"},
      {"Latency", "osu_latency"}};
  std::string t = title;
  static const std::regex head(R"(^#\s*OSU\s+(MPI(-\w+)?\s+)?(.*?)\s+Test\b.*$)");
  std::smatch m;
  if (std::regex_match(t, m, head)) t = m[3];
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
  std::string body = trim(heading.substr(1));
  std::regex sep(R"(\s{2,}|\t+)");
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

bool is_point_to_point(const std::string& program) {
  return program == "osu_latency" || program == "osu_bw" || program == "osu_bibw" ||
         program == "osu_latency_mt";
}

}  // namespace

StoredRun parse_osu_text(const std::string& text) {
  StoredRun run;
  run.source = "import:osu";
  run.ok = true;
  run.info.suite = "osu";
  run.info.suite_title = "OSU Micro-Benchmarks";
  const auto lines = lines_of(text);
  core::BenchmarkRun* current = nullptr;
  std::vector<std::string> columns;
  for (const auto& raw : lines) {
    const std::string line = trim(raw);
    if (line.rfind("# OSU ", 0) == 0) {
      core::BenchmarkRun b;
      b.name = osu_program(line);
      b.family = is_point_to_point(b.name) ? "single_transfer" : "collective";
      b.nprocs = is_point_to_point(b.name) ? 2 : 0;  // collectives: not in the file
      b.sized = false;
      run.benchmarks.push_back(b);
      current = &run.benchmarks.back();
      columns.clear();
      if (run.info.suite_title == "OSU Micro-Benchmarks") {
        static const std::regex version(R"(\bv(\d[\w.]*))");
        std::smatch m;
        if (std::regex_search(line, m, version))
          run.info.suite_title = "OSU Micro-Benchmarks " + m[1].str();
      }
      continue;
    }
    if (!current) continue;
    if (line.rfind('#', 0) == 0) {
      const std::string body = trim(line.substr(1));
      const auto colon = body.find(':');
      if (body.rfind("Size", 0) == 0 || body.find("Latency") != std::string::npos ||
          body.find("MB/s") != std::string::npos) {
        columns = osu_columns(line);
        current->sized = !columns.empty() && columns[0] == "Size";
      } else if (colon != std::string::npos) {
        // "# Datatype: MPI_CHAR.", "# Window creation: MPI_Win_allocate", …
        std::string v = trim(body.substr(colon + 1));
        if (!v.empty() && v.back() == '.') v.pop_back();
        current->parameters[core::to_lower(trim(body.substr(0, colon)))] = v;
      }
      continue;
    }
    if (columns.empty() || line.empty()) continue;
    const auto cells = words(line);
    if (cells.size() != columns.size()) continue;  // launcher chatter between the tables
    core::Measurement m = blank_row();
    bool numeric = true;
    for (std::size_t c = 0; c < cells.size() && numeric; ++c) {
      double v = 0;
      if (!to_number(cells[c], v)) {
        numeric = false;
        break;
      }
      const std::string& col = columns[c];
      if (col == "Size")
        m.bytes = static_cast<std::size_t>(v);
      else if (col == "Latency (us)" || col == "Avg Latency(us)" || col == "Latency(us)")
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
      else
        m.values.push_back({col, v, unit_in(col)});
    }
    if (!numeric) continue;
    if (m.mbytes_per_sec) current->has_throughput = true;
    current->rows.push_back(m);
  }
  std::erase_if(run.benchmarks, [](const core::BenchmarkRun& b) { return b.rows.empty(); });
  if (run.benchmarks.empty())
    throw ImportError("an OSU title but no table of numbers under a '# Size …' heading");
  for (const auto& b : run.benchmarks) run.info.benchmarks.push_back(b.name);
  run.info.world_size = world_size_of(run);
  return run;
}

// ---- SKaMPI -------------------------------------------------------------------------------

StoredRun parse_skampi_text(const std::string& text) {
  StoredRun run;
  run.source = "import:skampi";
  run.ok = true;
  run.info.suite = "skampi";
  run.info.suite_title = "SKaMPI";
  const auto lines = lines_of(text);
  static const std::regex begin_re(R"re(^#\s*begin result\s+"([^"]*)")re");
  static const std::regex end_re(R"re(^#\s*end result)re");
  std::string result;                           // the open "# begin result" block
  std::map<std::string, std::size_t> table_of;  // result + parameters -> benchmark index
  bool in_result = false;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string line = trim(lines[n]);
    std::smatch m;
    if (line.rfind("# SKaMPI", 0) == 0) {
      run.info.suite_title = trim(line.substr(2));
    } else if (line.rfind("# Started at", 0) == 0) {
      run.info.date = trim(line.substr(12));
    } else if (std::regex_search(line, m, begin_re)) {
      result = m[1];
      in_result = true;
    } else if (std::regex_search(line, m, end_re)) {
      in_result = false;
    } else if (in_result && !line.empty() && line[0] != '#') {
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
          throw ImportError("line " + std::to_string(n + 1) + ": '" + cells[c] +
                            "' is not a number in result \"" + result + "\"");
        nums.push_back(v);
      }
      const bool sized = keys.count("count") > 0;
      const std::size_t needed = sized ? 4 : 3;
      if (nums.size() < needed)
        throw ImportError(
            "line " + std::to_string(n + 1) + ": expected " +
            (sized ? "bytes, time, error and repetitions" : "time, error and repetitions") +
            " in result \"" + result + "\"");
      core::Measurement row = blank_row();
      std::size_t k = 0;
      if (sized) row.bytes = static_cast<std::size_t>(nums[k++]);
      row.t_avg_us = nums[k++];
      row.values.push_back({"std_error", nums[k++], "microseconds"});
      row.repetitions = static_cast<int>(nums[k++]);
      row.rank_times_us.assign(nums.begin() + static_cast<long>(k), nums.end());
      for (const auto& [key, v] : keys)
        if (key == "count") row.values.push_back({"count", std::stod(v), "elements"});

      std::map<std::string, std::string> params;
      int nprocs = static_cast<int>(row.rank_times_us.size());
      for (const auto& [key, v] : keys) {
        if (key == "count") continue;
        if (key == "nodes" || key == "procs")
          nprocs = std::stoi(v);
        else
          params[key] = v;
      }
      std::string id = result + "|" + std::to_string(nprocs);
      for (const auto& [key, v] : params) id += "|" + key + "=" + v;
      auto [it, fresh] = table_of.try_emplace(id, run.benchmarks.size());
      if (fresh) {
        core::BenchmarkRun b;
        b.name = result;
        b.family = "skampi";
        b.sized = sized;
        b.nprocs = nprocs;
        b.parameters = params;
        run.benchmarks.push_back(b);
      }
      run.benchmarks[it->second].rows.push_back(row);
    }
  }
  if (run.benchmarks.empty())
    throw ImportError("no SKaMPI measurement ('# begin result \"…\"' followed by rows) found");
  for (const auto& b : run.benchmarks)
    if (std::find(run.info.benchmarks.begin(), run.info.benchmarks.end(), b.name) ==
        run.info.benchmarks.end())
      run.info.benchmarks.push_back(b.name);
  run.info.world_size = world_size_of(run);
  return run;
}

StoredRun import_file(const std::string& path) {
  if (std::error_code ignored; std::filesystem::is_directory(path, ignored))
    throw ImportError("'" + path + "' is a directory, not an output file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ImportError("cannot read '" + path + "': " + std::strerror(errno));
  const std::string text = buffer.str();
  if (text.find('\0') != std::string::npos)
    throw ImportError("'" + path + "' is a binary file, not an IMB, OSU or SKaMPI text output");
  try {
    const Format f = detect_format(text);
    StoredRun run = f == Format::kImb   ? parse_imb_text(text)
                    : f == Format::kOsu ? parse_osu_text(text)
                                        : parse_skampi_text(text);
    run.source_file = path;
    return run;
  } catch (const ImportError& e) {
    throw ImportError("'" + path + "': " + e.what());
  }
}

}  // namespace mpiscope::db
