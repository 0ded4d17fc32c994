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

}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  fmt::print(out_, "\n{}\n", info.suite_title);
  fmt::print(out_, "  Run at {} with {} MPI processes ({})\n", info.date, info.world_size,
             info.mpi_library.substr(0, info.mpi_library.find('\n')));
  for (const auto& [key, value] : info.settings) fmt::print(out_, "  {:<32}: {}\n", key, value);
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
    for (const auto& [heading, name] : value_columns(b)) headings.push_back(heading);
    table_ = std::make_unique<output::TextTable>(headings);
  } else if (b.family == "presta_allred") {
    fmt::print(out_, "\n{} samples ({} processes, {} iterations each, longest rank)\n", b.name,
               b.nprocs, b.parameters.at("inner_iterations"));
  } else if (b.family == "presta_globalop" && !globalop_) {
    fmt::print(out_, "\nGlobal-Op loops ({} processes)\n", b.nprocs);
    globalop_ = std::make_unique<output::TextTable>(
        std::vector<std::string>{"Operation", "Compute phase", "Iterations", "Loop (us)",
                                 "Per iteration (us)", "Op w/o compute (us)", "Ticks"});
  }
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (b.family == "presta_pair") {
    std::vector<std::string> cells = {b.name, std::to_string(b.nprocs), std::to_string(m.bytes)};
    if (b.parameters.at("test") == "rma") {
      cells.push_back(std::to_string(m.repetitions));
      cells.push_back(b.parameters.at("operations_per_epoch"));
    } else {
      cells.push_back(std::to_string(m.repetitions));
    }
    if (m.measured) {
      for (const auto& [heading, name] : value_columns(b))
        cells.push_back(cell(m, name, std::string(name) == "wtime_ticks" ? 0 : 3));
    } else {
      cells.push_back(m.note);
    }
    table_->add_row(cells);
  } else if (b.family == "presta_allred") {
    for (std::size_t i = 0; i < m.raw_samples_us.size(); ++i)
      fmt::print(out_, "  samples[{:2d}] : {:16.3f} us\n", i, m.raw_samples_us[i]);
    fmt::print(out_, "  mean        : {:16.3f} us\n", m.value("mean_us")->value);
    fmt::print(out_, "  stddev      : {:16.3f} us\n", m.value("stddev_us")->value);
    fmt::print(out_, "  stddev/mean : {:16.6f}\n", m.value("stddev_over_mean")->value);
  } else if (b.family == "presta_globalop") {
    globalop_->add_row({b.name, b.parameters.at("compute_phase"), std::to_string(m.repetitions),
                        cell(m, "loop_time_us"), cell(m, "time_per_iteration_us"),
                        cell(m, "op_time_without_compute_us"), cell(m, "wtime_ticks", 0)});
  }
  std::fflush(out_);
}

void TextReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (b.family == "presta_pair" && table_) {
    table_->print(out_, "  ");
    table_.reset();
  }
}

void TextReporter::note(const std::string& text) {
  fmt::print(out_, "\n# {}\n", text);
}

void TextReporter::flush_globalop() {
  if (globalop_) globalop_->print(out_, "  ");
  globalop_.reset();
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
