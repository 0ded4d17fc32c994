#include "html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "core/convergence.hpp"
#include "core/curve_model.hpp"
#include "report/compare.hpp"
#include "report/summary.hpp"
#include "report_assets.hpp"
#include "suites/guidelines/guidelines.hpp"
#include "suites/imb/p2p/benchmarks.hpp"
#include "suites/tune/tune.hpp"

namespace mpiscope::report {

using nlohmann::json;

std::optional<double> bytes_per_second_of(const std::string& unit) {
  const auto has = [&](const char* s) { return unit.find(s) != std::string::npos; };
  const bool per_second = has("/s");
  if (!per_second) return std::nullopt;
  if (unit.rfind("MiB/s", 0) == 0 || unit.rfind("Mbytes/sec", 0) == 0 || has("2^20"))
    return 1048576.0;
  if (unit.rfind("MB/s", 0) == 0 && (has("1e6") || has("10^6"))) return 1e6;
  return std::nullopt;
}

namespace {

struct Units {
  double bytes_per_second;
  const char* name;
  const char* definition;
};

Units units_of(BandwidthUnit u) {
  return u == BandwidthUnit::kMB ? Units{1e6, "MB/s", "MB/s = 10^6 bytes per second"}
                                 : Units{1048576.0, "MiB/s", "MiB/s = 2^20 bytes per second"};
}

// A value and its unit in the page's bandwidth unit when it is a bandwidth, else as stored.
json value_in(double value, const std::string& unit, const Units& page) {
  if (const auto bps = bytes_per_second_of(unit))
    return json::array({value * *bps / page.bytes_per_second, page.name});
  return json::array({value, unit});
}

json run_meta(const db::StoredRun& r) {
  const auto& i = r.info;
  std::string hosts;
  for (const auto& [h, n] : i.ranks_per_host)
    hosts += (hosts.empty() ? "" : ", ") + h + " (" + std::to_string(n) + " ranks)";
  std::string command;
  for (const auto& w : i.command_line) command += (command.empty() ? "" : " ") + w;
  json meta = json::array();
  auto add = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) meta.push_back({k, v});
  };
  add("Run", std::to_string(r.id));
  add("Source", r.source + (r.source_file.empty() ? "" : " (" + r.source_file + ")"));
  add("Suite", i.suite + (i.suite_title.empty() ? "" : " - " + i.suite_title));
  add("Date", i.date_iso.empty() ? i.date : i.date_iso);
  add("Complete", r.complete ? (r.ok ? "yes" : "yes, some measurements could not run")
                             : "no (interrupted: only the finished measurements are stored)");
  add("Processes", i.world_size ? std::to_string(i.world_size) : "");
  add("Hosts", hosts);
  add("MPI library", i.mpi_library);
  add("MPI version", i.mpi_version);
  add("Thread level", i.thread_level);
  add("Machine", i.machine + " " + i.system + " " + i.release);
  add("mpiscope",
      i.mpiscope_version.empty() ? "" : i.mpiscope_version + " (commit " + i.mpiscope_commit + ")");
  add("Command line", command);
  for (const auto& [k, v] : i.settings) add("setting " + k, v);
  for (const auto& n : r.notes) add("note", n);
  return meta;
}

// "2 hosts x 4 ranks" (ranks per host) when every host runs as many, else "3 hosts, 7 ranks";
// empty when the run does not say (imports).
std::string hosts_by_ranks(const core::RunInfo& i) {
  const auto hosts = i.ranks_per_host.size();
  if (hosts == 0) return i.world_size ? std::to_string(i.world_size) + " ranks" : "";
  std::set<int> per_host;
  for (const auto& [h, n] : i.ranks_per_host) per_host.insert(n);
  const std::string h = std::to_string(hosts) + (hosts == 1 ? " host" : " hosts");
  if (per_host.size() == 1) return h + " \u00d7 " + std::to_string(*per_host.begin()) + " ranks";
  return h + ", " + std::to_string(i.world_size) + " ranks";
}

