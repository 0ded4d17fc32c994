// Small string helpers shared by the parsers and writers.
#pragma once

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
// "<path>: cannot read <what>: <reason>".
std::string read_text_file(const std::string& path, const std::string& what);

}  // namespace mpiscope::core
