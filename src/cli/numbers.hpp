// Numeric option values, checked in one place for every suite: a finite decimal number (no hex,
// no inf or nan, which JSON cannot carry to the other ranks) within a stated range; integers that
// do not fit their type are errors, never saturated or wrapped. Used by the CLI11 front ends
// (as validators), by IMB's own parser and by the configuration files' keys.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mpiscope::cli {

// A closed range [min, max], or (min, max] with above_min.
struct NumberRange {
  double min;
  double max;
  bool above_min = false;
  bool contains(double v) const {  // false for NaN
    return (above_min ? v > min : v >= min) && v <= max;
  }
  // "from 1 to 1000", "above 0 and at most 604800"; empty for kAnyNumber.
  std::string text() const;
};

// Any finite number (the range is checked later, e.g. by MethodOptions::validate()).
inline constexpr NumberRange kAnyNumber{-std::numeric_limits<double>::max(),
                                        std::numeric_limits<double>::max()};
// Seconds options (--timeout, --budget, -time, -T, ...) take at most a week.
inline constexpr double kMaxSeconds = 7 * 86400.0;
inline constexpr NumberRange kPositiveSeconds{0, kMaxSeconds, true};

// Shortest readable form of a bound or value: 1000000 stays 1000000, 1e300 is 1e+300.
std::string number_text(double v);
// Throws std::invalid_argument "<what> must be a number <range>, got '<text>'".
double parse_number(std::string_view text, std::string_view what, const NumberRange& range);
// Throws the same message for a value that did not come from text (deserialised, computed).
void check_number(double v, std::string_view what, const NumberRange& range);

[[noreturn]] void throw_not_integer(std::string_view text, std::string_view what,
                                    const std::string& range);

// A decimal integer in [min, max]; "-1" for an unsigned type and 99999999999999999999 for a
// 64-bit one are errors. Throws std::invalid_argument naming `what`.
template <class Int>
Int parse_integer(std::string_view text, std::string_view what, Int min, Int max) {
  static_assert(std::is_integral_v<Int>);
  Int v{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, v);
  const std::string range = "from " + std::to_string(min) + " to " + std::to_string(max);
  // The range of the whole type says nothing to someone who wrote "nan".
  const bool whole_type = min == std::numeric_limits<Int>::min() &&
                          max == std::numeric_limits<Int>::max() &&
                          !(std::is_unsigned_v<Int> && !text.empty() && text[0] == '-');
  if (text.empty() || (error != std::errc{} && error != std::errc::result_out_of_range) ||
      stop != end)
    throw_not_integer(text, what, whole_type ? "" : range);
  if (error != std::errc{} || v < min || v > max) throw_not_integer(text, what, range);
  return v;
}

// CLI11 validators running the checks above on the option's text before CLI11 converts it
// (CLI11 itself takes "nan", "inf", hex and, for unsigned options, "-1").
CLI::Validator number_in(const NumberRange& range);
// The description is what --help shows after the option's type.
template <class Int>
CLI::Validator integer_in(Int min, Int max) {
  return CLI::Validator(
      [min, max](std::string& text) {
        try {
          parse_integer<Int>(text, "", min, max);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "from " + std::to_string(min) + " to " + std::to_string(max));
}

// Any decimal integer that fits Int, for options whose range the front end checks afterwards with
// its own message.
template <class Int>
CLI::Validator integer_of() {
  auto v = integer_in<Int>(std::numeric_limits<Int>::min(), std::numeric_limits<Int>::max());
  v.description("");  // the whole type's range says nothing in --help
  return v;
}

// A comma-separated list of message lengths in bytes ("4,64,1024"), each in [unit, max] and a
// multiple of `unit` (the reductions' float), sorted, without repeats. Throws
// std::invalid_argument naming `what` (--lengths).
std::vector<std::size_t> parse_lengths(std::string_view text, std::string_view what,
                                       std::size_t unit, std::size_t max);

}  // namespace mpiscope::cli
