#include "suites/skampi/output_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/convergence.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"

namespace mpiscope::skampi {

namespace {
const char* const kMagic = kOutputFileMagic;
const char* kColumns =
    "argument bytes nprocs chunks t_us stderr_us raw_us empty_us repetitions used converged "
    "defects "
    "node_times_us";

std::string num(double v, int digits = 6) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// An accurate row's statistics from the file's columns `a`, with what the file derives from the
// row's other columns, and the note of a window fall-back (the note itself is not in the file).
void attach_accurate_columns(PointRow& p, core::AccurateStats a) {
  auto& m = a.summary_us;
  m.median_ci.available = m.median_ci.confidence > 0;
  m.median = p.t_us;
  m.n = static_cast<std::size_t>(p.used);
  a.valid = p.used;
  a.attempted = p.repetitions;
  p.accurate = a;
  if (a.fell_back)
    p.note =
        "window sync: too many repetitions started late or overran their window; measured "
        "with " +
        a.sync + " instead";
}

bool accurate_suite(const SuiteResult& r) {
  const auto it = r.params.find("method");
  return it != r.params.end() && it->second == "accurate";
}

// Accurate mode: the row is the median over the valid repetitions and its statistics.
core::Measurement accurate_measurement_of(const PointRow& p, const std::string& unit) {
  core::Measurement m;
  const auto& a = *p.accurate;
  const auto& s = a.summary_us;
  m.accurate = a;
  m.bytes = static_cast<std::size_t>(p.bytes);
  m.measured = a.valid > 0;
  m.repetitions = a.valid;
  m.t_min_us = s.min;
  m.t_max_us = s.max;
  m.t_avg_us = s.mean;
  m.values = {{"argument", static_cast<double>(p.argument), unit},
              {"nprocs", static_cast<double>(p.nprocs), "processes"},
              {"chunks", static_cast<double>(p.chunks), "chunks"},
              {"t", p.t_us, "us"},
              {"ci95_low", s.median_ci.lower, "us"},
              {"ci95_high", s.median_ci.upper, "us"},
              {"standard_error", p.stderr_us, "us"},
              {"invalid_repetitions", static_cast<double>(a.late + a.overrun), "repetitions"},
              {"converged", p.converged ? 1.0 : 0.0, "bool"},
              {"defects", static_cast<double>(p.defects), "bytes"}};
  std::vector<std::string> notes;
  if (!p.note.empty()) notes.push_back(p.note);
  if (a.valid == 0 && p.note.empty()) notes.push_back("no valid repetition");
  // Files of earlier versions: the core's "not converged: …" note is already there otherwise.
  if (a.valid > 0 && !p.converged && p.note.find(core::kNotConvergedPrefix) == std::string::npos)
    notes.push_back("stopped by the " + a.stop_reason +
                    " before the 95% interval of the median was within the target");
  for (const auto& n : notes) m.note += (m.note.empty() ? "" : "; ") + n;
  return m;
}
}  // namespace

const char* const kAccurateColumns =
    "ci95_low_us ci95_high_us ci_confidence min_us p05_us p25_us p75_us p95_us p99_us max_us "
    "mean_us outliers late overrun stop_reason sync time_definition fell_back window_us "
    "clock_offset_max_us clock_drift_max";

std::string format_row(const PointRow& p, int digits) {
  std::string nodes;
  for (double t : p.node_times_us) nodes += (nodes.empty() ? "" : ",") + num(t, digits);
  std::string s = std::to_string(p.argument) + " " + std::to_string(p.bytes) + " " +
                  std::to_string(p.nprocs) + " " + std::to_string(p.chunks) + " " +
                  num(p.t_us, digits) + " " + num(p.stderr_us, digits) + " " +
                  num(p.raw_us, digits) + " " + num(p.empty_us, digits) + " " +
                  std::to_string(p.repetitions) + " " + std::to_string(p.used) + " " +
                  (p.converged ? "1" : "0") + " " + std::to_string(p.defects) + " " +
                  (nodes.empty() ? "-" : nodes);
  if (p.accurate) {
    const auto& a = *p.accurate;
    const auto& m = a.summary_us;
    for (double v : {m.median_ci.lower, m.median_ci.upper, m.median_ci.confidence, m.min, m.p05,
                     m.p25, m.p75, m.p95, m.p99, m.max, m.mean})
      s += " " + num(v, digits);
    s += " " + std::to_string(m.outliers) + " " + std::to_string(a.late) + " " +
         std::to_string(a.overrun) + " " + a.stop_reason + " " + a.sync + " " + a.time_definition +
         " " + (a.fell_back ? "1" : "0") + " " + num(a.window_us, digits) + " " +
         num(a.clock_offset_max_us, digits) + " " + num(a.clock_drift_max, digits);
  }
  return s;
}

bool parse_row(const std::string& line, bool accurate, PointRow& p) {
  std::istringstream row(line);
  int conv = 0;
  std::string nodes;
  if (!(row >> p.argument >> p.bytes >> p.nprocs >> p.chunks >> p.t_us >> p.stderr_us >> p.raw_us >>
        p.empty_us >> p.repetitions >> p.used >> conv >> p.defects >> nodes))
    return false;
  p.converged = conv != 0;
  if (nodes != "-") {
    std::stringstream ns(nodes);
    std::string x;
    while (std::getline(ns, x, ',')) {
      char* end = nullptr;
      p.node_times_us.push_back(std::strtod(x.c_str(), &end));
      if (x.empty() || *end != '\0') return false;
    }
  }
  if (!accurate) return true;
  core::AccurateStats a;
  auto& m = a.summary_us;
  int fell_back = 0;
  if (!(row >> m.median_ci.lower >> m.median_ci.upper >> m.median_ci.confidence >> m.min >> m.p05 >>
        m.p25 >> m.p75 >> m.p95 >> m.p99 >> m.max >> m.mean >> m.outliers >> a.late >> a.overrun >>
        a.stop_reason >> a.sync >> a.time_definition >> fell_back >> a.window_us >>
        a.clock_offset_max_us >> a.clock_drift_max))
    return true;  // a merged (postproc) row: medians over runs, no statistics of repetitions
  a.fell_back = fell_back != 0;
  attach_accurate_columns(p, a);
  return true;
}

PointRow as_written(const PointRow& p) {
  if (!p.accurate) return p;
  PointRow out = p;
  const auto& a = *p.accurate;
  const auto& s = a.summary_us;
  core::AccurateStats kept;
  auto& k = kept.summary_us;
  k.median_ci.lower = s.median_ci.lower;
  k.median_ci.upper = s.median_ci.upper;
  k.median_ci.confidence = s.median_ci.confidence;
  k.min = s.min;
  k.p05 = s.p05;
  k.p25 = s.p25;
  k.p75 = s.p75;
  k.p95 = s.p95;
  k.p99 = s.p99;
  k.max = s.max;
  k.mean = s.mean;
  k.outliers = s.outliers;
  kept.late = a.late;
  kept.overrun = a.overrun;
  kept.stop_reason = a.stop_reason;
  kept.sync = a.sync;
  kept.time_definition = a.time_definition;
  kept.fell_back = a.fell_back;
  kept.window_us = a.window_us;
  kept.clock_offset_max_us = a.clock_offset_max_us;
  kept.clock_drift_max = a.clock_drift_max;
  attach_accurate_columns(out, kept);
  return out;
}

std::string format_header(const std::vector<std::pair<std::string, std::string>>& header) {
  std::string s = std::string(kMagic) + " " + std::to_string(kOutputFormatVersion) + "\n";
  s += "# mpiscope skampi output file; format described in docs/skampi.md\n";
  for (const auto& [k, v] : header) s += "@" + k + " " + v + "\n";
  return s;
}

std::string format_suite(const SuiteResult& r) {
  std::string s = "@BEGIN_SUITE " + r.name + "\n";
  s += "@TYPE " + std::to_string(r.type) + "\n";
  s += "@OPERATION " + r.operation + "\n";
  s += "@PATTERN " + r.pattern + "\n";
  s += "@VARIATION " + r.variation + "\n";
  s += "@ARGUMENT_UNIT " + r.argument_unit + "\n";
  for (const auto& [k, v] : r.params) s += "@PARAM " + k + " " + v + "\n";
  s += std::string("@COLUMNS ") + kColumns +
       (std::any_of(r.rows.begin(), r.rows.end(), [](const PointRow& p) { return p.accurate; })
            ? std::string(" ") + kAccurateColumns
            : std::string()) +
       "\n";
  for (const auto& p : r.rows) s += format_row(p) + "\n";
  s += "@END_SUITE " + r.name + "\n";
  return s;
}

std::string format_end() {
  return "@END_RUN\n";
}

OutputReader::OutputReader(std::string name, SuiteSink on_suite)
    : name_(std::move(name)), on_suite_(std::move(on_suite)) {}

void OutputReader::fail(const std::string& what, std::size_t line) const {
  throw std::runtime_error((name_.empty() ? "line " : name_ + ":") + std::to_string(line) + ": " +
                           what);
}

void OutputReader::line(const std::string& text) {
  ++lines_;
  if (malformed_line_) fail("malformed data row", malformed_line_);  // it was not the last line
  if (lines_ == 1) {
    if (text.rfind(kMagic, 0) != 0) fail("not a SKaMPI output file (no #SKAMPI-OUTPUT line)", 1);
    file_.version = std::atoi(text.c_str() + std::string(kMagic).size());
    if (file_.version != kOutputFormatVersion)
      fail("output format version " + std::to_string(file_.version) + " is not supported", 1);
    return;
  }
  if (text.empty() || text[0] == '#') return;
  if (text[0] == '@') {
    const auto sp = text.find(' ');
    const std::string key = text.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    const std::string val = sp == std::string::npos ? "" : text.substr(sp + 1);
    if (key == "BEGIN_SUITE") {
      if (in_suite_) fail("@BEGIN_SUITE inside suite " + suite_.name, lines_);
      suite_ = SuiteResult{};
      suite_.name = val;
      in_suite_ = true;
    } else if (key == "END_SUITE") {
      if (!in_suite_ || val != suite_.name) fail("@END_SUITE without its @BEGIN_SUITE", lines_);
      in_suite_ = false;
      on_suite_(std::move(suite_));
      suite_ = SuiteResult{};
    } else if (key == "END_RUN") {
      file_.complete = true;
    } else if (!in_suite_) {
      file_.header.emplace_back(key, val);
    } else if (key == "TYPE") {
      suite_.type = std::atoi(val.c_str());
    } else if (key == "OPERATION") {
      suite_.operation = val;
    } else if (key == "PATTERN") {
      suite_.pattern = val;
    } else if (key == "VARIATION") {
      suite_.variation = val;
    } else if (key == "ARGUMENT_UNIT") {
      suite_.argument_unit = val;
    } else if (key == "PARAM") {
      const auto s2 = val.find(' ');
      suite_.params[val.substr(0, s2)] = s2 == std::string::npos ? "" : val.substr(s2 + 1);
    }
    return;
  }
  if (!in_suite_) fail("data outside a suite block", lines_);
  PointRow p;
  if (!parse_row(text, accurate_suite(suite_), p)) {
    malformed_line_ = lines_;  // torn if no line follows
    return;
  }
  suite_.rows.push_back(std::move(p));
}

OutputFile OutputReader::finish() {
  if (lines_ == 0) fail("empty, not a SKaMPI output file (no #SKAMPI-OUTPUT line)", 0);
  if (in_suite_) file_.torn_suite = suite_.name;
  return file_;
}

OutputFile parse_output(const std::string& text, const std::string& name) {
  std::vector<SuiteResult> suites;
  OutputReader reader(name, [&](SuiteResult&& s) { suites.push_back(std::move(s)); });
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) reader.line(line);
  OutputFile f = reader.finish();
  f.suites = std::move(suites);
  return f;
}

