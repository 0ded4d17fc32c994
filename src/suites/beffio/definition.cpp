#include "suites/beffio/definition.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace mpiscope::beffio {

const char* method_name(Method m) {
  switch (m) {
    case Method::Write:
      return "write";
    case Method::Rewrite:
      return "rewrite";
    default:
      return "read";
  }
}

const char* method_title(Method m) {
  return m == Method::Write ? "initial write" : method_name(m);
}

double method_weight(Method m) {
  return m == Method::Read ? 0.5 : 0.25;
}

const char* type_title(int type) {
  static const char* const titles[kPatternTypes] = {
      "scatter, collective", "shared, collective", "separate files, non-collective",
      "segmented, non-collective", "segmented, collective"};
  return titles[type];
}

std::size_t part_chunk(std::size_t node_memory_bytes) {
  return std::min(std::max(2 * kMiB, node_memory_bytes / 128), kMaxPartChunk);
}

namespace {
// Table 2's rows of types 1 and 2 (and so 3 and 4): l (0 stands for M_PART) and U per type.
struct Row {
  std::size_t l;
  int u_type1, u_type2;
};
constexpr std::size_t kPart = 0;
constexpr Row kNonScatterRows[] = {{kMiB, 0, 0},      {kPart, 4, 2},   {kMiB, 2, 2},
                                   {32 * kKiB, 1, 1}, {kKiB, 1, 1},    {32 * kKiB + 8, 1, 1},
                                   {kKiB + 8, 1, 1},  {kMiB + 8, 2, 2}};
}  // namespace

std::vector<Pattern> patterns_of_type(int type, std::size_t m_part) {
  std::vector<Pattern> out;
  auto add = [&](int number, std::size_t l, std::size_t call, int u) {
    out.push_back({number, type, l, call, u, false});
  };
  if (type == 0) {
    // Type 0 scatters a memory chunk L over L/l disk chunks with one call.
    add(0, kMiB, kMiB, 0);
    add(1, m_part, m_part, 4);
    add(2, kMiB, 2 * kMiB, 4);
    add(3, kMiB, kMiB, 4);
    add(4, 32 * kKiB, kMiB, 2);
    add(5, kKiB, kMiB, 2);
    add(6, 32 * kKiB + 8, kMiB + 256, 2);
    add(7, kKiB + 8, kMiB + 8 * kKiB, 2);
    add(8, kMiB + 8, kMiB + 8, 2);
    return out;
  }
  // Types 1 … 4 start at 9, 17, 25, 34; 3 and 4 repeat type 2's rows and add the fill pattern.
  const int first = type == 1 ? 9 : 17 + 8 * (type - 2) + (type == 4 ? 1 : 0);
  int number = first;
  for (const Row& r : kNonScatterRows) {
    const std::size_t l = r.l == kPart ? m_part : r.l;
    add(number++, l, l, type == 1 ? r.u_type1 : r.u_type2);
  }
  if (type >= 3) out.push_back({number, type, 0, 0, 0, true});
  return out;
}

std::vector<Pattern> all_patterns(std::size_t m_part) {
  std::vector<Pattern> all;
  for (int t = 0; t < kPatternTypes; ++t) {
    const auto p = patterns_of_type(t, m_part);
    all.insert(all.end(), p.begin(), p.end());
  }
  return all;
}

double scheduled_seconds(double partition_seconds, int time_units) {
  return partition_seconds / 3.0 * time_units / kTimeUnitsTotal;
}

std::vector<long> segment_repetitions(const std::vector<Pattern>& segmented,
                                      const std::array<std::vector<Pattern>, 3>& earlier,
                                      const std::array<std::vector<long>, 3>& calls) {
  std::vector<long> reps;
  for (const Pattern& p : segmented) {
    if (p.fills_segment) {
      reps.push_back(0);
      continue;
    }
    if (p.time_units == 0) {
      reps.push_back(1);
      continue;
    }
    double rate_sum = 0;  // Σ over types of calls per time unit with chunk l
    int types = 0;
    for (std::size_t t = 0; t < earlier.size(); ++t) {
      double calls_with_l = 0;
      int units = 0;
      for (std::size_t i = 0; i < earlier[t].size(); ++i) {
        const Pattern& q = earlier[t][i];
        if (q.disk_chunk != p.disk_chunk || q.time_units == 0) continue;
        calls_with_l += static_cast<double>(calls[t].at(i));
        units += q.time_units;
      }
      if (units == 0) continue;
      rate_sum += calls_with_l / units;
      ++types;
    }
    const double wanted = types ? rate_sum / types * p.time_units : 0;
    reps.push_back(std::max(1L, static_cast<long>(std::ceil(wanted))));
  }
  return reps;
}

