#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace fitscale {

// Seconds since the Unix epoch, UTC. Everything below cli/ gets time from an injected Clock.
using Time = std::int64_t;
using Seconds = std::int64_t;

// Go-style duration ("36h", "90m", "1h30m", "45s", "2h0m0.5s" rounded up to whole seconds).
// Also accepts a bare integer number of seconds. Throws InputError.
Seconds parse_duration(std::string_view text);
std::string format_duration(Seconds s);  // "1h30m0s"-like, for messages

// Start of the UTC calendar day / month containing t.
Time utc_day_start(Time t);
Time utc_month_start(Time t);
Time utc_next_month_start(Time t);

// RFC 3339 "2026-11-29T21:45:10Z" <-> Time.
std::string format_rfc3339(Time t);
Time parse_rfc3339(std::string_view text);  // throws InputError

}  // namespace fitscale
