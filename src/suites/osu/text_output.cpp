#include "suites/osu/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/convergence.hpp"
#include "core/curve_model.hpp"

namespace mpiscope::osu {
namespace {
// FIELD_WIDTH as OSU 7.4's configure sets it (config.h: 18; osu_util.h's fallback is 20): what
// its binaries print, e.g. "# Size       Avg Latency(us)" (captures in tests/data/import/).
constexpr int kField = 18;
constexpr int kSize = 10;  // the "# Size" column

// The non-blocking collectives' columns after Overall(us) (print_only_header_nbc), with -f or
// without.
const std::vector<const char*>& overlap_columns(bool full) {
  static const std::vector<const char*> brief = {"Compute(us)", "Pure Comm.(us)", "Overlap(%)"};
  static const std::vector<const char*> every = {"Compute(us)",   "Coll. Init(us)", "MPI_Test(us)",
                                                 "MPI_Wait(us)",  "Pure Comm.(us)", "Min Comm.(us)",
                                                 "Max Comm.(us)", "Overlap(%)"};
  return full ? every : brief;
}

// Their figures in that order, from the row's overlap times and named values.
std::vector<double> overlap_figures(const core::Measurement& m, bool full) {
  const core::OverlapTimes& o = *m.overlap;
  auto value = [&](const char* name) {
    const auto* v = m.value(name);
    return v ? v->value : 0.0;
  };
  if (!full) return {o.t_cpu_us, o.t_pure_us, o.overlap_percent};
  return {o.t_cpu_us,  value("coll_init_us"),  value("mpi_test_us"),   value("mpi_wait_us"),
          o.t_pure_us, value("t_pure_min_us"), value("t_pure_max_us"), o.overlap_percent};
}
}  // namespace

std::string tail_heading(int p, bool bandwidth) {
  return fmt::format("P{} Tail {}", p, bandwidth ? "BW(MB/s)" : "Lat(us)");
}

int TextReporter::field() const {
  return kField;
}

double osu_megabytes_per_second(const core::Measurement& m) {
  return m.mbytes_per_sec.value_or(0) * 1.048576;
}

double transmit_size(const core::Measurement& m) {
  const auto* v = m.value("transmit_size");
  return v ? v->value : static_cast<double>(m.bytes);
}

double osu_latency_us(const core::Measurement& m) {
  return m.accurate ? m.accurate->summary_us.median : m.t_avg_us;
}

std::string TextReporter::title() const {
  const std::string named = program_.title + " v" + program_.version;  // "… Test v7.4"
  if (program_.figure == Figure::kStartup) return fmt::format("# {}\n", named);
  if (program_.figure == Figure::kOverlap)  // print_preamble_nbc
    return fmt::format("\n# {}\n# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n", named);
  if (program_.figure == Figure::kRate && options_.vary_window)
    return fmt::format(
        "# {}\n# [ pairs: {} ] [ window size: varied ]\n\n# Uni-directional Bandwidth "
        "(MB/sec)\n",
        named, pairs_);
  if (program_.figure == Figure::kRate)  // osu_mbw_mr prints its header without a blank line
    return fmt::format("# {}\n# [ pairs: {} ] [ window size: {} ]\n", named, pairs_,
                       options_.window);
  if (is_one_sided(program_.figure))  // print_header_one_sided: no blank line
    return fmt::format("# {}\n# Window creation: {}\n# Synchronization: {}\n", named,
                       window_creation_name(window_creation_of(options_)),
                       sync_name(sync_of(options_)));
  if (program_.name == "osu_latency_mp")  // its children first, as OSU's rank 0 prints them
    return fmt::format(
        "# Number of forked processes in sender: {}\n# Number of forked processes in receiver: "
        "{}\n\n# {}\n",
        options_.sender_processes, options_.receiver_processes, named);
  if (program_.name == "osu_partitioned_latency")  // OSU 7.5 ends its line with a tab
    return fmt::format("\n# {}\n# Partitions: {}\t\n", named, options_.partitions);
  if (program_.name == "osu_latency_mt")  // its thread counts first, as OSU's rank 0 prints them
    return fmt::format(
        "# Number of Sender threads: {} \n# Number of Receiver threads: {}\n\n# {}\n",
        options_.sender_threads, options_.receiver_threads, named);
  return fmt::format("\n# {}\n", named);
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  // The title once; each -T type's table then opens with its "# Datatype:" line (as OSU's).
  std::string h = title_printed_ ? "" : before_title_ + title();
  title_printed_ = true;
  if (program_.figure == Figure::kStartup) {  // osu_init: the title alone
    std::fputs(h.c_str(), out_);
    std::fflush(out_);
    return;
  }
  if (options_.vary_window) {  // -V: one header per type, before its first window
    if (b.parameters.at("window") != std::to_string(kVariedWindows[0])) return;
    const auto datatype = b.parameters.find("datatype");
    h += fmt::format("# Datatype: {}.\n#      ",
                     datatype == b.parameters.end() ? "MPI_CHAR" : datatype->second);
    for (const int w : kVariedWindows) h += fmt::format("  {:>10}", w);
    std::fputs((h + "\n").c_str(), out_);
    std::fflush(out_);
    return;
  }
  if (!program_.sized) {  // osu_barrier and osu_ibarrier name no datatype
    h += program_.figure == Figure::kOverlap ? "# Overall(us)" : "# Avg Latency(us)";
  } else {
    const auto datatype = b.parameters.find("datatype");
    if (program_.prints_datatype)
      h += fmt::format("# Datatype: {}.\n",
                       datatype == b.parameters.end() ? "MPI_CHAR" : datatype->second);
    h += fmt::format("{:<{}}", "# Size", kSize);
    switch (overlap_table() ? Figure::kOverlap : program_.figure) {
      case Figure::kBandwidth:
      case Figure::kOneSidedBandwidth:
        h += fmt::format("{:>{}}", "Bandwidth (MB/s)", kField);
        // osu_get_mbw's fork prints the rate unheaded; mpiscope heads it.
        if (program_.multi_pair_one_sided) h += fmt::format("{:>{}}", "Messages/s", kField);
        break;
      case Figure::kRate:
        h += fmt::format("{:>{}}", "MB/s", kField);
        if (options_.print_rate) h += fmt::format("{:>{}}", "Messages/s", kField);
        break;
      case Figure::kOverlap:
        h += fmt::format("{:>{}}", "Overall(us)", kField);
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
  if (overlap_table())
    for (const char* column : overlap_columns(options_.full))
      h += fmt::format("{:>{}}", column, kField);
  if (options_.validate) h += fmt::format("{:>{}}", "Validation", field());
  // OSU's padding: the heading's length as if P were one digit, one less for two (P100 runs over).
  const bool bandwidth = program_.figure == Figure::kBandwidth;
  for (int p : options_.tail_percentiles)
    h +=
        std::string(
            static_cast<std::size_t>(std::max(0, kField - (bandwidth ? 16 : 15) - (p > 9 ? 1 : 0))),
            ' ') +
        tail_heading(p, bandwidth);
  if (!options_.ddt.empty()) h += fmt::format("{:>{}}", "Transmit Size", kField);  // OSU's -D
  std::fputs((h + "\n").c_str(), out_);
  std::fflush(out_);
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (!m.measured) {
    std::fputs(fmt::format("# {}: {}\n", m.bytes, m.note).c_str(), out_);
    std::fflush(out_);
    return;
  }
  if (program_.figure == Figure::kStartup) {  // osu_init's line, whole milliseconds as OSU's
    const auto ms = [&](const char* name) {
      const auto* v = m.value(name);
      return v ? static_cast<long>(v->value) : 0L;
    };
    fmt::print(out_, "nprocs: {}, min: {} ms, max: {} ms, avg: {} ms\n", ms("nprocs"),
               ms("osu_min_ms"), ms("osu_max_ms"), ms("osu_avg_ms"));
    std::fflush(out_);
    return;
  }
  if (options_.vary_window) {  // kept for the profiles (print_varied_windows)
    if (varied_mbps_.find(m.bytes) == varied_mbps_.end()) varied_sizes_.push_back(m.bytes);
    varied_mbps_[m.bytes][std::stoi(b.parameters.at("window"))] = osu_megabytes_per_second(m);
    varied_transmitted_[m.bytes] = transmit_size(m);  // -D: the rate divides by what moved
    return;
  }
  std::string r = program_.sized ? fmt::format("{:<{}}", m.bytes, kSize) : std::string();
  // Without the size: print_stats 17 wide, print_stats_nbc 13; osu_latency_mp's latency 10 wide
  // unless -c adds its Validation column.
  const int first_width = !program_.sized ? (program_.figure == Figure::kOverlap ? 13 : 17)
                          : program_.name == "osu_latency_mp" && !options_.validate ? 10
                                                                                    : field();
  switch (overlap_table() ? Figure::kOverlap : program_.figure) {
    case Figure::kBandwidth:
    case Figure::kOneSidedBandwidth:
      r += fmt::format("{:>{}.2f}", osu_megabytes_per_second(m), first_width);
      if (program_.multi_pair_one_sided)  // every pair's messages per second
        r += fmt::format("{:>{}.2f}", 1e6 * osu_megabytes_per_second(m) / transmit_size(m), kField);
      break;
    case Figure::kRate: {  // OSU's rate: MB/s over the bytes a message moves
      const double mb = osu_megabytes_per_second(m);
      const double moved = transmit_size(m);
      const double rate = moved > 0 ? 1e6 * mb / moved : 0;
      r += fmt::format("{:>{}.2f}", mb, kField);
      if (options_.print_rate) r += fmt::format("{:>{}.2f}", rate, kField);
      break;
    }
    case Figure::kOverlap:  // Overall: the ranks' mean (the median in accurate mode)
      r += fmt::format("{:>{}.2f}", osu_latency_us(m), first_width);
      if (m.overlap)
        for (double v : overlap_figures(m, options_.full)) r += fmt::format("{:>{}.2f}", v, kField);
      break;
    default:
      r += fmt::format("{:>{}.2f}", osu_latency_us(m), first_width);
  }
  if (options_.full && latency_figure())
    r += fmt::format("{:>{}.2f}{:>{}.2f}{:>12}", m.t_min_us, kField, m.t_max_us, kField,
                     m.repetitions);
  if (options_.validate)
    r += fmt::format("{:>{}}", m.defects.value_or(0) > 0 ? "Fail" : "Pass", field());
  for (int p : options_.tail_percentiles) {
    const auto* v = m.value(tail_heading(p, program_.figure == Figure::kBandwidth));
    r += fmt::format("{:>{}.2f}", v ? v->value : std::nan(""), kField);
  }
  if (!options_.ddt.empty())
    r += fmt::format("{:>{}}", static_cast<std::size_t>(transmit_size(m)), kField);
  std::fputs((r + "\n").c_str(), out_);
  // A comment line, as for a row not measured: OSU's table stays rows of numbers.
  if (core::not_converged_reason(m))
    std::fputs(fmt::format("# {}: {}\n", m.bytes, m.note).c_str(), out_);
  std::fflush(out_);
}

void TextReporter::print_varied_windows() {
  // osu_mbw_mr.c's window_varied loops: "%-7d" sizes, "  %10.2f" figures; a size that one of
  // the windows did not measure shows "-" there.
  const auto profile = [&](auto figure) {
    for (const std::size_t bytes : varied_sizes_) {
      std::string r = fmt::format("{:<7}", bytes);
      const auto& by_window = varied_mbps_[bytes];
      for (const int w : kVariedWindows) {
        const auto it = by_window.find(w);
        r += it == by_window.end() ? fmt::format("  {:>10}", "-")
                                   : fmt::format("  {:>10.2f}", figure(bytes, it->second));
      }
      std::fputs((r + "\n").c_str(), out_);
    }
  };
  profile([](std::size_t, double mbps) { return mbps; });
  if (options_.print_rate) {
    std::string h = "\n# Message Rate Profile\n#      ";
    for (const int w : kVariedWindows) h += fmt::format("  {:>10}", w);
    std::fputs((h + "\n").c_str(), out_);
    profile([&](std::size_t bytes, double mbps) {
      const double moved = varied_transmitted_[bytes];
      return moved > 0 ? 1e6 * mbps / moved : 0.0;
    });
  }
  varied_sizes_.clear();
  varied_mbps_.clear();
  varied_transmitted_.clear();
  std::fflush(out_);
}

void TextReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (options_.vary_window) {
    const auto window = b.parameters.find("window");
    if (window != b.parameters.end() &&
        window->second == std::to_string(std::end(kVariedWindows)[-1]))
      print_varied_windows();
    return;
  }
  if (!b.model) return;
  fmt::print(out_, "# {}\n", core::kModelHeading);
  for (const auto& line : core::model_lines(*b.model, b)) fmt::print(out_, "# {}\n", line);
  std::fflush(out_);
}

void TextReporter::note(const std::string& n) {
  std::fputs((n + "\n").c_str(), out_);
  std::fflush(out_);
}

}  // namespace mpiscope::osu
