#include "model/time.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace fitscale {
namespace {

std::string duration_error(const char* s) {
  try {
    parse_duration(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Duration, GoStyle) {
  EXPECT_EQ(parse_duration("36h"), 129600);
  EXPECT_EQ(parse_duration("90m"), 5400);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("45s"), 45);
  EXPECT_EQ(parse_duration("1.5h"), 5400);
  EXPECT_EQ(parse_duration("2h0m0.5s"), 7201) << "rounded up to whole seconds";
  EXPECT_EQ(parse_duration("1500ms"), 2);
  EXPECT_EQ(parse_duration("1us"), 1);
  EXPECT_EQ(parse_duration("1µs"), 1);
  EXPECT_EQ(parse_duration("0s"), 0);
  EXPECT_EQ(parse_duration("0"), 0);
  EXPECT_EQ(parse_duration("3600"), 3600) << "bare integer = seconds";
  EXPECT_EQ(parse_duration("+1m"), 60);
}

TEST(Duration, BadInput) {
  EXPECT_NE(duration_error("forever").find("bad duration \"forever\""), std::string::npos);
  EXPECT_NE(duration_error("").find("empty"), std::string::npos);
  EXPECT_NE(duration_error("10d").find("unknown unit \"d\""), std::string::npos);
  EXPECT_NE(duration_error("1.5").find("missing unit"), std::string::npos);
  EXPECT_NE(duration_error("-1h").find("negative"), std::string::npos);
  EXPECT_NE(duration_error("h").find("expected a number"), std::string::npos);
  EXPECT_NE(duration_error("99999999999999999999h").find("out of range"), std::string::npos);
}

TEST(Duration, Formats) {
  EXPECT_EQ(format_duration(5400), "1h30m0s");
  EXPECT_EQ(format_duration(90), "1m30s");
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(129600), "36h0m0s");
  EXPECT_EQ(parse_duration(format_duration(98765)), 98765);
}

TEST(CalendarTime, UtcDayAndMonthStarts) {
  const Time t = 1795988710;  // 2026-11-29T21:45:10Z
  EXPECT_EQ(utc_day_start(t), 1795910400);
  EXPECT_EQ(utc_month_start(t), 1793491200);       // 2026-11-01
  EXPECT_EQ(utc_next_month_start(t), 1796083200);  // 2026-12-01
  EXPECT_EQ(utc_next_month_start(1796083200), 1798761600) << "December rolls into the next year";
  EXPECT_EQ(utc_month_start(1709208000), 1706745600);       // 2024-02-29 -> 2024-02-01
  EXPECT_EQ(utc_next_month_start(1709208000), 1709251200);  // leap year: 2024-03-01
  EXPECT_EQ(utc_day_start(-3600), -86400) << "before the epoch rounds down, not towards zero";
}

TEST(CalendarTime, Rfc3339) {
  EXPECT_EQ(parse_rfc3339("2026-11-29T21:45:10Z"), 1795988710);
  EXPECT_EQ(format_rfc3339(1795988710), "2026-11-29T21:45:10Z");
  EXPECT_EQ(parse_rfc3339("2026-11-29T21:45:10.123456Z"), 1795988710);
  EXPECT_EQ(parse_rfc3339("2026-11-29T22:45:10+01:00"), 1795988710);
  EXPECT_EQ(parse_rfc3339("2026-11-29T20:15:10-01:30"), 1795988710);
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_THROW(parse_rfc3339("2026-11-29"), InputError);
  EXPECT_THROW(parse_rfc3339("2026-02-30T00:00:00Z"), InputError);
  EXPECT_THROW(parse_rfc3339("2026-11-29T21:45:10"), InputError);
  EXPECT_THROW(parse_rfc3339("yesterday"), InputError);
  try {
    parse_rfc3339("2026-11-29T21:45:10Q");
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "bad time \"2026-11-29T21:45:10Q\": missing zone (Z or +HH:MM) (expected RFC 3339, e.g. "
        "\"2026-11-29T21:45:10Z\")");
  }
}

}  // namespace
}  // namespace fitscale
