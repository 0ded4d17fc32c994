#include "suites/presta/text_output.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "suites/presta/tests.hpp"

namespace mpiscope::presta {

namespace {

struct Column {
  const char* heading;
  const char* value;  // the row's value of that name
  int decimals;
};

// The figure columns PRESTA 1.1 prints, in its order and under its headings, after the leading
// columns (Test, Processes, message size; rma: Ops/Epoch; laten: Processes alone).
std::vector<Column> presta_columns(const std::string& test, bool accurate) {
  if (test == "laten")  // accurate mode: from the median repetition, not the longest sample
    return {{accurate ? "Latency (us)" : "Max Latency (us)", "latency_us", 3}};
  return {{"Bandwidth (MB)", "bandwidth", 3}, {"Op time (us)", "op_time_us", 3}};
}
// mpiscope's columns after the operation count and accurate mode's columns.
std::vector<Column> extra_columns(const std::string& test) {
  if (test == "rma") return {{"Epoch time (us)", "epoch_time_us", 3}, {"Ticks", "wtime_ticks", 0}};
  return {{"Ticks", "wtime_ticks", 0}};
}

std::vector<std::string> leading_headings(const std::string& test) {
  if (test == "laten") return {"Processes"};
  if (test == "rma") return {"Test", "Processes", "Message Size", "Ops/Epoch"};
  return {"Test", "Processes", "Message Size (bytes)"};
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

// One line of allred's closing block: PRESTA's label, the run's figure, its unit.
struct AllredLine {
  const char* label;  // nullptr: an empty line
  const char* figure;
  bool ticks;
};

}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  test_ = info.suite.substr(info.suite.find('-') + 1);  // "presta-com" -> "com"
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

void TextReporter::print_pairs(const core::BenchmarkRun& b) {
  if (!print_pairs_) return;
  fmt::print(out_, "Current pairs, {} allocation\n", b.parameters.at("allocation"));
  for (const auto& g : b.groups) fmt::print(out_, "  {:5d}:{:5d}\n", g.at(0), g.at(1));
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  if (b.family == "presta_pair") {
    const bool latency = test_ == "laten";
    if (latency && spanning_) {
      print_pairs(b);
      return;
    }
    std::vector<std::string> headings = leading_headings(test_);
    for (const auto& c : presta_columns(test_, b.accurate)) headings.push_back(c.heading);
    headings.push_back(test_ == "rma" ? "Epochs" : "Ops");
    if (b.accurate)
      headings.insert(headings.end(), kAccurateHeadings.begin(), kAccurateHeadings.end());
    for (const auto& c : extra_columns(test_)) headings.push_back(c.heading);
    if (latency) {
      // PRESTA's laten: one table, a row per process count.
      fmt::print(out_, "\nMPI Bidirectional latency test (Send/Recv)\n");
      spanning_ = std::make_unique<output::TextTable>(headings);
    } else {
      fmt::print(out_, "\n{}, {} processes ({} pair{})\n", b.name, b.nprocs, b.groups.size(),
                 b.groups.size() == 1 ? "" : "s");
      table_ = std::make_unique<output::TextTable>(headings);
    }
    print_pairs(b);
  } else if (b.family == "presta_allred") {
    if (b.accurate)
      fmt::print(out_, "\n{}: repetitions of one loop ({} processes, {} iterations each)\n", b.name,
                 b.nprocs, b.parameters.at("inner_iterations"));
    else
      fmt::print(out_, "\n{} samples ({} processes, {} iterations each, longest rank)\n", b.name,
                 b.nprocs, b.parameters.at("inner_iterations"));
  } else if (b.family == "presta_globalop" && !spanning_) {
    fmt::print(out_, "\nGlobal-Op loops ({} processes)\n", b.nprocs);
    if (b.accurate)
      spanning_ = std::make_unique<output::TextTable>(std::vector<std::string>{
          "Operation", "Compute phase", "Iterations", "Reps", "Invalid", "Loop t_med (us)",
          "ci95 low (us)", "ci95 high (us)", "Per iteration (us)", "Op w/o compute (us)", "Ticks"});
    else
      spanning_ = std::make_unique<output::TextTable>(
          std::vector<std::string>{"Operation", "Compute phase", "Iterations", "Loop (us)",
                                   "Per iteration (us)", "Op w/o compute (us)", "Ticks"});
  }
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (b.family == "presta_pair") {
    const bool latency = test_ == "laten";
    std::vector<std::string> cells;
    if (!latency) cells = {b.name};
    cells.push_back(std::to_string(b.nprocs));
    if (!latency) cells.push_back(std::to_string(m.bytes));
    if (test_ == "rma") cells.push_back(b.parameters.at("operations_per_epoch"));
    if (m.measured) {
      for (const auto& c : presta_columns(test_, b.accurate))
        cells.push_back(cell(m, c.value, c.decimals));
      // Classic rows count the operations (rma: epochs) in `repetitions`; accurate rows count
      // their valid repetitions there, so the sample's size comes from the settings.
      if (test_ == "rma")
        cells.push_back(b.accurate ? b.parameters.at("epochs_per_sample")
                                   : std::to_string(m.repetitions));
      else
        cells.push_back(b.accurate ? ops_ : std::to_string(m.repetitions));
      if (m.accurate) add_accurate_cells(m, cells);
      for (const auto& c : extra_columns(test_)) cells.push_back(cell(m, c.value, c.decimals));
      if (!m.note.empty())
        notes_.push_back((latency ? std::to_string(b.nprocs) + " processes: "
                                  : std::to_string(m.bytes) + " bytes: ") +
                         m.note);
    } else {
      cells.push_back(m.note);
    }
    (latency ? spanning_ : table_)->add_row(cells);
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
    spanning_->add_row(cells);
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

void TextReporter::flush_spanning() {
  if (spanning_) spanning_->print(out_, "  ");
  spanning_.reset();
  for (const auto& n : notes_) fmt::print(out_, "  # {}\n", n);
  notes_.clear();
}

void TextReporter::summary(const core::NamedValue& v) {
  flush_spanning();
  figures_.push_back({v, false});
}

std::optional<double> TextReporter::take(const std::string& name) {
  for (auto& f : figures_)
    if (f.value.name == name) {
      f.printed = true;
      return f.value.value;
    }
  return std::nullopt;
}

// PRESTA 1.1's lines after com's, laten's and rma's tables, with its labels, spelling
// ("Bandwith") and widths: the best bandwidths, the "Test Parameters" block, the timer.
void TextReporter::print_pair_test_lines(const core::RunInfo& info) {
  const std::pair<const char*, const char*> best[] = {
      {"unidirectional", "Max Unidirectional Bandwith"},
      {"bidirectional", "Max  Bidirectional Bandwith"}};
  bool first = true;
  for (const auto& [direction, label] : best) {
    const auto bandwidth = take(fmt::format("max_{}_bandwidth", direction));
    const auto bytes = take(fmt::format("max_{}_bandwidth_message_size", direction));
    if (!bandwidth || !bytes) continue;
    fmt::print(out_, "{}{} :  {:13.2f} for message size of {:7d} bytes\n", first ? "\n" : "", label,
               *bandwidth, static_cast<long long>(*bytes));
    first = false;
  }
  fmt::print(out_, "\nTest Parameters\n---------------\n");
  if (test_ == "rma") {
    fmt::print(out_, "Operations per epoch       : {:>8}\n", setting(info, "operations_per_epoch"));
    fmt::print(out_, "Epochs per measurement     : {:>8}\n",
               setting(info, "epochs_between_measurements"));
  } else {
    fmt::print(out_, "Operations per measurement : {:>8}\n",
               setting(info, "operations_between_measurements"));
  }
  if (info.settings.count("process_count_file"))
    fmt::print(out_, "Process count file : {}\n", setting(info, "process_count_file"));
  if (setting(info, "processes_per_smp") != "not given")
    fmt::print(out_, "Processes per SMP          : {:>8}\n", setting(info, "processes_per_smp"));
  fmt::print(out_, "Process pair allocation    : {:>8}\n", setting(info, "allocation"));
  if (setting(info, "barrier_in_sample").rfind("none", 0) == 0)
    fmt::print(out_, "\nBarrier not included in measurement.\n");
  fmt::print(out_, "\n");
  print_timer_lines(info);
}

// PRESTA's footer. The Wtime overhead is the one cost of MPI_Wtime the run measured
// (`timer_cost_s`, the mean of many calls on the slowest rank), the figure of the settings too.
void TextReporter::print_timer_lines(const core::RunInfo& info) {
  for (const auto& [label, name] :
       {std::pair{"MPI_Wtick returns", "wtick_s"}, std::pair{"MPI_Wtime overhead", "timer_cost_s"}})
    if (info.settings.count(name))
      fmt::print(out_, "{:<27} {:11.9f}\n", label, std::stod(info.settings.at(name)));
  if (const auto ticks = take("ticks_for_minimum_sample"))
    fmt::print(out_, "{:<27} {:11.0f}\n", "Ticks for minimum sample", *ticks);
}

// PRESTA's closing block of allred, where the README's "Time between Allreduce" and "Op mean"
// are. Accurate mode's figures are medians and are labelled so.
void TextReporter::print_allred_lines(const core::RunInfo& info) {
  const bool accurate = setting(info, "method") == "accurate";
  fmt::print(out_, "\nMPI Allreduce test\n");
  fmt::print(out_, "  for {} MPI processes, message size {} bytes,\n", info.world_size,
             setting(info, "allreduce_message_bytes"));
  if (accurate)
    fmt::print(out_, "  {} operations per repetition, repetitions until the stopping rule\n\n",
               setting(info, "inner_iterations"));
  else
    fmt::print(out_, "  {} operations per sample, {} samples\n\n",
               setting(info, "inner_iterations"), setting(info, "samples"));
  const std::vector<AllredLine> classic = {
      {"Wtick resolution", "wtick_us", false},
      {"Time between Allreduce", "time_between_allreduce_us", false},
      {nullptr, nullptr, false},
      {"Mean Compute Loop Time", "mean_compute_loop_us", false},
      {"Ticks per Compute Loop", "ticks_per_compute_loop", true},
      {"Mean Op Loop Time", "mean_op_loop_us", false},
      {"Ticks per Op Loop", "ticks_per_op_loop", true},
      {nullptr, nullptr, false},
      {"Op mean", "op_mean_us", false}};
  const std::vector<AllredLine> medians = {
      {"Wtick resolution", "wtick_us", false},
      {"Time between Allreduce", "time_between_allreduce_us", false},
      {nullptr, nullptr, false},
      {"Median Compute Loop Time", "median_compute_loop_us", false},
      {"Ticks per Compute Loop", "ticks_per_compute_loop", true},
      {"Median Op Loop Time", "median_op_loop_us", false},
      {"Ticks per Op Loop", "ticks_per_op_loop", true},
      {nullptr, nullptr, false},
      {"Op time from the medians", "op_time_us", false}};
  for (const auto& line : accurate ? medians : classic) {
    if (!line.label) {
      fmt::print(out_, "\n");
      continue;
    }
    const auto value = take(line.figure);
    if (!value) continue;  // not measured: the notes above say why
    if (line.ticks)
      fmt::print(out_, "  {:<27}: {:11.0f}\n", line.label, *value);
    else
      fmt::print(out_, "  {:<27}: {:11.3f} us\n", line.label, *value);
  }
}

void TextReporter::run_finished(const core::RunInfo& info, bool ok) {
  flush_spanning();
  if (test_ == "com" || test_ == "laten" || test_ == "rma")
    print_pair_test_lines(info);
  else if (test_ == "allred")
    print_allred_lines(info);
  bool heading = false;
  for (const auto& f : figures_) {
    if (f.printed) continue;
    if (!heading)
      fmt::print(out_,
                 "\nmpiscope's further figures (not PRESTA 1.1's; the JSON, CSV and database "
                 "hold every figure under these names)\n");
    heading = true;
    const auto& v = f.value;
    const bool whole = v.unit == "bytes" || v.unit == kTicks;
    fmt::print(out_, "  {:<46}: {:>14} {}\n", v.name, output::format_number(v.value, whole ? 0 : 3),
               v.unit);
  }
  if (!ok) fmt::print(out_, "\n# Some points could not be measured (see the notes above).\n");
  std::fflush(out_);
}

}  // namespace mpiscope::presta
