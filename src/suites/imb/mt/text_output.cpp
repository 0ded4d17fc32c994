#include "suites/imb/mt/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mpiscope::imb::mt {
namespace {
constexpr std::size_t kField = 13;
constexpr const char* kRule =
    "#-----------------------------------------------------------------------------";

// One of IMB-MT's fields: right-aligned in 13 characters, and cut there as IMB's snprintf cuts.
std::string field(const std::string& text) {
  const std::string padded =
      text.size() < kField ? std::string(kField - text.size(), ' ') + text : text;
  return padded.substr(0, kField);
}
std::string field(double value) {
  return field(fmt::format("{:.2f}", value));
}

bool windowed(const core::BenchmarkRun& b) {
  return b.message_rate;
}
}  // namespace

void TextReporter::run_started(const core::RunInfo&) {
  if (!style_.header) return;
  std::fputs(
      "#------------------------------------------------------------------\n"
      "#    Intel(R) MPI Benchmarks 2021.11, MT part    \n"
      "#------------------------------------------------------------------\n"
      "#\n",
      out_);
}

void TextReporter::benchmark_started(const core::BenchmarkRun&) {
  titled_ = false;
}

void TextReporter::print_title(const core::BenchmarkRun& b, const core::Measurement& first) {
  // IMB counts the threads that ran the benchmark: ranks left out of the pairs do not.
  const auto timed = std::count_if(first.rank_times_us.begin(), first.rank_times_us.end(),
                                   [](double t) { return t >= 0; });
  std::string text =
      fmt::format("\n{}\n# Benchmarking {}\n# #processes = {} (threads: {})\n", kRule, b.name,
                  timed / std::max(style_.threads, 1), style_.threads);
  if (windowed(b)) text += fmt::format("# window_size = {}\n", style_.window);
  text += std::string(kRule) + "\n";
  if (b.sized) text += field("#bytes");
  text += field("#repetitions");
  if (!windowed(b)) text += field("t_min[usec]") + field("t_max[usec]");
  text += field("t_avg[usec]");
  if (b.has_throughput) text += field("Mbytes/sec");
  if (windowed(b)) text += field("Msg/sec");
  std::fputs((text + "\n").c_str(), out_);
  titled_ = true;
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (!m.measured) {
    std::fprintf(out_, "# %s at %zu bytes per thread: %s\n", b.name.c_str(), m.bytes,
                 m.note.c_str());
    return;
  }
  if (!titled_) print_title(b, m);
  std::string text;
  if (b.sized) text += field(std::to_string(m.bytes * static_cast<std::size_t>(style_.threads)));
  text += field(std::to_string(m.repetitions));
  if (!windowed(b)) text += field(m.t_min_us) + field(m.t_max_us);
  text += field(m.t_avg_us);
  // The model's megabytes are 2^20 bytes; IMB-MT's are 10^6.
  if (b.has_throughput) text += field(m.mbytes_per_sec.value_or(0) * 1048576.0 / 1e6);
  if (windowed(b)) {
    const core::NamedValue* rate = m.value("message_rate");
    text += field(std::to_string(static_cast<long long>(rate ? rate->value : 0)));
  }
  std::fputs((text + "\n").c_str(), out_);
  if (m.defects.value_or(0) > 0)
    std::fprintf(out_,
                 "CHECK FAILURES: %.0f defects (wrong bytes, or elements of a sum) over every "
                 "thread of every rank\n",
                 *m.defects);
}

void TextReporter::note(const std::string& n) {
  std::fprintf(out_, "%s\n", n.c_str());
}

void TextReporter::run_finished(const core::RunInfo&, bool) {
  std::fputs("\n", out_);
}

}  // namespace mpiscope::imb::mt
