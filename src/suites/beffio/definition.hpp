// What b_eff_io is, as pure functions (paper sections 5.1 and 5.4, Table 2): the 43 patterns of the
// five pattern types, the schedule T_pattern = T/3 · U/ΣU, the segment size of the size-driven
// types 3 and 4, and the weighting that turns bytes and times into b_eff_io. No MPI here: the
// unit tests check every rule against hand-worked numbers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpiscope::beffio {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;
constexpr int kPatternTypes = 5;
constexpr int kTimeUnitsTotal = 64;  // ΣU of Table 2
// M_PART is capped so that one call's count fits an int (the paper's section 5.4 asks for such
// a reduction on large systems).
constexpr std::size_t kMaxPartChunk = std::size_t{1} << 30;

enum class Method { Write, Rewrite, Read };
constexpr std::array<Method, 3> kMethods = {Method::Write, Method::Rewrite, Method::Read};
const char* method_name(Method m);   // "write", "rewrite", "read"
const char* method_title(Method m);  // "initial write", "rewrite", "read"
double method_weight(Method m);      // 0.25, 0.25, 0.5
const char* type_title(int type);    // "scatter, collective", …

struct Pattern {
  int number = 0;              // 0 … 42, Table 2's "No."
  int type = 0;                // 0 … 4
  std::size_t disk_chunk = 0;  // l: contiguous bytes on disk
  std::size_t call_bytes = 0;  // L: bytes in memory per call (== l except for type 0)
  int time_units = 0;          // U
  bool fills_segment = false;  // patterns 33 and 42: the rest of the segment, sized at run time
};

// M_PART = max(2 MB, memory of one node / 128), capped at kMaxPartChunk.
std::size_t part_chunk(std::size_t node_memory_bytes);

// Table 2 with M_PART substituted; types 3 and 4 list their fill pattern last (its sizes are 0
// until the segment is known).
std::vector<Pattern> patterns_of_type(int type, std::size_t m_part);
std::vector<Pattern> all_patterns(std::size_t m_part);

// T_pattern = T/3 · U/ΣU in seconds.
double scheduled_seconds(double partition_seconds, int time_units);

// Types 3 and 4 are size-driven (section 5.4): "for each chunk size l, a repeating factor is
// calculated from the measured repeating factors of the pattern types 0–2". Per type, the calls
// one process made with disk chunk l per time unit U (over its U > 0 patterns with that l),
// averaged over the types, times the pattern's own U, rounded up; at least 1. U = 0 patterns run
// once. measured_calls[type][i] are the agreed calls of patterns_of_type(type)[i].
std::vector<long> segment_repetitions(const std::vector<Pattern>& segmented_type_patterns,
                                      const std::array<std::vector<Pattern>, 3>& earlier_types,
                                      const std::array<std::vector<long>, 3>& measured_calls);
// The segment: Σ l · repetitions over the sized patterns, rounded up to a multiple of 1 MB.
std::uint64_t segment_bytes(const std::vector<Pattern>& segmented_type_patterns,
                            const std::vector<long>& repetitions);
// Scales repetitions down (each at least 1) so that the segment fits max_segment bytes, for the
// disk-space limit. Returns true when it had to.
bool fit_segment(const std::vector<Pattern>& segmented_type_patterns,
                 std::vector<long>& repetitions, std::uint64_t max_segment);

// The bytes the initial write of `nprocs` processes puts into the files whatever the disk limit,
// from pattern `first_pattern` of type `first_type` on: one call of each U = 0 pattern of types
// 0–2 (of every pattern with every_pattern: accurate mode) and the smallest segment of types 3
// and 4. The time-driven patterns keep this much of the limit free for the patterns after them.
std::uint64_t mandatory_write_bytes(std::size_t m_part, int nprocs, bool every_pattern,
                                    int first_type = 0, std::size_t first_pattern = 0);

// The weighting (section 5.1).
struct TypeTotals {
  double bytes = 0;    // over all processes
  double seconds = 0;  // open to close, slowest process
};
constexpr double kMiBd = 1048576.0;
// bytes / seconds in MiB/s (0 when nothing was timed).
double type_bandwidth(const TypeTotals& t);
// Average over the types with the scatter type 0 weighted double: (2·b0 + b1 + b2 + b3 + b4) / 6.
double method_bandwidth(const std::array<double, kPatternTypes>& type_bandwidths);
// 25 % initial write, 25 % rewrite, 50 % read.
double partition_bandwidth(double write, double rewrite, double read);

// Accurate mode (--method accurate): a pattern type's bytes and seconds on its classic schedule
// at the median call times. Every pattern with U > 0 runs its T_pattern at its median bandwidth
// (L · nprocs / median), every U = 0 pattern makes one call in its median time; a pattern whose
// median is not positive (no valid repetition) is left out. type_bandwidth of the result is the
// type's b_eff_io: section 5.1's bytes over time without the opens, placements, syncs and closes.
TypeTotals schedule_at_medians(const std::vector<Pattern>& patterns,
                               const std::vector<double>& median_seconds, double partition_seconds,
                               int nprocs);

// "4G", "512M", "64k", "1048576": binary multiples (k = 1024), at most 1 EiB; throws
// std::invalid_argument.
std::uint64_t parse_size(const std::string& text);
std::string format_size(std::uint64_t bytes);  // "2 MiB", "1 KiB + 8 B", …

}  // namespace mpiscope::beffio

namespace mpiscope::beffio {

// The time-driven termination (the geometric series section 5.4 proposes instead of a check
// after every call): after `done` calls took `elapsed` seconds (slowest process), the next batch
// aims at the scheduled time but at most doubles the calls so far, and never passes `cap`
// (the calls whose data exists, or the disk-space limit). 0: stop.
long next_batch(long done, double elapsed, double scheduled, long cap);

// Names of the whole-run figures (Reporter::summary): "np4.write.type0.b_eff_io",
// "np4.read.b_eff_io", "np4.b_eff_io", "b_eff_io"; `what` is the last part.
std::string figure_name(int nprocs, const std::string& what);
std::string figure_name(int nprocs, Method m, const std::string& what);
std::string figure_name(int nprocs, Method m, int type, const std::string& what);

}  // namespace mpiscope::beffio

namespace mpiscope::beffio {

// figure_name read back (the text output lays the figures out from their names).
struct FigureKey {
  int nprocs = 0;    // 0: the run's own figure ("b_eff_io")
  int method = -1;   // index into kMethods, -1: none
  int type = -1;     // -1: none
  std::string what;  // "b_eff_io", "bytes", "seconds", …
};
FigureKey parse_figure_name(const std::string& name);

}  // namespace mpiscope::beffio
