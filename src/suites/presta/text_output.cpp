#include "suites/presta/text_output.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace mpiscope::presta {

namespace {

using Column = std::pair<const char*, const char*>;  // heading, value name

std::vector<Column> value_columns(const core::BenchmarkRun& b) {
  const std::string test = b.parameters.count("test") ? b.parameters.at("test") : "";
  if (test == "laten") return {{"Latency (us)", "latency_us"}, {"Ticks", "wtime_ticks"}};
  if (test == "rma")
    return {{"BW (MB/s)", "bandwidth"},
            {"Epoch time (us)", "epoch_time_us"},
            {"Op time (us)", "op_time_us"},
            {"Ticks", "wtime_ticks"}};
  return {{"BW (MB/s)", "bandwidth"}, {"Op time (us)", "op_time_us"}, {"Ticks", "wtime_ticks"}};
}

std::string cell(const core::Measurement& m, const std::string& name, int decimals = 3) {
  const auto* v = m.value(name);
  return v ? output::format_number(v->value, decimals) : "-";
}

std::string setting(const core::RunInfo& info, const std::string& name) {
  const auto it = info.settings.find(name);
  return it == info.settings.end() ? "?" : it->second;
}

// Accurate mode's columns: the counts, then the median and its interval (microseconds).
const std::vector<std::string> kAccurateHeadings = {"Reps", "Invalid", "t_med (us)",
                                                    "ci95 low (us)", "ci95 high (us)"};
void add_accurate_cells(const core::Measurement& m, std::vector<std::string>& cells) {
  const auto& a = *m.accurate;
  const auto& ci = a.summary_us.median_ci;
  cells.insert(cells.end(),
               {std::to_string(a.valid), std::to_string(a.attempted - a.valid),
                output::format_number(a.summary_us.median, 3), output::format_number(ci.lower, 3),
                output::format_number(ci.upper, 3)});
}

}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  fmt::print(out_, "\n{}\n", info.suite_title);
  fmt::print(out_, "  Run at {} with {} MPI processes ({})\n", info.date, info.world_size,
             info.mpi_library.substr(0, info.mpi_library.find('\n')));
  if (setting(info, "method") == "accurate") {
    fmt::print(out_, "  Method: {}\n", setting(info, "method_description"));
    fmt::print(out_,
               "    t_med = median time of a repetition over the valid ones, ci95 = its 95% "
               "confidence interval (microseconds);\n    Reps = valid repetitions, Invalid = "
               "started late or overran their window; every figure is computed from t_med\n");
    fmt::print(out_, "  Timer: MPI_Wtime, resolution {} s measured (MPI_Wtick {}), {} s per call\n",
               setting(info, "timer_resolution_s"), setting(info, "timer_wtick_s"),
               setting(info, "timer_cost_s"));
  }
  for (const auto& [key, value] : info.settings) fmt::print(out_, "  {:<32}: {}\n", key, value);
  ops_ = info.settings.count("operations_between_measurements")
             ? info.settings.at("operations_between_measurements")
             : "";
  loop_iterations_ = setting(info, "iterations_per_loop");
  std::fflush(out_);
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  if (b.family == "presta_pair") {
    fmt::print(out_, "\n{}, {} processes ({} pair{})\n", b.name, b.nprocs, b.groups.size(),
               b.groups.size() == 1 ? "" : "s");
    if (print_pairs_) {
      fmt::print(out_, "Current pairs, {} allocation\n", b.parameters.at("allocation"));
      for (const auto& g : b.groups) fmt::print(out_, "  {:5d}:{:5d}\n", g.at(0), g.at(1));
    }
    std::vector<std::string> headings = {"Test", "Processes", "Op Size (bytes)"};
    if (b.parameters.at("test") == "rma") {
      headings.push_back("Epochs");
      headings.push_back("Ops/epoch");
    } else {
      headings.push_back("Ops");
    }
    if (b.accurate)
      headings.insert(headings.end(), kAccurateHeadings.begin(), kAccurateHeadings.end());
    for (const auto& [heading, name] : value_columns(b)) headings.push_back(heading);
    table_ = std::make_unique<output::TextTable>(headings);
  } else if (b.family == "presta_allred") {
    if (b.accurate)
      fmt::print(out_, "\n{}: repetitions of one loop ({} processes, {} iterations each)\n", b.name,
                 b.nprocs, b.parameters.at("inner_iterations"));
    else
      fmt::print(out_, "\n{} samples ({} processes, {} iterations each, longest rank)\n", b.name,
                 b.nprocs, b.parameters.at("inner_iterations"));
  } else if (b.family == "presta_globalop" && !globalop_) {
    fmt::print(out_, "\nGlobal-Op loops ({} processes)\n", b.nprocs);
    if (b.accurate)
      globalop_ = std::make_unique<output::TextTable>(std::vector<std::string>{
          "Operation", "Compute phase", "Iterations", "Reps", "Invalid", "Loop t_med (us)",
          "ci95 low (us)", "ci95 high (us)", "Per iteration (us)", "Op w/o compute (us)", "Ticks"});
    else
      globalop_ = std::make_unique<output::TextTable>(
          std::vector<std::string>{"Operation", "Compute phase", "Iterations", "Loop (us)",
                                   "Per iteration (us)", "Op w/o compute (us)", "Ticks"});
  }
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (b.family == "presta_pair") {
    std::vector<std::string> cells = {b.name, std::to_string(b.nprocs), std::to_string(m.bytes)};
    // Classic rows count the operations (rma: epochs) in `repetitions`; accurate rows count
    // their valid repetitions there, so the sample's size comes from the settings.
    if (b.parameters.at("test") == "rma") {
      cells.push_back(b.accurate ? b.parameters.at("epochs_per_sample")
                                 : std::to_string(m.repetitions));
      cells.push_back(b.parameters.at("operations_per_epoch"));
    } else {
      cells.push_back(b.accurate ? ops_ : std::to_string(m.repetitions));
    }
    if (m.measured) {
      if (m.accurate) add_accurate_cells(m, cells);
      for (const auto& [heading, name] : value_columns(b))
        cells.push_back(cell(m, name, std::string(name) == "wtime_ticks" ? 0 : 3));
      if (!m.note.empty()) notes_.push_back(std::to_string(m.bytes) + " bytes: " + m.note);
    } else {
      cells.push_back(m.note);
    }
    table_->add_row(cells);
  } else if (b.family == "presta_allred") {
    if (m.accurate && m.measured) {
      const auto& a = *m.accurate;
      fmt::print(out_, "  repetitions : {:>16} valid, {} invalid ({} sync, {} time; {})\n", a.valid,
                 a.attempted - a.valid, a.sync, a.time_definition, a.stop_reason);
      fmt::print(out_, "  t_med       : {:16.3f} us (median loop)\n", a.summary_us.median);
      fmt::print(out_, "  ci95        : {:16.3f} .. {:.3f} us\n", a.summary_us.median_ci.lower,
                 a.summary_us.median_ci.upper);
      fmt::print(out_, "  min, max    : {:16.3f} .. {:.3f} us\n", a.summary_us.min,
                 a.summary_us.max);
    } else if (!m.measured) {
      fmt::print(out_, "  # {}\n", m.note);
    }
    for (std::size_t i = 0; !m.accurate && i < m.raw_samples_us.size(); ++i)
      fmt::print(out_, "  samples[{:2d}] : {:16.3f} us\n", i, m.raw_samples_us[i]);
    if (m.measured) {
      fmt::print(out_, "  mean        : {:16.3f} us\n", m.value("mean_us")->value);
      fmt::print(out_, "  stddev      : {:16.3f} us\n", m.value("stddev_us")->value);
      fmt::print(out_, "  stddev/mean : {:16.6f}\n", m.value("stddev_over_mean")->value);
    }
    if (m.measured && !m.note.empty()) fmt::print(out_, "  # {}\n", m.note);
  } else if (b.family == "presta_globalop") {
    std::vector<std::string> cells = {b.name, b.parameters.at("compute_phase")};
    if (b.accurate) {
      cells.push_back(loop_iterations_);
      if (m.measured) {
        add_accurate_cells(m, cells);
      } else {
        cells.insert(cells.end(), {"-", "-", "-", "-", "-"});
      }
      if (!m.note.empty()) notes_.push_back(b.name + " (" + cells[1] + "): " + m.note);
    } else {
      cells.push_back(std::to_string(m.repetitions));
      cells.push_back(cell(m, "loop_time_us"));
    }
    cells.insert(cells.end(), {cell(m, "time_per_iteration_us"),
                               cell(m, "op_time_without_compute_us"), cell(m, "wtime_ticks", 0)});
    globalop_->add_row(cells);
  }
  std::fflush(out_);
}

void TextReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (b.family == "presta_pair" && table_) {
    table_->print(out_, "  ");
    table_.reset();
    for (const auto& n : notes_) fmt::print(out_, "  # {}\n", n);
    notes_.clear();
  }
}

void TextReporter::note(const std::string& text) {
  fmt::print(out_, "\n# {}\n", text);
}

void TextReporter::flush_globalop() {
  if (globalop_) globalop_->print(out_, "  ");
  globalop_.reset();
  for (const auto& n : notes_) fmt::print(out_, "  # {}\n", n);
  notes_.clear();
}

void TextReporter::summary(const core::NamedValue& v) {
  flush_globalop();
  if (!summary_started_) fmt::print(out_, "\n");
  summary_started_ = true;
  const bool whole = v.unit == "bytes" || v.unit == "MPI_Wtick ticks";
  fmt::print(out_, "  {:<46}: {:>14} {}\n", v.name, output::format_number(v.value, whole ? 0 : 3),
             v.unit);
}

void TextReporter::run_finished(const core::RunInfo&, bool ok) {
  flush_globalop();
  if (!ok) fmt::print(out_, "\n# Some points could not be measured (see the notes above).\n");
  std::fflush(out_);
}

}  // namespace mpiscope::presta
