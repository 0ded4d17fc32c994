#include "suites/beff/json_output.hpp"

#include "output/files.hpp"
#include "output/json_reporter.hpp"

namespace mpiscope::beff {

using nlohmann::json;
using output::JsonReporter;

JsonOutput::JsonOutput(std::string path) : path_(std::move(path)) {
  output::ensure_writable(path_);
}

void JsonOutput::run_started(const core::RunInfo& info) {
  doc_ = {{"format", "mpiscope-results"},
          {"format_version", 1},
          {"complete", false},
          {"run", JsonReporter::run_info(info)},
          {"units", JsonReporter::units()},
          {"notes", json::array()},
          {"summary", json::array()},
          {"benchmarks", json::array()}};
  flush();  // the file exists, marked incomplete, while the measurement runs
}

void JsonOutput::benchmark_started(const core::BenchmarkRun& b) {
  json j = {{"name", b.name},       {"family", b.family},     {"mode", b.mode},
            {"overlap", b.overlap}, {"nprocs", b.nprocs},     {"multi", b.multi},
            {"groups", b.groups},   {"inactive", b.inactive}, {"sized", b.sized},
            {"check", b.check},     {"rows", json::array()}};
  if (!b.parameters.empty()) j["parameters"] = b.parameters;
  doc_["benchmarks"].push_back(j);
}

void JsonOutput::row(const core::BenchmarkRun&, const core::Measurement& m) {
  doc_["benchmarks"].back()["rows"].push_back(JsonReporter::measurement(m));
}

void JsonOutput::note(const std::string& text) {
  doc_["notes"].push_back(text);
}

void JsonOutput::summary(const core::NamedValue& v) {
  doc_["summary"].push_back({{"name", v.name}, {"value", v.value}, {"unit", v.unit}});
}

void JsonOutput::run_finished(const core::RunInfo&, bool ok) {
  doc_["complete"] = true;
  doc_["all_points_ran"] = ok;
  flush();
}

void JsonOutput::flush() {
  output::replace_file(path_, doc_.dump(1) + "\n");
}

}  // namespace mpiscope::beff
