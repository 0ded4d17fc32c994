#include "output/text_table.hpp"

#include <gtest/gtest.h>

using mpiscope::output::TextTable;

TEST(TextTable, RightAlignsEveryColumnToItsWidestCell) {
  TextTable t({"bytes", "MB/s"});
  t.add_row({"1", "0.25"});
  t.add_row({"4194304", "10234.50"});
  EXPECT_EQ(t.render("  "),
            "    bytes      MB/s\n"
            "  -----------------\n"
            "        1      0.25\n"
            "  4194304  10234.50\n");
}

TEST(TextTable, FormatsNumbersInFixedNotation) {
  EXPECT_EQ(mpiscope::output::format_number(1234567.891, 2), "1234567.89");
  EXPECT_EQ(mpiscope::output::format_number(0.000123, 3), "0.000");
}
