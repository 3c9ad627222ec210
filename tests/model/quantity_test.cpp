#include "model/quantity.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace fitscale {
namespace {

std::int64_t milli(const char* s) { return Quantity::parse(s).milli(); }

std::string error_of(const char* s) {
  try {
    Quantity::parse(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Quantity, DecimalAndMilliForms) {
  EXPECT_EQ(milli("500m"), 500);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("2"), 2000);
  EXPECT_EQ(milli("0"), 0);
  EXPECT_EQ(milli(".5"), 500);
  EXPECT_EQ(milli("5."), 5000);
  EXPECT_EQ(milli("+3"), 3000);
  EXPECT_EQ(milli("-250m"), -250);
}

TEST(Quantity, BinarySuffixesAreExactBytes) {
  EXPECT_EQ(Quantity::parse("16Gi").units_ceil(), 17'179'869'184);
  EXPECT_EQ(Quantity::parse("1.5Ki").units_ceil(), 1536);
  EXPECT_EQ(Quantity::parse("100Mi").units_ceil(), 104'857'600);
  EXPECT_EQ(Quantity::parse("1Ti").units_ceil(), 1'099'511'627'776);
  EXPECT_EQ(Quantity::parse("1Pi").units_ceil(), 1'125'899'906'842'624);
}

TEST(Quantity, DecimalSuffixes) {
  EXPECT_EQ(Quantity::parse("128974848").units_ceil(), 128'974'848);
  EXPECT_EQ(Quantity::parse("129e6").units_ceil(), 129'000'000);
  EXPECT_EQ(Quantity::parse("123M").units_ceil(), 123'000'000);
  EXPECT_EQ(Quantity::parse("1k").units_ceil(), 1000);
  EXPECT_EQ(Quantity::parse("2G").units_ceil(), 2'000'000'000);
  EXPECT_EQ(Quantity::parse("1T").units_ceil(), 1'000'000'000'000);
  EXPECT_EQ(Quantity::parse("1P").units_ceil(), 1'000'000'000'000'000);
  EXPECT_EQ(milli("1u"), 1);        // 0.000001 rounds up to one milli-unit
  EXPECT_EQ(milli("1000000n"), 1);  // exactly 1m
  EXPECT_EQ(milli("1500000n"), 2);  // 1.5m rounds up
}

TEST(Quantity, ExponentForms) {
  EXPECT_EQ(milli("1e3"), 1'000'000);
  EXPECT_EQ(milli("1E3"), 1'000'000);
  EXPECT_EQ(milli("1.5e2"), 150'000);
  EXPECT_EQ(milli("5e-1"), 500);
  EXPECT_EQ(milli("1e-4"), 1);  // 0.1m rounds up
  EXPECT_EQ(milli("2e+2"), 200'000);
}

TEST(Quantity, SubMilliRoundsUpLikeKubernetes) {
  EXPECT_EQ(milli("0.1m"), 1);
  EXPECT_EQ(milli("0.0001"), 1);
  EXPECT_EQ(milli("1.0001"), 1001);
  EXPECT_EQ(milli("0.0001Ki"), 103);  // 0.1024 units = 102.4m
  // Rounding is towards +infinity, so a negative value loses its fraction.
  EXPECT_EQ(milli("-0.1m"), 0);
  // Many digits take the exact slow path and still round up.
  EXPECT_EQ(milli("0.0000000000000000000000000001"), 1);
  EXPECT_EQ(milli("1.000000000000000000000000000000001Gi"), 1'073'741'824'001);
}

TEST(Quantity, LargeValuesAndOverflow) {
  EXPECT_EQ(milli("9223372036854775"), 9'223'372'036'854'775'000);
  EXPECT_NE(error_of("9223372036854776").find("out of range"), std::string::npos);
  // Held in milli-units, int64 reaches 9.2e15 units: an exbibyte is past that.
  EXPECT_NE(error_of("1Ei").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("1E").find("out of range"), std::string::npos);
  EXPECT_EQ(Quantity::parse("8Pi").units_ceil(), 9'007'199'254'740'992);
  EXPECT_NE(error_of("1e100").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("100000000000000000000000000").find("out of range"), std::string::npos);
}

TEST(Quantity, MalformedInputIsAnErrorNamingTheText) {
  EXPECT_EQ(error_of("12x"), "bad quantity \"12x\": unknown suffix \"x\"");
  EXPECT_EQ(error_of(""), "bad quantity \"\": empty");
  EXPECT_EQ(error_of("Gi"), "bad quantity \"Gi\": must start with a number");
  EXPECT_EQ(error_of("--1"), "bad quantity \"--1\": must start with a number");
  EXPECT_EQ(error_of("1.5.5"), "bad quantity \"1.5.5\": unexpected \".\" after the number");
  EXPECT_EQ(error_of("."), "bad quantity \".\": no digits");
  EXPECT_EQ(error_of("1e"), "bad quantity \"1e\": exponent has no digits");
  EXPECT_EQ(error_of("1ki"), "bad quantity \"1ki\": unknown suffix \"ki\"");
  EXPECT_EQ(error_of(" 1"), "bad quantity \" 1\": must start with a number");
  EXPECT_EQ(error_of("1 "), "bad quantity \"1 \": unknown suffix \" \"");
  EXPECT_EQ(error_of("1e3.5"), "bad quantity \"1e3.5\": bad exponent \"e3.5\"");
  EXPECT_EQ(error_of("1Mi2"), "bad quantity \"1Mi2\": unknown suffix \"Mi2\"");
}

TEST(Quantity, UnitsCeil) {
  EXPECT_EQ(Quantity::from_milli(1).units_ceil(), 1);
  EXPECT_EQ(Quantity::from_milli(1000).units_ceil(), 1);
  EXPECT_EQ(Quantity::from_milli(1001).units_ceil(), 2);
  EXPECT_EQ(Quantity::from_units(3).milli(), 3000);
}

TEST(Quantity, FormatsGiB) {
  EXPECT_EQ(format_bytes_gib(16LL << 30), "16Gi");
  EXPECT_EQ(format_bytes_gib(3LL << 29), "1.5Gi");
}

}  // namespace
}  // namespace fitscale
