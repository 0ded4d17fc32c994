#include "output/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace mpiscope::output {

namespace {
// A function's static: registrations run during static initialisation, in any order of files.
std::vector<OutputFormat>& formats() {
  static std::vector<OutputFormat> list;
  return list;
}
}  // namespace

bool register_output_format(OutputFormat format) {
  formats().push_back(std::move(format));
  return true;
}

std::vector<OutputFormat> output_formats() {
  auto list = formats();
  std::sort(list.begin(), list.end(), [](const OutputFormat& a, const OutputFormat& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return list;
}

std::unique_ptr<core::Reporter> create_reporter(const std::string& format,
                                                const std::string& path) {
  for (const auto& f : formats())
    if (f.name == format) return f.create(path);
  throw std::invalid_argument("no output format '" + format + "'");
}

}  // namespace mpiscope::output
