// The progress line's text (core/progress.hpp): the elapsed time and, from the rate so far, an
// estimate of the time left, marked with '~', as every suite's progress shows it.
#include <gtest/gtest.h>

#include "core/progress.hpp"

using namespace mpiscope;

TEST(ProgressText, ElapsedAndAnEstimateOfTheTimeLeft) {
  EXPECT_EQ(core::elapsed_and_left(65, 0, 10), "elapsed 1:05");  // no rate yet: no estimate
  EXPECT_EQ(core::elapsed_and_left(60, 1, 3), "elapsed 1:00 | ~2:00 left");
  EXPECT_EQ(core::elapsed_and_left(3600, 1, 2), "elapsed 1:00:00 | ~1:00:00 left");
  EXPECT_EQ(core::elapsed_and_left(10, 5, 0), "elapsed 0:10");  // total unknown
  EXPECT_EQ(core::ProgressDisplay::line("imb-mpi1", "PingPong, 8 bytes", 1, 4, 30),
            "mpiscope imb-mpi1: PingPong, 8 bytes | point 2/4 | elapsed 0:30 | ~1:30 left");
}
