#include "model/money.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace fitscale {

Micros cost_for(Micros micros_per_hour, std::int64_t seconds) {
  // Exact for any realistic price and duration: 128-bit intermediate, rounded half up.
  const __int128 num = static_cast<__int128>(micros_per_hour) * seconds;
  return static_cast<Micros>((num + 1800) / 3600);
}

std::string format_count(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  const int len = static_cast<int>(digits.size());
  for (int i = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[static_cast<std::size_t>(i)]);
  }
  return n < 0 ? "-" + out : out;
}

std::string format_usd(double usd) {
  const bool neg = usd < 0;
  const double a = std::fabs(usd);
  std::string s;
  if (a >= 100 && std::fabs(a - std::round(a)) < 0.005) {
    s = "$" + format_count(static_cast<std::int64_t>(std::llround(a)));
  } else if (a >= 1) {
    const auto whole = static_cast<std::int64_t>(a);
    int cents = static_cast<int>(std::llround((a - static_cast<double>(whole)) * 100));
    std::int64_t w = whole;
    if (cents == 100) {
      ++w;
      cents = 0;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, ".%02d", cents);
    s = "$" + format_count(w) + buf;
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "$%.4g", a);
    s = buf;
  }
  return neg ? "-" + s : s;
}

std::string format_usd_micros(Micros m) { return format_usd(micros_to_dollars(m)); }

}  // namespace fitscale