std::uint64_t segment_bytes(const std::vector<Pattern>& segmented,
                            const std::vector<long>& repetitions) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < segmented.size(); ++i)
    if (!segmented[i].fills_segment)
      sum += static_cast<std::uint64_t>(segmented[i].disk_chunk) *
             static_cast<std::uint64_t>(repetitions.at(i));
  return (sum + kMiB - 1) / kMiB * kMiB;
}

std::uint64_t mandatory_write_bytes(std::size_t m_part, int nprocs, bool every_pattern,
                                    int first_type, std::size_t first_pattern) {
  const auto n = static_cast<std::uint64_t>(nprocs);
  std::uint64_t bytes = 0;
  for (int t = first_type; t < 3; ++t) {
    const auto patterns = patterns_of_type(t, m_part);
    for (std::size_t i = t == first_type ? first_pattern : 0; i < patterns.size(); ++i)
      if (every_pattern || patterns[i].time_units == 0)
        bytes += static_cast<std::uint64_t>(patterns[i].call_bytes) * n;
  }
  const auto segmented = patterns_of_type(3, m_part);
  // Types 3 and 4: every process writes at least the smallest segment (each pattern once).
  return bytes + 2 * n * segment_bytes(segmented, std::vector<long>(segmented.size(), 1));
}

bool fit_segment(const std::vector<Pattern>& segmented, std::vector<long>& repetitions,
                 std::uint64_t max_segment) {
  if (segment_bytes(segmented, repetitions) <= max_segment) return false;
  for (double shrink = 1.0; shrink > 1e-9; shrink *= 0.9) {
    std::vector<long> trial = repetitions;
    const double factor = shrink * static_cast<double>(max_segment) /
                          static_cast<double>(segment_bytes(segmented, repetitions));
    for (std::size_t i = 0; i < trial.size(); ++i)
      if (!segmented[i].fills_segment)
        trial[i] =
            std::max(1L, static_cast<long>(std::floor(static_cast<double>(trial[i]) * factor)));
    if (segment_bytes(segmented, trial) <= max_segment) {
      repetitions = trial;
      return true;
    }
  }
  for (std::size_t i = 0; i < repetitions.size(); ++i)
    if (!segmented[i].fills_segment) repetitions[i] = 1;
  return true;
}

double type_bandwidth(const TypeTotals& t) {
  return t.seconds > 0 ? t.bytes / t.seconds / kMiBd : 0;
}

double method_bandwidth(const std::array<double, kPatternTypes>& b) {
  return (2 * b[0] + b[1] + b[2] + b[3] + b[4]) / 6.0;
}

double partition_bandwidth(double write, double rewrite, double read) {
  return method_weight(Method::Write) * write + method_weight(Method::Rewrite) * rewrite +
         method_weight(Method::Read) * read;
}

TypeTotals schedule_at_medians(const std::vector<Pattern>& patterns,
                               const std::vector<double>& median_seconds, double partition_seconds,
                               int nprocs) {
  TypeTotals t;
  for (std::size_t i = 0; i < patterns.size() && i < median_seconds.size(); ++i) {
    const double median = median_seconds[i];
    if (!(median > 0)) continue;
    const double bytes = static_cast<double>(patterns[i].call_bytes) * nprocs;
    if (patterns[i].time_units > 0) {
      const double scheduled = scheduled_seconds(partition_seconds, patterns[i].time_units);
      t.bytes += bytes / median * scheduled;
      t.seconds += scheduled;
    } else {
      t.bytes += bytes;
      t.seconds += median;
    }
  }
  return t;
}

