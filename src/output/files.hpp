// Output files: checked up front so that an unwritable path is reported before anything runs,
// and replaced atomically so that an interrupted run never leaves a half-written file.
#pragma once

#include <stdexcept>
#include <string>

namespace mpiscope::output {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates (or truncates) the file, or throws OutputError naming the path and the reason.
void ensure_writable(const std::string& path);
// Writes `content` to path.tmp and renames it over `path`.
void replace_file(const std::string& path, const std::string& content);

}  // namespace mpiscope::output
