#include "suites/skampi/text_output.hpp"

#include <cstdio>

#include "core/curve_model.hpp"
#include "suites/skampi/instances.hpp"
#include "suites/skampi/output_file.hpp"

namespace mpiscope::skampi {

void TextReporter::run_started(const core::RunInfo& info) {
  std::printf("# mpiscope skampi: %s\n# %d processes, MPI %s, %s\n",
              info.settings.at("config").c_str(), info.world_size, info.mpi_version.c_str(),
              info.date.c_str());
  std::printf("# Method: %s\n", info.settings.at("method_description").c_str());
  if (info.settings.at("method") == "accurate")
    std::printf(
        "#   t_med = median over the valid repetitions (microseconds), ci95_lo..ci95_hi its "
        "95%% confidence interval;\n#   valid = repetitions in the statistics, invalid = "
        "started late or overran their window; nothing is subtracted\n");
  for (const auto& [k, v] : info.settings) std::printf("#   %s: %s\n", k.c_str(), v.c_str());
  if (const auto it = info.settings.find(kPairSetting); it != info.settings.end())
    pair_ = it->second;
  std::fflush(stdout);
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  const auto& p = b.parameters;
  std::printf(
      "\n# Suite %s: Type %s %s (%s), Variation %s%s\n", b.name.c_str(), p.at("type").c_str(),
      p.at("operation").c_str(), b.family.c_str(), p.at("variation").c_str(),
      b.family == pattern_name(Pattern::kPingPong) && !pair_.empty() ? (", pair " + pair_).c_str()
                                                                     : "");
  row_notes_.clear();
  if (b.accurate) {
    std::printf("# Method: accurate\n");
    table_ = std::make_unique<output::TextTable>(std::vector<std::string>{
        "argument [" + p.at("argument_unit") + "]", "bytes", "procs", "t_med [us]", "ci95_lo [us]",
        "ci95_hi [us]", "t_min [us]", "valid", "invalid", "stop"});
    return;
  }
  if (p.count("method_note")) std::printf("# Method: classic: %s\n", p.at("method_note").c_str());
  table_ = std::make_unique<output::TextTable>(std::vector<std::string>{
      "argument [" + p.at("argument_unit") + "]", "bytes", "procs", "t [us]", "stderr [us]",
      "raw [us]", "empty [us]", "reps", "used", "ok", "node times [us]"});
}

void TextReporter::row(const core::BenchmarkRun&, const core::Measurement& m) {
  auto value = [&](const char* name) {
    for (const auto& x : m.values)
      if (x.name == name) return x.value;
    return 0.0;
  };
  if (m.accurate) {
    const auto& a = *m.accurate;
    const auto& s = a.summary_us;
    const std::string argument = std::to_string(static_cast<long>(value("argument")));
    table_->add_row(
        {argument, std::to_string(m.bytes), std::to_string(static_cast<int>(value("nprocs"))),
         output::format_number(s.median, 3), output::format_number(s.median_ci.lower, 3),
         output::format_number(s.median_ci.upper, 3), output::format_number(s.min, 3),
         std::to_string(a.valid), std::to_string(a.late + a.overrun), a.stop_reason});
    if (!m.note.empty()) row_notes_.push_back("argument " + argument + ": " + m.note);
    return;
  }
  if (ends_with_not_a_figure(m.note))
    row_notes_.push_back("argument " + std::to_string(static_cast<long>(value("argument"))) + ": " +
                         m.note);
  std::string nodes;
  for (double t : m.rank_times_us)
    nodes += (nodes.empty() ? "" : " ") + output::format_number(t, 2);
  table_->add_row(
      {std::to_string(static_cast<long>(value("argument"))), std::to_string(m.bytes),
       std::to_string(static_cast<int>(value("nprocs"))), output::format_number(m.t_avg_us, 3),
       output::format_number(value("standard_error"), 3),
       output::format_number(value("raw_mean"), 3), output::format_number(value("empty"), 3),
       std::to_string(m.repetitions), std::to_string(static_cast<int>(value("used_repetitions"))),
       value("converged") != 0 ? "yes" : "no", nodes.empty() ? "-" : nodes});
}

void TextReporter::benchmark_finished(const core::BenchmarkRun& b) {
  table_->print(stdout, "  ");
  for (const auto& n : row_notes_) std::printf("# %s\n", n.c_str());
  if (b.model) {
    std::printf("# %s\n", core::kModelHeading);
    for (const auto& line : core::model_lines(*b.model, b)) std::printf("# %s\n", line.c_str());
  }
  std::fflush(stdout);
}

void TextReporter::note(const std::string& text) {
  std::printf("# %s\n", text.c_str());
  std::fflush(stdout);
}

void TextReporter::run_finished(const core::RunInfo&, bool ok) {
  std::printf("\n# skampi run %s\n", ok ? "finished" : "failed");
  std::fflush(stdout);
}

}  // namespace mpiscope::skampi