namespace {
// 2^60 bytes: far beyond any disk or memory, and it fits the signed 64-bit fields sizes go to.
constexpr double kLargestSize = 1152921504606846976.0;
}  // namespace

std::uint64_t parse_size(const std::string& text) {
  double value = 0;
  // Decimal only: from_chars takes no hex; "inf" and "nan" fail the finiteness check below.
  const auto [stop, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (error != std::errc{})
    throw std::invalid_argument("'" + text + "' is not a size (e.g. 4G, 512M, 65536)");
  std::string unit(stop, text.data() + text.size());
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 1;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    scale = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    scale = 1048576.0;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    scale = 1073741824.0;
  else if (unit == "t" || unit == "tb" || unit == "tib")
    scale = 1099511627776.0;
  else
    throw std::invalid_argument("'" + text + "' is not a size (e.g. 4G, 512M, 65536)");
  if (!(value >= 0) || !std::isfinite(value))
    throw std::invalid_argument("'" + text + "' is not a size (e.g. 4G, 512M, 65536)");
  if (value * scale > kLargestSize)
    throw std::invalid_argument("'" + text + "' is larger than the largest size, 1 EiB");
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

std::string format_size(std::uint64_t bytes) {
  auto whole = [](std::uint64_t b) -> std::string {
    if (b >= kMiB && b % kMiB == 0) return std::to_string(b / kMiB) + " MiB";
    if (b >= kKiB && b % kKiB == 0) return std::to_string(b / kKiB) + " KiB";
    return std::to_string(b) + " B";
  };
  if (bytes % kMiB == 0) return whole(bytes);
  // The non-well-formed sizes of Table 2 read as "1 MiB + 8 B".
  for (std::uint64_t extra : {std::uint64_t{8}, std::uint64_t{256}, std::uint64_t{8 * kKiB}}) {
    if (bytes < extra + kKiB) continue;
    const std::uint64_t rest = bytes - extra;
    if (rest % kMiB == 0 || (extra < kKiB && rest % kKiB == 0))
      return whole(rest) + " + " + whole(extra);
  }
  return whole(bytes);
}

}  // namespace mpiscope::beffio

namespace mpiscope::beffio {

long next_batch(long done, double elapsed, double scheduled, long cap) {
  if (done >= cap || elapsed >= scheduled) return 0;
  if (done <= 0) return 1;
  const double per_call = elapsed / static_cast<double>(done);
  const double wanted =
      per_call > 0 ? std::ceil((scheduled - elapsed) / per_call) : 2.0 * static_cast<double>(done);
  const long batch = static_cast<long>(std::clamp(wanted, 1.0, static_cast<double>(done)));
  return std::min(batch, cap - done);
}

std::string figure_name(int nprocs, const std::string& what) {
  return "np" + std::to_string(nprocs) + "." + what;
}
std::string figure_name(int nprocs, Method m, const std::string& what) {
  return figure_name(nprocs, std::string(method_name(m)) + "." + what);
}
std::string figure_name(int nprocs, Method m, int type, const std::string& what) {
  return figure_name(nprocs, m, "type" + std::to_string(type) + "." + what);
}

}  // namespace mpiscope::beffio

namespace mpiscope::beffio {

FigureKey parse_figure_name(const std::string& name) {
  FigureKey key;
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const std::size_t dot = name.find('.', from);
    parts.push_back(name.substr(from, dot - from));
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  std::size_t i = 0;
  if (parts.size() > 1 && parts[0].rfind("np", 0) == 0)
    key.nprocs = std::stoi(parts[i++].substr(2));
  for (std::size_t m = 0; m < kMethods.size() && i + 1 < parts.size(); ++m)
    if (parts[i] == method_name(kMethods[m])) {
      key.method = static_cast<int>(m);
      ++i;
      break;
    }
  if (i + 1 < parts.size() && parts[i].rfind("type", 0) == 0)
    key.type = std::stoi(parts[i++].substr(4));
  for (; i < parts.size(); ++i) key.what += (key.what.empty() ? "" : ".") + parts[i];
  return key;
}

}  // namespace mpiscope::beffio