OutputFile read_output(const std::string& path) {
  return parse_output(core::read_text_file(path, "a SKaMPI output file", core::kOutputFileLimits),
                      path);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

OutputFile postprocess(const std::vector<OutputFile>& runs) {
  if (runs.empty()) throw std::invalid_argument("postproc needs at least one output file");
  OutputFile out;
  out.header = runs[0].header;
  out.header.emplace_back("POSTPROC", "median of " + std::to_string(runs.size()) + " runs");
  out.complete = true;
  std::vector<std::string> order;
  for (const auto& r : runs)
    for (const auto& s : r.suites)
      if (std::find(order.begin(), order.end(), s.name) == order.end()) order.push_back(s.name);
  for (const auto& name : order) {
    SuiteResult merged;
    std::map<long, std::vector<const PointRow*>> by_arg;
    for (const auto& r : runs)
      for (const auto& s : r.suites)
        if (s.name == name) {
          if (merged.name.empty()) {
            merged = s;
            merged.rows.clear();
          }
          const auto method = [](const SuiteResult& x) {
            const auto it = x.params.find("method");
            return it == x.params.end() ? std::string("classic") : it->second;
          };
          if (method(s) != method(merged)) merged.params["method"] = "mixed";
          for (const auto& p : s.rows) by_arg[p.argument].push_back(&p);
        }
    for (const auto& entry : by_arg) {
      const auto& ps = entry.second;  // not a structured binding: lambdas capture it
      PointRow m = *ps[0];
      auto med = [&](double PointRow::*f) {
        std::vector<double> v;
        for (auto* p : ps) v.push_back(p->*f);
        return median(v);
      };
      m.t_us = med(&PointRow::t_us);
      m.stderr_us = med(&PointRow::stderr_us);
      m.raw_us = med(&PointRow::raw_us);
      m.empty_us = med(&PointRow::empty_us);
      m.repetitions = static_cast<int>(ps.size());
      m.used = static_cast<int>(ps.size());
      m.converged = std::all_of(ps.begin(), ps.end(), [](auto* p) { return p->converged; });
      m.defects = 0;
      for (auto* p : ps) m.defects += p->defects;
      m.accurate.reset();  // a median over runs, not a statistic of one run's repetitions
      m.note.clear();
      for (std::size_t k = 0; k < m.node_times_us.size(); ++k) {
        std::vector<double> v;
        for (auto* p : ps)
          if (k < p->node_times_us.size()) v.push_back(p->node_times_us[k]);
        m.node_times_us[k] = median(v);
      }
      merged.rows.push_back(m);
    }
    merged.params["runs"] = std::to_string(by_arg.empty() ? 0 : runs.size());
    out.suites.push_back(merged);
  }
  return out;
}

std::string format_output(const OutputFile& f) {
  std::string s = format_header(f.header);
  for (const auto& x : f.suites) s += format_suite(x);
  if (f.complete) s += format_end();
  return s;
}

core::BenchmarkRun benchmark_of(const SuiteResult& s, int world_size) {
  core::BenchmarkRun b;
  b.name = s.name;
  b.family = s.pattern;
  b.nprocs = s.rows.empty() ? world_size : s.rows.back().nprocs;
  b.sized = s.argument_unit == "bytes";
  b.parameters = s.params;
  b.parameters.erase(kPairParam);
  b.parameters.erase(kTimeSuiteParam);
  b.parameters["type"] = std::to_string(s.type);
  b.parameters["operation"] = s.operation;
  b.parameters["variation"] = s.variation;
  b.parameters["argument_unit"] = s.argument_unit;
  b.accurate = s.params.count("method") && s.params.at("method") == "accurate";
  return b;
}

core::Measurement measurement_of(const PointRow& p, const std::string& argument_unit) {
  if (p.accurate) return accurate_measurement_of(p, argument_unit);
  core::Measurement m;
  m.bytes = static_cast<std::size_t>(p.bytes);
  m.repetitions = p.repetitions;
  m.measured = true;
  m.t_avg_us = m.t_min_us = m.t_max_us = p.t_us;
  m.rank_times_us = p.node_times_us;
  m.values = {{"argument", static_cast<double>(p.argument), argument_unit},
              {"nprocs", static_cast<double>(p.nprocs), "processes"},
              {"chunks", static_cast<double>(p.chunks), "chunks"},
              {"t", p.t_us, "us"},
              {"standard_error", p.stderr_us, "us"},
              {"raw_mean", p.raw_us, "us"},
              {"empty", p.empty_us, "us"},
              {"used_repetitions", static_cast<double>(p.used), "repetitions"},
              {"converged", p.converged ? 1.0 : 0.0, "bool"},
              {"defects", static_cast<double>(p.defects), "bytes"}};
  if (!p.converged)
    m.note = !p.note.empty() ? p.note
             : p.t_us < 0    ? kBelowZeroNote
                             : "standard error not reached within Max_Repetition/Time_Measurement";
  return m;
}

std::vector<std::string> suite_notes(const SuiteResult& s) {
  std::vector<std::string> notes;
  auto param = [&](const char* name) {
    const auto it = s.params.find(name);
    return it == s.params.end() ? std::string() : it->second;
  };
  if (const auto n = param("method_note"); !n.empty())
    notes.push_back("suite " + s.name + ": " + n);
  if (const auto n = param("grid_thinned"); !n.empty())
    notes.push_back("suite " + s.name + ": the grid was thinned to " + n);
  if (const auto n = param(kTimeSuiteParam); !n.empty())
    notes.push_back("suite " + s.name + ": " + n);
  return notes;
}

std::map<std::string, std::string> suite_settings(const SuiteResult& s) {
  std::map<std::string, std::string> settings;
  if (const auto it = s.params.find(kPairParam); it != s.params.end())
    settings[kPairSetting] = it->second;
  return settings;
}

}  // namespace mpiscope::skampi
