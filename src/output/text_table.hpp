// A plain aligned text table for the suites' human-readable output (b_eff's protocol, PRESTA's
// tables, …): headings, rows of cells, every column right-aligned to its widest cell. IMB tables
// keep their own fixed layout (imb_text.cpp).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace mpiscope::output {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headings) : headings_(std::move(headings)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::size_t row_count() const { return rows_.size(); }
  // Lines of `indent` + cells separated by two blanks; a dashed line under the headings.
  std::string render(const std::string& indent = "") const;
  void print(std::FILE* out, const std::string& indent = "") const;

 private:
  std::vector<std::string> headings_;
  std::vector<std::vector<std::string>> rows_;
};

// Fixed notation with `decimals` digits after the point (tables stay readable).
std::string format_number(double value, int decimals = 2);

}  // namespace mpiscope::output
