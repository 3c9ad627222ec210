#include "model/time.h"

#include <chrono>
#include <cstdio>
#include <limits>

#include "model/bounded_text.h"
#include "model/error.h"

namespace fitscale {
namespace {

using i128 = __int128;
namespace chr = std::chrono;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void bad_duration(std::string_view text, std::string_view why) {
  throw InputError("bad duration \"" + bounded_text(text) + "\": " + std::string(why) +
                   " (expected e.g. \"36h\", \"90m\", \"1h30m\")");
}

// Nanoseconds per unit of a Go duration, 0 when `u` is no unit.
std::int64_t unit_ns(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1'000;  // us, µs (two code points)
  if (u == "ms") return 1'000'000;
  if (u == "s") return 1'000'000'000;
  if (u == "m") return 60'000'000'000;
  if (u == "h") return 3'600'000'000'000;
  return 0;
}

Time floor_div(Time a, Time b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

[[noreturn]] void bad_time(std::string_view text, std::string_view why) {
  throw InputError("bad time \"" + bounded_text(text) + "\": " + std::string(why) +
                   " (expected RFC 3339, e.g. \"2026-11-29T21:45:10Z\")");
}

}  // namespace

Seconds parse_duration(std::string_view text) {
  if (text.empty()) bad_duration(text, "empty");
  std::string_view s = text;
  if (s[0] == '+') s.remove_prefix(1);
  if (!s.empty() && s[0] == '-') bad_duration(text, "negative");
  if (s.empty()) bad_duration(text, "no number");
  // A bare integer is a number of seconds.
  bool all_digits = true;
  for (char c : s) all_digits &= is_digit(c);
  if (all_digits) {
    if (s.size() > 18) bad_duration(text, "out of range");
    Seconds v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v;
  }
  i128 total_ns = 0;
  constexpr i128 kLimitNs =
      static_cast<i128>(std::numeric_limits<std::int64_t>::max()) * 1'000'000'000;
  while (!s.empty()) {
    std::size_t i = 0;
    i128 whole = 0;
    while (i < s.size() && is_digit(s[i])) {
      whole = whole * 10 + (s[i] - '0');
      if (whole > kLimitNs) bad_duration(text, "out of range");
      ++i;
    }
    const bool had_whole = i > 0;
    i128 frac = 0;
    i128 frac_scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      const std::size_t fs = i;
      while (i < s.size() && is_digit(s[i])) {
        // Digits beyond nanosecond precision of an hour cannot matter; Go drops them too.
        if (frac_scale < static_cast<i128>(1'000'000'000'000'000'000)) {
          frac = frac * 10 + (s[i] - '0');
          frac_scale *= 10;
        }
        ++i;
      }
      if (!had_whole && i == fs) bad_duration(text, "number has no digits");
    } else if (!had_whole) {
      bad_duration(text, "expected a number at \"" + bounded_text(s, 32) + "\"");
    }
    std::size_t u = i;
    while (u < s.size() && !is_digit(s[u]) && s[u] != '.') ++u;
    const std::string_view unit = s.substr(i, u - i);
    if (unit.empty()) bad_duration(text, "missing unit (ns, us, ms, s, m, h)");
    const std::int64_t ns = unit_ns(unit);
    if (ns == 0) bad_duration(text, "unknown unit \"" + bounded_text(unit, 32) + "\"");
    if (whole > kLimitNs / ns) bad_duration(text, "out of range");
    total_ns += whole * ns + frac * ns / frac_scale;
    if (total_ns > kLimitNs) bad_duration(text, "out of range");
    s.remove_prefix(u);
  }
  // Round up to whole seconds: a budget's worst case must not be under-estimated.
  return static_cast<Seconds>((total_ns + 999'999'999) / 1'000'000'000);
}

std::string format_duration(Seconds s) {
  std::string out;
  if (s < 0) {
    out = "-";
    s = -s;
  }
  const Seconds h = s / 3600;
  const Seconds m = (s % 3600) / 60;
  const Seconds sec = s % 60;
  // Go's time.Duration.String() shape: "36h0m0s", "1m30s", "45s".
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  out += std::to_string(sec) + "s";
  return out;
}

Time utc_day_start(Time t) { return floor_div(t, 86400) * 86400; }

Time utc_month_start(Time t) {
  const chr::sys_days day{chr::days{floor_div(t, 86400)}};
  const chr::year_month_day ymd{day};
  const chr::sys_days first{ymd.year() / ymd.month() / chr::day{1}};
  return static_cast<Time>(first.time_since_epoch().count()) * 86400;
}

Time utc_next_month_start(Time t) {
  const chr::sys_days day{chr::days{floor_div(t, 86400)}};
  const chr::year_month_day ymd{day};
  const chr::year_month next = ymd.year() / ymd.month() + chr::months{1};
  const chr::sys_days first{next / chr::day{1}};
  return static_cast<Time>(first.time_since_epoch().count()) * 86400;
}

std::string format_rfc3339(Time t) {
  const Time days = floor_div(t, 86400);
  const Time rem = t - days * 86400;
  const chr::year_month_day ymd{chr::sys_days{chr::days{days}}};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<long long>(rem / 3600),
                static_cast<long long>((rem % 3600) / 60), static_cast<long long>(rem % 60));
  return buf;
}

Time parse_rfc3339(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM); the fraction is dropped (whole seconds).
  auto num = [&](std::size_t pos, std::size_t len) {
    if (pos + len > text.size()) bad_time(text, "too short");
    int v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (!is_digit(text[i]))
        bad_time(text, "expected a digit at position " + std::to_string(i + 1));
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  auto expect = [&](std::size_t pos, char c) {
    if (pos >= text.size() || text[pos] != c) {
      bad_time(text, "expected '" + std::string(1, c) + "' at position " + std::to_string(pos + 1));
    }
  };
  const int year = num(0, 4);
  expect(4, '-');
  const int month = num(5, 2);
  expect(7, '-');
  const int day = num(8, 2);
  if (text.size() <= 10 || (text[10] != 'T' && text[10] != 't' && text[10] != ' ')) {
    bad_time(text, "expected 'T' at position 11");
  }
  const int hour = num(11, 2);
  expect(13, ':');
  const int minute = num(14, 2);
  expect(16, ':');
  const int second = num(17, 2);
  std::size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t fs = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == fs) bad_time(text, "fraction has no digits");
  }
  int offset_s = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    const int sign = text[i] == '-' ? -1 : 1;
    const int oh = num(i + 1, 2);
    expect(i + 3, ':');
    const int om = num(i + 4, 2);
    if (oh > 23 || om > 59) bad_time(text, "bad zone offset");
    offset_s = sign * (oh * 3600 + om * 60);
    i += 6;
  } else {
    bad_time(text, "missing zone (Z or +HH:MM)");
  }
  if (i != text.size()) bad_time(text, "unexpected text after the zone");
  const chr::year_month_day ymd{chr::year{year}, chr::month{static_cast<unsigned>(month)},
                                chr::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) bad_time(text, "no such date");
  if (hour > 23 || minute > 59 || second > 60) bad_time(text, "no such time of day");
  const Time days = chr::sys_days{ymd}.time_since_epoch().count();
  return days * 86400 + Time{hour} * 3600 + Time{minute} * 60 + second - offset_s;
}

}  // namespace fitscale
