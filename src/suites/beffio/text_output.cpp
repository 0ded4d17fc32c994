#include "suites/beffio/text_output.hpp"

#include <fmt/format.h>

#include "suites/beffio/definition.hpp"

namespace mpiscope::beffio {

using output::format_number;

void TextReporter::run_started(const core::RunInfo& info) {
  fmt::print(out_, "# mpiscope {} {}: {}\n", info.suite, info.mpiscope_version, info.suite_title);
  fmt::print(out_, "# Date: {}   Machine: {} ({} {})\n", info.date, info.machine, info.system,
             info.release);
  fmt::print(out_, "# MPI: {} (MPI {})\n", info.mpi_library.substr(0, info.mpi_library.find('\n')),
             info.mpi_version);
  std::string hosts;
  for (const auto& [host, ranks] : info.ranks_per_host)
    hosts += fmt::format("{}{} ({} ranks)", hosts.empty() ? "" : ", ", host, ranks);
  fmt::print(out_, "# Processes: {} on {}\n", info.world_size, hosts);
  auto setting = [&](const char* name) {
    const auto it = info.settings.find(name);
    return it == info.settings.end() ? std::string("unknown") : it->second;
  };
  if (info.settings.count("fs_type") > 0)
    fmt::print(out_,
               "# File system of the I/O directory: {} mounted at {} from {}, block size {} "
               "bytes; shared between the processes: {}\n",
               setting("fs_type"), setting("fs_mount_point"), setting("fs_source"),
               setting("fs_block_size_bytes"), setting("fs_shared_between_processes"));
  if (const auto it = info.settings.find("method_description"); it != info.settings.end())
    fmt::print(out_, "# Method: {}\n", it->second);
  if (const auto it = info.settings.find("method"); it != info.settings.end())
    accurate_ = it->second == "accurate";
  if (accurate_)
    fmt::print(out_,
               "#   reps = valid repetitions (one call of every process each), invalid = started "
               "late or overran their window;\n#   t_med = their median in microseconds, "
               "ci95_lo..ci95_hi its 95% interval; MiB/s = bytes of a repetition / t_med\n");
  fmt::print(out_, "# Settings:\n");
  for (const auto& [name, value] : info.settings) fmt::print(out_, "#   {} = {}\n", name, value);
  fmt::print(out_,
             "# Units: bandwidths in MiB/s (2^20 bytes per second), times in seconds, sizes in "
             "bytes (l on disk, L in memory per call)\n");
  std::fflush(out_);
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  const auto& p = b.parameters;
  const std::string key =
      p.at("partition") + "/" + p.at("access_method") + "/" + p.at("pattern_type");
  if (key != table_key_) {
    flush_table();
    table_key_ = key;
    const int type = std::stoi(p.at("pattern_type"));
    std::string method = p.at("access_method");
    if (method == "write") method = "initial write";
    table_title_ = fmt::format("## {} processes, {}, pattern type {} ({}){}", p.at("partition"),
                               method, type, type_title(type), b.accurate ? ", accurate" : "");
    table_ = std::make_unique<output::TextTable>(
        b.accurate ? std::vector<std::string>{"No.", "l", "L", "U", "budget[s]", "reps", "invalid",
                                              "t_med[us]", "ci95_lo[us]", "ci95_hi[us]", "MiB/s",
                                              "stop", "note"}
                   : std::vector<std::string>{"No.", "l", "L", "U", "T_sched[s]", "calls", "bytes",
                                              "t[s]", "MiB/s", "note"});
  }
  auto number = [&](const char* name, int decimals) {
    const auto* v = m.value(name);
    return v ? format_number(v->value, decimals) : std::string("-");
  };
  const auto* memory = m.value("memory_chunk");
  if (m.accurate) {
    const auto& a = *m.accurate;
    const auto& s = a.summary_us;
    table_->add_row({p.at("pattern"), format_size(m.bytes),
                     memory ? format_size(static_cast<std::uint64_t>(memory->value)) : "-",
                     number("time_units", 0), number("budget", 3), std::to_string(a.valid),
                     std::to_string(a.late + a.overrun), format_number(s.median, 1),
                     format_number(s.median_ci.lower, 1), format_number(s.median_ci.upper, 1),
                     number("bandwidth", 2), a.stop_reason, m.note});
    return;
  }
  table_->add_row({p.at("pattern"), format_size(m.bytes),
                   memory ? format_size(static_cast<std::uint64_t>(memory->value)) : "-",
                   number("time_units", 0), number("scheduled_time", 3),
                   std::to_string(m.repetitions), number("bytes_accessed", 0), number("time", 4),
                   number("bandwidth", 2), m.note});
}

void TextReporter::flush_table() {
  if (!table_) return;
  fmt::print(out_, "\n{}\n", table_title_);
  table_->print(out_, "  ");
  table_.reset();
  table_key_.clear();
  std::fflush(out_);
}

void TextReporter::note(const std::string& text) {
  flush_table();
  fmt::print(out_, "# {}\n", text);
  std::fflush(out_);
}

double TextReporter::figure(const std::string& name) const {
  const auto it = figures_.find(name);
  return it == figures_.end() ? 0 : it->second;
}

void TextReporter::summary(const core::NamedValue& v) {
  flush_table();
  figures_[v.name] = v.value;
  const FigureKey key = parse_figure_name(v.name);
  if (key.what != "b_eff_io") return;
  if (key.nprocs == 0) {
    fmt::print(out_, "\n# b_eff_io = {} MiB/s (the maximum over the partitions)\n",
               format_number(v.value, 3));
  } else if (key.type >= 0 && accurate_) {
    const Method m = kMethods[static_cast<std::size_t>(key.method)];
    fmt::print(out_,
               "  type {}: T_pattern at the median bandwidths (U = 0: one call): {} bytes in {} s "
               "= {} MiB/s ({} bytes accessed; {} s from open to close)\n",
               key.type,
               format_number(figure(figure_name(key.nprocs, m, key.type, "scheduled_bytes")), 0),
               format_number(figure(figure_name(key.nprocs, m, key.type, "scheduled_seconds")), 4),
               format_number(v.value, 3),
               format_number(figure(figure_name(key.nprocs, m, key.type, "bytes")), 0),
               format_number(figure(figure_name(key.nprocs, m, key.type, "seconds")), 4));
  } else if (key.type >= 0) {
    const Method m = kMethods[static_cast<std::size_t>(key.method)];
    fmt::print(out_, "  type {} total: {} bytes in {} s from open to close: {} MiB/s\n", key.type,
               format_number(figure(figure_name(key.nprocs, m, key.type, "bytes")), 0),
               format_number(figure(figure_name(key.nprocs, m, key.type, "seconds")), 4),
               format_number(v.value, 3));
  } else if (key.method >= 0) {
    const Method m = kMethods[static_cast<std::size_t>(key.method)];
    fmt::print(out_,
               "\n# {} on {} processes: b_eff_io = (2 type 0 + type 1 + type 2 + type 3 + type 4)"
               " / 6 = {} MiB/s ({} bytes accessed, {} distinct; {} s from the opens to the "
               "closes, its share T/3 = {} s)\n",
               method_title(m), key.nprocs, format_number(v.value, 3),
               format_number(figure(figure_name(key.nprocs, m, "bytes")), 0),
               format_number(figure(figure_name(key.nprocs, m, "distinct_bytes")), 0),
               format_number(figure(figure_name(key.nprocs, m, "seconds")), 3),
               format_number(figure(figure_name(key.nprocs, m, "scheduled_seconds")), 3));
  } else {
    print_partition(key.nprocs);
  }
  std::fflush(out_);
}

void TextReporter::print_partition(int nprocs) {
  output::TextTable t(
      {"access method", "weight", "type 0", "type 1", "type 2", "type 3", "type 4", "method"});
  for (Method m : kMethods) {
    std::vector<std::string> cells = {method_title(m), format_number(method_weight(m), 2)};
    for (int type = 0; type < kPatternTypes; ++type)
      cells.push_back(format_number(figure(figure_name(nprocs, m, type, "b_eff_io")), 3));
    cells.push_back(format_number(figure(figure_name(nprocs, m, "b_eff_io")), 3));
    t.add_row(cells);
  }
  fmt::print(out_, "\n# b_eff_io of the partition of {} processes (MiB/s; type 0 counts double):\n",
             nprocs);
  t.print(out_, "  ");
  fmt::print(out_, "# b_eff_io on {} processes = {} MiB/s (segment of types 3 and 4: {} bytes)\n",
             nprocs, format_number(figure(figure_name(nprocs, "b_eff_io")), 3),
             format_number(figure(figure_name(nprocs, "segment")), 0));
}

void TextReporter::run_finished(const core::RunInfo&, bool ok) {
  flush_table();
  if (!ok) fmt::print(out_, "# the run did not complete\n");
  std::fflush(out_);
}

}  // namespace mpiscope::beffio
