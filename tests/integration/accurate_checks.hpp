// What every accurate-mode row (--method accurate) of any suite must satisfy, whatever the
// machine's noise: the counts add up, the interval holds the median, the row's repetitions are
// the valid ones, and a point that converged did so by the rule.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace harness {

inline void expect_consistent_accurate_row(const nlohmann::json& row, const std::string& where,
                                           int min_reps = 20, double target_ci = 0.02) {
  ASSERT_TRUE(row.contains("accurate")) << where;
  const nlohmann::json& a = row.at("accurate");
  EXPECT_TRUE(row.at("measured").get<bool>()) << where;
  EXPECT_EQ(a.at("valid").get<int>(), row.at("repetitions").get<int>()) << where;
  EXPECT_GE(a.at("valid").get<int>(), 1) << where;
  EXPECT_EQ(a.at("attempted").get<int>(),
            a.at("valid").get<int>() + a.at("late").get<int>() + a.at("overrun").get<int>())
      << where;
  const double median = a.at("median_us");
  EXPECT_GT(median, 0) << where;
  EXPECT_LE(a.at("min_us").get<double>(), median) << where;
  EXPECT_LE(a.at("ci95_low_us").get<double>(), median) << where;
  EXPECT_GE(a.at("ci95_high_us").get<double>(), median) << where;
  EXPECT_LE(median, a.at("max_us").get<double>()) << where;
  // The row's times are over the valid repetitions, not over ranks.
  EXPECT_DOUBLE_EQ(row.at("t_min_us").get<double>(), a.at("min_us").get<double>()) << where;
  EXPECT_DOUBLE_EQ(row.at("t_max_us").get<double>(), a.at("max_us").get<double>()) << where;
  EXPECT_FALSE(row.contains("rank_times_us")) << where;
  const std::string stop = a.at("stop_reason");
  EXPECT_TRUE(stop == "converged" || stop == "time-budget" || stop == "max-repetitions")
      << where << ": " << stop;
  if (stop == "converged") {
    EXPECT_GE(a.at("valid").get<int>(), min_reps) << where;
    EXPECT_LE(a.at("ci_relative_half_width").get<double>(), target_ci + 1e-12) << where;
  }
  // Convergence is stated: a row whose rule was not met says so, with the reason in its note.
  const bool converged = a.at("converged").get<bool>();
  if (stop != "converged" || a.at("level_shift").get<bool>()) {
    EXPECT_FALSE(converged) << where;
  }
  const std::string note = row.value("note", "");
  if (converged) {
    EXPECT_TRUE(a.at("not_converged_reason").is_null()) << where;
    EXPECT_EQ(note.find("not converged"), std::string::npos) << where << ": " << note;
  } else {
    EXPECT_NE(note.find("not converged: " + a.at("not_converged_reason").get<std::string>()),
              std::string::npos)
        << where << ": " << note;
  }
  const std::string sync = a.at("sync");
  EXPECT_TRUE(sync == "window" || sync == "own-barrier" || sync == "mpi-barrier") << where;
  if (a.at("fell_back").get<bool>()) {
    EXPECT_EQ(sync, "own-barrier") << where;
    EXPECT_NE(row.at("note").get<std::string>().find("window sync"), std::string::npos) << where;
  }
}

}  // namespace harness
