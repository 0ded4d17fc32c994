// core::not_converged_reason(): the one decision whether a row's figure is converged, on planted
// accurate results, on rows as the database gives them back, and on classic rows.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/accurate.hpp"
#include "core/convergence.hpp"
#include "db/results_db.hpp"

using namespace mpiscope::core;

namespace {

// A point of `n` valid samples spread evenly over [centre - spread, centre + spread] seconds.
AccurateResult planted(int n, double centre, double spread, StopReason stop) {
  AccurateResult r;
  for (int i = 0; i < n; ++i)
    r.samples.push_back(centre - spread + 2 * spread * i / std::max(1, n - 1));
  r.attempted = n;
  r.stop = stop;
  r.sync_used = SyncMethod::OwnBarrier;
  r.timer_floor_s = 30e-9;
  r.repetitions_per_sample = 1;
  r.stopping.target_relative_half_width = 0.02;
  r.stopping.min_repetitions = 20;
  return r;
}

Measurement row_of(const AccurateResult& r) {
  Measurement m;
  fill_accurate_row(r, false, m);
  return m;
}

// The row as `mpiscope report` and `compare` read it back from the database: no statistics,
// the stored values and note.
Measurement read_back(const Measurement& live) {
  Measurement m = mpiscope::db::row_as_stored(live);
  m.accurate.reset();
  return m;
}

bool note_flags(const Measurement& m) {
  return m.note.rfind(std::string(kNotConvergedPrefix), 0) == 0;
}

}  // namespace

TEST(Convergence, AConvergedPointIsNotFlaggedAnywhere) {
  const Measurement m = row_of(planted(200, 10e-6, 0.05e-6, StopReason::Converged));
  EXPECT_EQ(not_converged_reason(m), std::nullopt);
  EXPECT_EQ(m.note.find("converged"), std::string::npos) << m.note;
  const Measurement stored = read_back(m);
  ASSERT_NE(stored.value("converged"), nullptr);
  EXPECT_EQ(stored.value("converged")->value, 1);
  EXPECT_EQ(not_converged_reason(stored), std::nullopt);
}

// The row: stopped by the budget with an interval far wider than its target.
TEST(Convergence, StoppedByTheBudgetWithAWideIntervalIsNotConverged) {
  const Measurement m = row_of(planted(40, 3000e-6, 2990e-6, StopReason::Budget));
  const auto why = not_converged_reason(m);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("time budget"), std::string::npos) << *why;
  EXPECT_NE(why->find("(target +-2%)"), std::string::npos) << *why;
  EXPECT_TRUE(note_flags(m)) << m.note;
  const Measurement stored = read_back(m);
  EXPECT_EQ(stored.value("converged")->value, 0);
  EXPECT_EQ(not_converged_reason(stored), why);
}

TEST(Convergence, FewerValidRepetitionsThanRequiredIsNotConverged) {
  const Measurement m = row_of(planted(8, 5e-6, 0.01e-6, StopReason::Budget));
  const auto why = not_converged_reason(m);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("8 valid repetitions of the 20 required"), std::string::npos) << *why;
  const Measurement too_few = row_of(planted(3, 5e-6, 0.01e-6, StopReason::MaxRepetitions));
  ASSERT_TRUE(not_converged_reason(too_few));
  EXPECT_NE(not_converged_reason(too_few)->find("maximum count"), std::string::npos);
}

TEST(Convergence, ALevelShiftIsNotConvergedAndIsSaidOnce) {
  AccurateResult r = planted(200, 10e-6, 0.05e-6, StopReason::Converged);
  r.level_shift = {.detected = true, .first_median = 8e-6, .second_median = 12e-6};
  const Measurement m = row_of(r);
  const auto why = not_converged_reason(m);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("changed speed during the point (median 8.00 usec"), std::string::npos)
      << *why;
  EXPECT_EQ(m.note.find("changed speed"), m.note.rfind("changed speed")) << m.note;
  // Two reasons are one text, read back whole from the note.
  r.stop = StopReason::Budget;
  const Measurement both = row_of(r);
  EXPECT_NE(not_converged_reason(both)->find(", and the machine changed speed"), std::string::npos);
  EXPECT_EQ(not_converged_reason(read_back(both)), not_converged_reason(both));
}

TEST(Convergence, ANegativeMedianOrOneTheTimerCannotResolveIsNotConverged) {
  const Measurement negative = row_of(planted(200, -0.5e-6, 0.001e-6, StopReason::Converged));
  ASSERT_TRUE(not_converged_reason(negative));
  EXPECT_NE(not_converged_reason(negative)->find("negative median"), std::string::npos);

  AccurateResult tiny = planted(200, 20e-9, 0.1e-9, StopReason::Converged);  // floor 30 ns
  ASSERT_TRUE(not_converged_reason(row_of(tiny)));
  EXPECT_NE(not_converged_reason(row_of(tiny))->find("timer's resolution"), std::string::npos);
  // 1000 repetitions per sample: a 20 us sample, well resolved; the figure is per repetition.
  tiny.repetitions_per_sample = 1000;
  EXPECT_EQ(not_converged_reason(row_of(tiny)), std::nullopt);
}

TEST(Convergence, ReadBackRowsAndClassicRows) {
  Measurement skipped;
  skipped.measured = false;
  skipped.note = "not converged: planted";
  EXPECT_EQ(not_converged_reason(skipped), std::nullopt);

  // Another note before and after the reason (a window fall-back, the sample size).
  Measurement stored;
  stored.measured = true;
  stored.t_max_us = 5;
  stored.values = {{"converged", 0, "bool"}};
  stored.note = "window sync: fell back; not converged: planted reason, and more; a sample is 4";
  EXPECT_EQ(not_converged_reason(stored), "planted reason, and more");
  // SKaMPI's classic rows: its own flag, its own note.
  stored.note = "standard error not reached within Max_Repetition/Time_Measurement";
  EXPECT_EQ(not_converged_reason(stored), stored.note);
  stored.values = {{"converged", 1, "bool"}};
  EXPECT_EQ(not_converged_reason(stored), std::nullopt);

  Measurement classic;
  classic.measured = true;
  classic.t_min_us = classic.t_max_us = classic.t_avg_us = 1.5;
  EXPECT_EQ(not_converged_reason(classic), std::nullopt);
  classic.t_min_us = classic.t_max_us = classic.t_avg_us = -0.527;  // SKaMPI's Gather at 16 B
  ASSERT_TRUE(not_converged_reason(classic));
  EXPECT_NE(not_converged_reason(classic)->find("negative time"), std::string::npos);
}

// A SKaMPI output file keeps the row's statistics but not a level shift; the row's recorded
// `converged` 0 stands over statistics that, as kept, look converged (the JSON of an accurate
// SKaMPI run once said converged where its own file said 0).
TEST(Convergence, ARecordedVerdictStandsOverStatisticsThatLostWhatDecidedIt) {
  Measurement kept = row_of(planted(200, 1e-6, 0.001e-6, StopReason::Converged));
  ASSERT_EQ(not_converged_reason(kept), std::nullopt);
  kept.values = {{"converged", 0, "bool"}};
  kept.note = "not converged: the machine changed speed during the point";
  EXPECT_EQ(not_converged_reason(kept), "the machine changed speed during the point");
  kept.values = {{"converged", 1, "bool"}};
  EXPECT_EQ(not_converged_reason(kept), std::nullopt);
}
