#include "model/money.h"

#include <gtest/gtest.h>

namespace fitscale {

TEST(Money, CostForAnHourIsThePrice) { EXPECT_EQ(cost_for(7'344'000, 3600), 7'344'000); }
TEST(Money, CostPerSecondRoundsToNearestMicro) { EXPECT_EQ(cost_for(1'000'000, 1), 278); }
TEST(Money, FormatsDollarsForPeople) {
  EXPECT_EQ(format_usd(82944), "$82,944");
  EXPECT_EQ(format_usd(1152), "$1,152");
  EXPECT_EQ(format_usd(7.344), "$7.34");
  EXPECT_EQ(format_count(1952), "1,952");
}

}  // namespace fitscale
