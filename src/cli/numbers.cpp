#include "cli/numbers.hpp"

#include <algorithm>

#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace mpiscope::cli {

namespace {
// "what must be ..." or, inside a CLI11 validator (which names the option itself), "must be ...".
std::string subject(std::string_view what) {
  return what.empty() ? std::string() : std::string(what) + " ";
}

std::string must_be_a_number(std::string_view what, const NumberRange& range) {
  const std::string bounds = range.text();
  return subject(what) + "must be a number" + (bounds.empty() ? "" : " " + bounds);
}
}  // namespace

std::string number_text(double v) {
  return fmt::format("{:.15g}", v);
}

std::string NumberRange::text() const {
  if (min == kAnyNumber.min && max == kAnyNumber.max) return "";
  if (above_min) return "above " + number_text(min) + " and at most " + number_text(max);
  return "from " + number_text(min) + " to " + number_text(max);
}

double parse_number(std::string_view text, std::string_view what, const NumberRange& range) {
  double v = 0;
  const char* end = text.data() + text.size();
  // from_chars with chars_format::general takes decimal and exponent notation only: no hex, and
  // "inf"/"nan" fail the range check below.
  const auto [stop, error] = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (text.empty() || error != std::errc{} || stop != end || !std::isfinite(v) ||
      !range.contains(v))
    throw std::invalid_argument(must_be_a_number(what, range) + ", got '" + std::string(text) +
                                "'");
  return v;
}

void check_number(double v, std::string_view what, const NumberRange& range) {
  if (!std::isfinite(v) || !range.contains(v))
    throw std::invalid_argument(must_be_a_number(what, range) + ", got " + number_text(v));
}

void throw_not_integer(std::string_view text, std::string_view what, const std::string& range) {
  throw std::invalid_argument(subject(what) + "must be an integer" +
                              (range.empty() ? "" : " " + range) + ", got '" + std::string(text) +
                              "'");
}

CLI::Validator number_in(const NumberRange& range) {
  return CLI::Validator(
      [range](std::string& text) {
        try {
          parse_number(text, "", range);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      range.text());
}

std::vector<std::size_t> parse_lengths(std::string_view text, std::string_view what,
                                       std::size_t unit, std::size_t max) {
  std::vector<std::size_t> out;
  for (const auto& item : core::split(std::string(text), ',')) {
    const auto x = parse_integer<std::size_t>(core::trim(item), what, unit, max);
    if (x % unit != 0)
      throw std::invalid_argument(std::string(what) + ": " + std::to_string(x) +
                                  " is not a multiple of " + std::to_string(unit));
    out.push_back(x);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mpiscope::cli
