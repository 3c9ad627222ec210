#pragma once
#include <cstdint>
#include <string>

namespace fitscale {

// Money in the ledger and budgets is integer micro-dollars; floating point is only for ranking.
using Micros = std::int64_t;
constexpr Micros kMicrosPerDollar = 1'000'000;

inline Micros dollars_to_micros(double usd) {
  return static_cast<Micros>(usd * 1e6 + (usd >= 0 ? 0.5 : -0.5));
}
inline double micros_to_dollars(Micros m) { return static_cast<double>(m) / 1e6; }

// Cost of running at `micros_per_hour` for `seconds`, rounded to the nearest micro-dollar.
Micros cost_for(Micros micros_per_hour, std::int64_t seconds);

// "$1,152", "$82,944", "$7.34", "$0.0042": for reasons and summaries a person reads.
std::string format_usd(double usd);
std::string format_usd_micros(Micros m);
// "1,952" — thousands separators for counts in messages.
std::string format_count(std::int64_t n);

}  // namespace fitscale