bool is_accurate(const core::BenchmarkRun& b) {
  const auto m = b.parameters.find("measurement");
  return b.accurate || (m != b.parameters.end() && m->second == "accurate");
}

// The interval a row records about its time: accurate mode's 95 % interval of the median, or
// SKaMPI's standard error around its mean.
void add_interval(const core::Measurement& m, double t_us, json& row) {
  if (const auto ci = median_interval(m)) {
    row["lo"] = number_or_null(ci->low);
    row["hi"] = number_or_null(ci->high);
    row["interval"] = "95% interval of the median";
  } else if (const auto* se = m.value("standard_error"); se && std::isfinite(t_us)) {
    row["lo"] = number_or_null(t_us - se->value);
    row["hi"] = number_or_null(t_us + se->value);
    row["interval"] = "mean \u00b1 standard error";
  }
}

json table_data(const core::BenchmarkRun& b, const Units& units) {
  const std::string key = table_key(b);
  json params = json::object();
  for (const auto& [k, v] : b.parameters) params[k] = v;
  // SKaMPI's rows carry their own argument (bytes, processes or chunks): the natural axis.
  const auto argument_unit = b.parameters.find("argument_unit");
  json jt = {{"key", key},
             {"name", b.name},
             {"mode", b.mode},
             {"nprocs", b.nprocs},
             {"sized", b.sized},
             {"method", is_accurate(b) ? "accurate" : "classic"},
             {"params", params},
             {"axis", argument_unit == b.parameters.end() ? "bytes" : argument_unit->second},
             {"rows", json::array()}};
  // PRESTA's pairs (world ranks): each row also gives each pair's time, the longer of its two
  // ranks' samples (rank_times_us lists the active ranks in ascending order), for the per-pair
  // plot. Accurate rows have no per-rank samples and give none.
  std::vector<int> active;
  if (b.family == "presta_pair") {
    json pairs = json::array();
    for (const auto& g : b.groups) {
      if (g.size() != 2) continue;
      pairs.push_back(std::to_string(g[0]) + ":" + std::to_string(g[1]));
      active.insert(active.end(), g.begin(), g.end());
    }
    std::sort(active.begin(), active.end());
    jt["pairs"] = pairs;
  }
  auto pair_times = [&](const core::Measurement& m) {
    json times = json::array();
    for (const auto& g : b.groups) {
      if (g.size() != 2) continue;
      auto at = [&](int rank) {
        const auto i = std::lower_bound(active.begin(), active.end(), rank) - active.begin();
        return m.rank_times_us[static_cast<std::size_t>(i)];
      };
      times.push_back(number_or_null(std::max(at(g[0]), at(g[1]))));
    }
    return times;
  };
  for (const auto& m : b.rows) {
    if (!m.measured) continue;
    const double t = reported_time_us(m);
    json row = {{"bytes", m.bytes},
                {"repetitions", m.repetitions},
                {"t_us", number_or_null(t)},
                {"t_min_us", number_or_null(m.t_min_us)},
                {"t_max_us", number_or_null(m.t_max_us)},
                {"t_avg_us", number_or_null(m.t_avg_us)},
                {"bw", nullptr}};
    if (const auto* argument = m.value("argument")) row["x"] = argument->value;
    add_interval(m, t, row);
    json values = json::object();
    for (const auto& v : m.values) values[v.name] = value_in(v.value, v.unit, units);
    if (m.samples_us) {
      values["samples median"] = {m.samples_us->median, "microseconds"};
      values["samples p95"] = {m.samples_us->p95, "microseconds"};
    }
    if (m.overlap) values["overlap"] = {m.overlap->overlap_percent, "percent"};
    // The row's bandwidth: IMB's throughput (MiB/s, from t_max) or a suite's own figure.
    if (m.mbytes_per_sec)
      row["bw"] = *m.mbytes_per_sec * 1048576.0 / units.bytes_per_second;
    else if (values.contains("bandwidth") && values["bandwidth"][1] == units.name)
      row["bw"] = values["bandwidth"][0];
    row["values"] = values;
    if (!m.note.empty()) row["note"] = m.note;  // a warning, or map's verdict on a pair
    // Drawn hollow, with the reason in its tip.
    if (auto why = core::not_converged_reason(m)) row["not_converged"] = *why;
    if (!active.empty() && m.rank_times_us.size() == active.size()) row["pair_us"] = pair_times(m);
    jt["rows"].push_back(row);
  }
  // The curve's model (core/curve_model.hpp), drawn over the time plot: it is fitted to the
  // time the page plots as "time" (t_max, the median, or the time a suite printed).
  if (b.model) jt["model"] = json::parse(core::model_to_json(*b.model));
  return jt;
}

