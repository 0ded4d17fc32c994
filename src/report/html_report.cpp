#include "html_report.hpp"

#include <cmath>

#include "report/compare.hpp"
#include "report_assets.hpp"

namespace mpiscope::report {

using nlohmann::json;

namespace {

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
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

}  // namespace

json report_data(const std::vector<db::StoredRun>& runs, const std::string& db_path) {
  json data = {{"database", db_path}, {"runs", json::array()}};
  for (const auto& r : runs) {
    std::string lib = short_library_name(r.info.mpi_library);
    if (lib.size() > 40) lib = lib.substr(0, 40) + "...";
    json jr = {
        {"id", r.id},
        {"label",
         "run " + std::to_string(r.id) + ": " + r.info.suite + (lib.empty() ? "" : ", " + lib) +
             (r.info.world_size ? ", " + std::to_string(r.info.world_size) + " ranks" : "") +
             (r.complete ? "" : " (incomplete)")},
        {"date", r.info.date_iso.empty() ? r.info.date : r.info.date_iso},
        {"meta", run_meta(r)},
        {"summary", json::array()},
        {"tables", json::array()}};
    for (const auto& s : r.summary)
      jr["summary"].push_back({{"name", s.name}, {"value", s.value}, {"unit", s.unit}});
    for (const auto& b : r.benchmarks) {
      std::string key = b.name;
      if (!b.mode.empty()) key += " (" + b.mode + ")";
      for (const auto& [k, v] : b.parameters)
        if (!is_outcome_parameter(k)) key += ", " + k + "=" + v;
      json jt = {{"key", key}, {"nprocs", b.nprocs}, {"sized", b.sized}, {"rows", json::array()}};
      for (const auto& m : b.rows) {
        if (!m.measured) continue;
        json row = {{"bytes", m.bytes},
                    {"repetitions", m.repetitions},
                    {"t_us", number_or_null(reported_time_us(m))},
                    {"t_min_us", number_or_null(m.t_min_us)},
                    {"t_max_us", number_or_null(m.t_max_us)},
                    {"t_avg_us", number_or_null(m.t_avg_us)},
                    {"mbytes_per_sec", m.mbytes_per_sec ? json(*m.mbytes_per_sec) : json(nullptr)}};
        json values = json::object();
        for (const auto& v : m.values) values[v.name] = {v.value, v.unit};
        if (m.samples_us) {
          values["samples median"] = {m.samples_us->median, "microseconds"};
          values["samples p95"] = {m.samples_us->p95, "microseconds"};
        }
        if (m.overlap) values["overlap"] = {m.overlap->overlap_percent, "percent"};
        row["values"] = values;
        jt["rows"].push_back(row);
      }
      if (!jt["rows"].empty()) jr["tables"].push_back(jt);
    }
    data["runs"].push_back(jr);
  }
  return data;
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

std::string render_html(const std::vector<db::StoredRun>& runs, const std::string& db_path) {
  const std::string data = script_safe(report_data(runs, db_path).dump());
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>mpiscope results</title>\n<style>";
  page += assets::kReportCss;
  page +=
      "</style>\n</head>\n<body>\n<header><h1>mpiscope results</h1><p>from <span "
      "id=\"dbpath\"></span> &middot; times in microseconds, bandwidth in MiB/s (2<sup>20</sup> "
      "bytes per second); log-log scales</p></header>\n"
      "<main><nav id=\"side\"></nav><div id=\"plots\"></div></main>\n"
      "<script type=\"application/json\" id=\"mpiscope-data\">";
  page += data;
  page += "</script>\n<script>";
  page += assets::kReportJs;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace mpiscope::report
