// Checks of IMB tables against the guide's format (section 6) shared by the integration tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "harness.hpp"

namespace imbcheck {

inline const std::vector<std::string> kAllBenchmarks = {
    "PingPong",       "PingPing",  "Sendrecv",   "Exchange", "Allreduce", "Reduce",
    "Reduce_scatter", "Allgather", "Allgatherv", "Gather",   "Gatherv",   "Scatter",
    "Scatterv",       "Alltoall",  "Alltoallv",  "Bcast",    "Barrier"};

inline const std::vector<std::string> kExtBenchmarks = {"Window",    "Unidir_Put", "Unidir_Get",
                                                        "Bidir_Get", "Bidir_Put",  "Accumulate"};

inline bool is_single(const std::string& n) {
  return n == "PingPong" || n == "PingPing" || n.find("dir_") != std::string::npos;
}
inline bool is_reduction(const std::string& n) {
  return n == "Allreduce" || n == "Reduce" || n == "Reduce_scatter";
}
inline double turnover(const std::string& n) {
  if (n == "Sendrecv") return 2;
  if (n == "Exchange") return 4;
  return is_single(n) ? 1 : 0;
}

// Every heading and cell is right-aligned in a 13-character column.
inline void expect_imb_layout(const harness::Table& t) {
  const std::size_t ncols = t.columns.size();
  ASSERT_GT(ncols, 0u) << t.name;
  EXPECT_EQ(t.column_line.size(), ncols * 13) << t.name << ": '" << t.column_line << "'";
  for (std::size_t c = 0; c < ncols; ++c)
    EXPECT_EQ(t.column_line.substr(c * 13, 13),
              std::string(13 - t.columns[c].size(), ' ') + t.columns[c]);
  static const std::regex integer(" *[0-9]+"), fixed2(" *-?[0-9]+\\.[0-9]{2}");
  for (const auto& row : t.rows) {
    ASSERT_EQ(row.size(), ncols * 13) << t.name << ": row '" << row << "'";
    for (std::size_t c = 0; c < ncols; ++c) {
      const std::string cell = row.substr(c * 13, 13);
      const std::string& col = t.columns[c];
      // Current IMB's Msg/sec is printed without decimals.
      const bool is_int =
          col == "#bytes" || col == "#repetitions" || col == "Group" || col == "Msg/sec";
      EXPECT_TRUE(std::regex_match(cell, is_int ? integer : fixed2))
          << t.name << " column " << col << ": '" << cell << "'";
    }
  }
}

inline std::vector<std::string> expected_columns(const std::string& name, bool multi0, bool multi1,
                                                 bool check) {
  std::vector<std::string> c;
  if (multi1) c.push_back("Group");
  const bool sized = name != "Barrier" && name != "Open_Close";
  if (sized) c.push_back("#bytes");
  c.push_back("#repetitions");
  if (is_single(name) && !multi0)
    c.push_back("t[usec]");
  else
    c.insert(c.end(), {"t_min[usec]", "t_max[usec]", "t_avg[usec]"});
  if (turnover(name) > 0) c.push_back("Mbytes/sec");
  if (check && sized) c.push_back("defects");
  return c;
}

inline double cell(const harness::Table& t, std::size_t row, const std::string& col) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c] == col) return std::stod(t.cells.at(row).at(c));
  ADD_FAILURE() << t.name << " has no column " << col;
  return NAN;
}

// t_min <= t_avg <= t_max, and the throughput is nmsg·X/t_max in the table's megabyte (2^20
// bytes under IMB 3.1's rules, 10^6 under current IMB's) within print rounding.
inline void expect_consistent_numbers(const harness::Table& t, const std::string& base_name) {
  const bool range =
      std::find(t.columns.begin(), t.columns.end(), "t_min[usec]") != t.columns.end();
  for (std::size_t r = 0; r < t.cells.size(); ++r) {
    if (range) {
      EXPECT_LE(cell(t, r, "t_min[usec]"), cell(t, r, "t_avg[usec]") + 0.011) << t.rows[r];
      EXPECT_LE(cell(t, r, "t_avg[usec]"), cell(t, r, "t_max[usec]") + 0.011) << t.rows[r];
    }
    if (turnover(base_name) == 0) continue;
    const double x = cell(t, r, "#bytes");
    const double tmax = range ? cell(t, r, "t_max[usec]") : cell(t, r, "t[usec]");
    const double bw = cell(t, r, "Mbytes/sec");
    if (x == 0 || tmax < 0.5) continue;  // rounding of t dominates below half a microsecond
    const double expected = turnover(base_name) * x / (t.megabyte / 1e6) / tmax;
    EXPECT_NEAR(bw, expected, expected * 0.0101 / tmax + 0.011) << t.name << ": " << t.rows[r];
  }
}

// The dash line above "# Benchmarking NAME " in an IMB text (its length follows the columns).
inline std::string dash_line_before(const std::vector<std::string>& lines,
                                    const std::string& name) {
  for (std::size_t i = 1; i < lines.size(); ++i)
    if (lines[i] == "# Benchmarking " + name + " ") return lines[i - 1];
  return "missing";
}

}  // namespace imbcheck