// A guidelines run's verdicts (suites/guidelines), ruled again on its stored tables with the
// run's tolerance: one entry per guideline both of whose tables the run holds.
json guidelines_data(const db::StoredRun& r) {
  const auto tolerance = r.info.settings.find("tolerance_percent");
  const double percent =
      tolerance == r.info.settings.end() ? 10 : std::strtod(tolerance->second.c_str(), nullptr);
  auto table = [&](const std::string& name) -> const core::BenchmarkRun* {
    for (const auto& b : r.benchmarks)
      if (b.name == name) return &b;
    return nullptr;
  };
  json list = json::array();
  for (const auto& g : guidelines::all_guidelines()) {
    const auto* c = table(g.collective);
    const auto* m = table(g.mock_up);
    if (!c || !m) continue;
    json points = json::array();
    for (const auto& row : c->rows)
      for (const auto& other : m->rows)
        if (other.bytes == row.bytes) {
          const auto v = guidelines::verdict(row, other, percent / 100);
          points.push_back({{"bytes", v.bytes},
                            {"factor", number_or_null(v.factor > 0 ? v.factor : std::nan(""))},
                            {"collective_us", number_or_null(v.collective_us)},
                            {"mock_up_us", number_or_null(v.mock_up_us)},
                            {"verdict", guidelines::verdict_name(v.verdict)},
                            {"why", v.why}});
        }
    list.push_back({{"name", g.name()}, {"collective", g.collective}, {"points", points}});
  }
  return {{"tolerance_percent", percent}, {"list", list}};
}

