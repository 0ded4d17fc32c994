// The file formats a run can write beside its text on stdout, registered by their reporters (as
// Google Benchmark's CreateReporter): a new format is one core::Reporter class and one
// MPISCOPE_REGISTER_OUTPUT_FORMAT in its .cpp file. Its option (--NAME FILE) on every suite, its
// help line, its hand-off to the other ranks and the check of its file before the run follow from
// the registration (cli/suite_cli.cpp); nothing else names the format.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/reporter.hpp"

namespace mpiscope::output {

struct OutputFormat {
  std::string name;  // "json": the option is --json FILE
  std::string help;  // what the option writes, for --help
  int order = 100;   // position among the options in --help
  // A reporter writing to `path` (called on world rank 0 before the run starts).
  std::function<std::unique_ptr<core::Reporter>(const std::string& path)> create;
};

bool register_output_format(OutputFormat format);
// In `order`, then by name.
std::vector<OutputFormat> output_formats();
// Throws std::invalid_argument for a name no format registered.
std::unique_ptr<core::Reporter> create_reporter(const std::string& format, const std::string& path);

}  // namespace mpiscope::output

#define MPISCOPE_OUTPUT_CONCAT_INNER(a, b) a##b
#define MPISCOPE_OUTPUT_CONCAT(a, b) MPISCOPE_OUTPUT_CONCAT_INNER(a, b)
// Registers at static initialisation (the library is an object library: nothing is dropped).
#define MPISCOPE_REGISTER_OUTPUT_FORMAT(...)                                                     \
  [[maybe_unused]] static const bool MPISCOPE_OUTPUT_CONCAT(mpiscope_output_format_, __LINE__) = \
      ::mpiscope::output::register_output_format(__VA_ARGS__)
