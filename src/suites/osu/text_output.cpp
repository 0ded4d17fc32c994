#include "suites/osu/text_output.hpp"

#include <fmt/format.h>

namespace mpiscope::osu {
namespace {
constexpr int kField = 20;  // FIELD_WIDTH
constexpr int kSize = 10;   // the "# Size" column
}  // namespace

double osu_megabytes_per_second(const core::Measurement& m) {
  return m.mbytes_per_sec.value_or(0) * 1.048576;
}

double osu_latency_us(const core::Measurement& m) {
  return m.accurate ? m.accurate->summary_us.median : m.t_avg_us;
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  std::string h;
  if (program_.figure == Figure::kRate) {  // osu_mbw_mr prints its header without a blank line
    h = fmt::format("# {} v7.4\n# [ pairs: {} ] [ window size: {} ]\n", program_.title, pairs_,
                    options_.window);
  } else if (program_.figure == Figure::kOneSided) {  // print_header_one_sided: no blank line
    h = fmt::format("# {} v7.4\n# Window creation: {}\n# Synchronization: {}\n", program_.title,
                    kOneSidedWindow, kOneSidedSync);
  } else {
    h = fmt::format("\n# {} v7.4\n", program_.title);
  }
  if (!program_.sized) {  // osu_barrier names no datatype
    h += "# Avg Latency(us)";
  } else {
    const auto datatype = b.parameters.find("datatype");
    h += fmt::format("# Datatype: {}.\n",
                     datatype == b.parameters.end() ? "MPI_CHAR" : datatype->second);
    h += fmt::format("{:<{}}", "# Size", kSize);
    switch (program_.figure) {
      case Figure::kBandwidth:
        h += fmt::format("{:>{}}", "Bandwidth (MB/s)", kField);
        break;
      case Figure::kRate:
        h += fmt::format("{:>{}}{:>{}}", "MB/s", kField, "Messages/s", kField);
        break;
      case Figure::kOneSided:
        h += fmt::format("{:>{}}", "Latency (us)", kField);
        break;
      default:
        h += fmt::format("{:>{}}", "Avg Latency(us)", kField);
    }
  }
  if (options_.full && latency_figure())
    h += fmt::format("{:>{}}{:>{}}{:>12}", "Min Latency(us)", kField, "Max Latency(us)", kField,
                     "Iterations");
  if (options_.validate) h += fmt::format("{:>{}}", "Validation", kField);
  std::fputs((h + "\n").c_str(), out_);
  std::fflush(out_);
}

void TextReporter::row(const core::BenchmarkRun&, const core::Measurement& m) {
  if (!m.measured) {
    std::fputs(fmt::format("# {}: {}\n", m.bytes, m.note).c_str(), out_);
    std::fflush(out_);
    return;
  }
  std::string r = program_.sized ? fmt::format("{:<{}}", m.bytes, kSize) : std::string();
  const int first_width = program_.sized ? kField : 17;  // print_stats without the size: 17
  switch (program_.figure) {
    case Figure::kBandwidth:
      r += fmt::format("{:>{}.2f}", osu_megabytes_per_second(m), first_width);
      break;
    case Figure::kRate: {
      const double mb = osu_megabytes_per_second(m);
      const double rate = m.bytes > 0 ? 1e6 * mb / static_cast<double>(m.bytes) : 0;
      r += fmt::format("{:>{}.2f}{:>{}.2f}", mb, kField, rate, kField);
      break;
    }
    default:
      r += fmt::format("{:>{}.2f}", osu_latency_us(m), first_width);
  }
  if (options_.full && latency_figure())
    r += fmt::format("{:>{}.2f}{:>{}.2f}{:>12}", m.t_min_us, kField, m.t_max_us, kField,
                     m.repetitions);
  if (options_.validate)
    r += fmt::format("{:>{}}", m.defects.value_or(0) > 0 ? "Fail" : "Pass", kField);
  std::fputs((r + "\n").c_str(), out_);
  std::fflush(out_);
}

void TextReporter::note(const std::string& n) {
  std::fputs((n + "\n").c_str(), out_);
  std::fflush(out_);
}

}  // namespace mpiscope::osu
