// Small string helpers shared by the parsers and writers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mpiscope::core {

std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool starts_with_ci(std::string_view s, std::string_view prefix);
// Text safe for a terminal: control characters (C0 but newline and tab, DEL, and C1 as UTF-8)
// become \xHH, so that bytes from a binary or crafted input file cannot drive the terminal.
std::string printable(std::string_view s);
// The whole file as text, or std::runtime_error "<path>: is a directory, not <what>" /
// "<path>: cannot read <what>: <reason>" / "<path>: N bytes, more than <what> can be". The
// limit keeps a planted or damaged file (a restart reads the old output file) from making every
// rank read gigabytes; configuration and output files of these suites are kilobytes.
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{64} << 20;
std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t max_bytes = kMaxTextFileBytes);

}  // namespace mpiscope::core
