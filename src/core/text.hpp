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
// become \xHH, and so does every byte that is not part of a UTF-8 character (a raw 0x9B is a
// control to some terminals), so that bytes from a binary or crafted input cannot drive the
// terminal.
std::string printable(std::string_view s);
}  // namespace mpiscope::core
