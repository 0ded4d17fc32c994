#include "output/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mpiscope::output {

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> width(headings_.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  };
  widen(headings_);
  for (const auto& r : rows_) widen(r);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      out += (c ? "  " : "") + std::string(width[c] - cell.size(), ' ') + cell;
    }
    return out + "\n";
  };
  std::string out = line(headings_);
  std::size_t total = 0;
  for (auto w : width) total += w;
  total += width.empty() ? 0 : 2 * (width.size() - 1);
  out += indent + std::string(total, '-') + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

void TextTable::print(std::FILE* out, const std::string& indent) const {
  std::fputs(render(indent).c_str(), out);
  std::fflush(out);
}

std::string format_number(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace mpiscope::output