// A tune run's collectives (suites/tune): each algorithm's median over the rounds per length, and
// the choice per length, made again from the stored tables with the run's tolerance.
json tune_data(const db::StoredRun& r) {
  const auto setting = [&](const std::string& name, double otherwise) {
    const auto it = r.info.settings.find(name);
    return it == r.info.settings.end() ? otherwise : std::strtod(it->second.c_str(), nullptr);
  };
  const double percent = setting("tolerance_percent", 5);
  const int rounds = static_cast<int>(setting("rounds", 1));
  json collectives = json::array();
  for (const auto& [name, text] : r.info.settings) {
    if (name.rfind(tune::kAlgorithmsSettingPrefix, 0) != 0) continue;
    const auto v = tune::parse_algorithms_text(
        name.substr(std::string(tune::kAlgorithmsSettingPrefix).size()), text);
    if (!v) continue;
    // [algorithm][round] -> its table, if stored
    std::vector<std::vector<const core::BenchmarkRun*>> tables;
    for (const auto& a : v->algorithms) {
      tables.emplace_back();
      for (int round = 1; round <= rounds; ++round) {
        const core::BenchmarkRun* found = nullptr;
        for (const auto& b : r.benchmarks) {
          const auto alg = b.parameters.find("algorithm");
          const auto rnd = b.parameters.find("round");
          if (b.name == v->collective && alg != b.parameters.end() && alg->second == a.name &&
              (rnd == b.parameters.end() ? round == 1 : rnd->second == std::to_string(round)))
            found = &b;
        }
        tables.back().push_back(found);
      }
    }
    std::set<std::size_t> lengths;
    for (const auto& per_round : tables)
      for (const auto* t : per_round)
        if (t)
          for (const auto& m : t->rows) lengths.insert(m.bytes);
    json algorithms = json::array(), choices = json::array();
    for (std::size_t i = 0; i < v->algorithms.size(); ++i)
      algorithms.push_back({{"name", v->algorithms[i].name}, {"points", json::array()}});
    for (const auto bytes : lengths) {
      tune::RoundRows rows;
      for (std::size_t i = 0; i < tables.size(); ++i) {
        rows.emplace_back();
        for (const auto* t : tables[i]) {
          const core::Measurement* at = nullptr;
          if (t)
            for (const auto& m : t->rows)
              if (m.bytes == bytes) at = &m;
          rows.back().push_back(at);
        }
        if (const auto us = tune::median_over_rounds(rows.back()))
          algorithms[i]["points"].push_back({{"bytes", bytes}, {"us", number_or_null(*us)}});
      }
      const auto c = tune::choose(v->algorithms, rows, percent / 100);
      choices.push_back({{"bytes", bytes},
                         {"library_us", number_or_null(c.default_us)},
                         {"fastest", c.fastest.name},
                         {"fastest_us", number_or_null(c.fastest_us)},
                         {"changed", c.changed},
                         {"why", c.why}});
    }
    collectives.push_back({{"name", v->collective},
                           {"variable", v->variable},
                           {"algorithms", algorithms},
                           {"choices", choices}});
  }
  return {{"tolerance_percent", percent}, {"rounds", rounds}, {"collectives", collectives}};
}

}  // namespace

std::string table_key(const core::BenchmarkRun& b) {
  std::string key = b.name;
  if (!b.mode.empty()) key += " (" + b.mode + ")";
  for (const auto& [k, v] : b.parameters)
    if (!is_outcome_parameter(k)) key += ", " + k + "=" + v;
  return key;
}

json report_data(const std::vector<db::StoredRun>& runs, const std::string& db_path,
                 const ReportOptions& options) {
  const Units units = units_of(options.units);
  json data = {{"database", db_path},
               {"units", {{"bandwidth", units.name}, {"definition", units.definition}}},
               {"runs", json::array()}};
  for (const auto& r : runs) {
    std::string lib = short_library_name(r.info.mpi_library);
    if (lib.size() > 40) lib = lib.substr(0, 40) + "...";
    std::set<std::string> methods;
    for (const auto& b : r.benchmarks) methods.insert(is_accurate(b) ? "accurate" : "classic");
    json jr = {{"id", r.id},
               // --label or `mpiscope label`: the legend and the run picker show it.
               {"label", r.info.label},
               {"suite", r.info.suite},
               {"library", lib},
               {"hosts", hosts_by_ranks(r.info)},
               {"ranks", r.info.world_size},
               {"method", methods.size() == 1 ? *methods.begin() : "classic and accurate"},
               {"source", r.source},
               {"complete", r.complete},
               {"date", r.info.date_iso.empty() ? r.info.date : r.info.date_iso},
               {"meta", run_meta(r)},
               {"summary", json::array()},
               {"tables", json::array()}};
    for (const auto& s : r.summary) {
      const json v = value_in(s.value, s.unit, units);
      jr["summary"].push_back({{"name", s.name}, {"value", v[0]}, {"unit", v[1]}});
    }
    for (const auto& b : r.benchmarks) {
      json jt = table_data(b, units);
      // IMB-P2P's patterns side by side over the messages each rank sends (its card in
      // report.js).
      if (r.info.suite == "imb-p2p")
        if (const auto n = imb::p2p::sends_per_rank(b.name)) jt["sends_per_rank"] = *n;
      if (!jt["rows"].empty()) jr["tables"].push_back(std::move(jt));
    }
    if (r.info.suite == "guidelines") jr["guidelines"] = guidelines_data(r);
    if (r.info.suite == "tune") jr["tune"] = tune_data(r);
    data["runs"].push_back(jr);
  }
  if (options.comparison)
    data["comparison"] =
        comparison_json(options.comparison->a, options.comparison->b, options.comparison->result);
  // The page opens with the machine on one screen (report/summary.hpp).
  data["machine_summary"] = summary_json(machine_summary(runs));
  if (options.history) data["history"] = history_view_data(*options.history);
  return data;
}

