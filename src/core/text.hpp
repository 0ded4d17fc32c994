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

}  // namespace mpiscope::core
