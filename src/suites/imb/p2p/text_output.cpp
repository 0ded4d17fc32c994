#include "suites/imb/p2p/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace mpiscope::imb::p2p {
namespace {
constexpr const char* kRule = "#----------------------------------------------------------------";
}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  std::string text =
      "#------------------------------------------------------------\n"
      "#    Intel(R) MPI Benchmarks 2021.11, IMB-P2P part\n"
      "#------------------------------------------------------------\n";
  text += fmt::format("# Date                  : {}\n", info.date);
  text += fmt::format("# Machine               : {}\n", info.machine);
  text += fmt::format("# System                : {}\n", info.system);
  text += fmt::format("# Release               : {}\n", info.release);
  text += fmt::format("# Version               : {}\n", info.version);
  text += fmt::format("# MPI Version           : {}\n", info.mpi_version);
  text += "# MPI Thread Environment:\n#\n# Calling sequence was:\n#\n#";
  for (const auto& word : info.command_line) text += " " + word;
  text += "\n#\n# List of Benchmarks to run:\n#\n";
  for (const auto& name : info.benchmarks) text += "# " + name + "\n";
  const auto [least, most] = std::minmax_element(lengths_.begin(), lengths_.end());
  text += fmt::format(
      "#\n# Minimum message length in bytes:   {}\n# Maximum message length in bytes:   {}\n#\n",
      lengths_.empty() ? 0 : *least, lengths_.empty() ? 0 : *most);
  std::fputs(text.c_str(), out_);
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  const auto grid = b.parameters.find("grid");
  const std::string title =
      b.name + (grid == b.parameters.end() ? std::string() : " (" + grid->second + ")");
  std::fprintf(out_, "\n%s\n# Benchmarking %s\n# #processes = %d\n%s\n %12s %12s %12s %12s %12s\n",
               kRule, title.c_str(), b.nprocs, kRule, "#bytes", "#repetitions", "t[usec]",
               "Mbytes/sec", "Msg/sec");
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (!m.measured) {
    std::fprintf(out_, "# %s at %zu bytes: %s\n", b.name.c_str(), m.bytes, m.note.c_str());
    return;
  }
  const core::NamedValue* rate = m.value("message_rate");
  // The model's megabytes are 2^20 bytes; IMB-P2P's 10^6.
  std::fprintf(out_, " %12zu %12d %12.2f %12.2f %12.0f\n", m.bytes, m.repetitions, m.t_avg_us,
               m.mbytes_per_sec.value_or(0) * 1048576.0 / 1e6, rate ? rate->value : 0.0);
  if (m.defects.value_or(0) > 0)
    std::fprintf(out_, "CHECK FAILURES: %.0f wrong bytes over every rank\n", *m.defects);
}

// The engine's "invalid for N processes" in IMB-P2P's words.
void TextReporter::note(const std::string& n) {
  static const std::regex invalid(R"(^# !! Benchmark (\S+) invalid for (\d+) processes !! ?$)");
  std::smatch m;
  if (std::regex_match(n, m, invalid)) {
    // As each of IMB-P2P's benchmarks words it.
    std::fprintf(out_, "\n# !! Benchmark %s %sinvalid for %s process%s !!\n", m[1].str().c_str(),
                 m[1] == "Unirandom" ? "" : "is ", m[2].str().c_str(),
                 m[1] == "SendRecv_Replace" ? "" : "es");
    return;
  }
  std::fprintf(out_, "%s\n", n.c_str());
}

void TextReporter::run_finished(const core::RunInfo&, bool) {
  std::fputs("\n\n# All processes entering MPI_Finalize\n\n", out_);
}

}  // namespace mpiscope::imb::p2p