json history_view_data(const HistoryView& view) {
  json runs = json::array();
  std::map<std::int64_t, std::int64_t> index;
  for (const auto& r : view.runs.runs) {
    index[r.id] = static_cast<std::int64_t>(runs.size());
    runs.push_back({r.id, run_date_text(r.info.date_iso, r.info.date, ""), r.info.label,
                    short_library_name(r.info.mpi_library)});
  }
  // 4 significant digits, printed as such (the shortest text that reads back the same value).
  auto rounded = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return std::strtod(text, nullptr);
  };
  json series = json::array();
  for (const auto& s : view.history.series) {
    json steps = json::array(), values = json::array(), changes = json::array(),
         possible = json::array();
    std::int64_t previous = 0;
    for (const auto& p : s.points) {
      steps.push_back(index.at(p.run) - previous);
      previous = index.at(p.run);
      values.push_back(rounded(p.us));
    }
    for (const auto* list : {&s.changes, &s.possible})
      for (const auto& c : *list) {
        json one = change_json(c);
        one["at"] = c.index;
        (list == &s.changes ? changes : possible).push_back(std::move(one));
      }
    series.push_back({{"table", s.table},
                      {"bytes", s.sized ? json(s.bytes) : json(nullptr)},
                      {"argument", s.argument ? json(*s.argument) : json(nullptr)},
                      {"steps", std::move(steps)},
                      {"us", std::move(values)},
                      {"unconverged", s.unconverged},
                      {"left_out", s.left_out},
                      {"cannot_tell", s.cannot_tell},
                      {"changes", std::move(changes)},
                      {"possible", std::move(possible)}});
  }
  return {{"runs", std::move(runs)},
          {"detail_runs", view.detail_runs},
          {"level", view.settings.level},
          {"series_level", view.history.series_level},
          {"possible_level", view.history.series_level * kPossibleChangeFactor},
          {"tested", view.history.tested},
          {"min_segment", view.settings.min_segment},
          {"min_change_percent", view.settings.min_change_percent},
          {"series", std::move(series)}};
}

namespace {

// The page's CSS and JavaScript live in src/report/assets/ and are compiled in by
// cmake/embed_assets.cmake (report_assets.hpp), so the page stays one file that needs no network.

// Keeps "</script>" and "<!--" inside the data from ending the script element.
std::string script_safe(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<')
      out += "\\u003c";
    else
      out += s[i];
  }
  return out;
}

}  // namespace

std::string render_html(const std::vector<db::StoredRun>& runs, const std::string& db_path,
                        const ReportOptions& options) {
  const std::string data = script_safe(report_data(runs, db_path, options).dump());
  const Units units = units_of(options.units);
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>mpiscope results</title>\n<style>";
  page += assets::kReportCss;
  page +=
      "</style>\n</head>\n<body>\n<header><h1>mpiscope results</h1><p>from <span "
      "id=\"dbpath\"></span> &middot; times in microseconds, bandwidth in ";
  page += units.definition;
  page +=
      "; log scales</p></header>\n"
      "<main><nav id=\"side\"></nav><div id=\"plots\"></div></main>\n"
      "<script type=\"application/json\" id=\"mpiscope-data\">";
  page += data;
  page += "</script>\n<script>";
  page += assets::kVegaJs;
  page += "</script>\n<script>";
  page += assets::kReportJs;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace mpiscope::report
