#include "model/quantity.h"

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "model/bounded_text.h"
#include "model/error.h"

namespace fitscale {
namespace {

using i128 = __int128;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw InputError("bad quantity \"" + bounded_text(text) + "\": " + std::string(why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The suffix after the number: a power of two and a power of ten (10^dec x 2^bin).
struct Scale {
  int dec = 0;
  int bin = 0;
};

Scale parse_suffix(std::string_view text, std::string_view suffix) {
  if (suffix.empty()) return {};
  if (suffix.size() == 2 && suffix[1] == 'i') {
    switch (suffix[0]) {
      case 'K':
        return {0, 10};
      case 'M':
        return {0, 20};
      case 'G':
        return {0, 30};
      case 'T':
        return {0, 40};
      case 'P':
        return {0, 50};
      case 'E':
        return {0, 60};
      default:
        break;
    }
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        return {-9, 0};
      case 'u':
        return {-6, 0};
      case 'm':
        return {-3, 0};
      case 'k':
        return {3, 0};
      case 'M':
        return {6, 0};
      case 'G':
        return {9, 0};
      case 'T':
        return {12, 0};
      case 'P':
        return {15, 0};
      case 'E':
        return {18, 0};  // "E" alone is exa; "E3" below is an exponent
      default:
        break;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view exp = suffix.substr(1);
    bool neg = false;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
      neg = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty()) fail(text, "exponent has no digits");
    int v = 0;
    for (char c : exp) {
      if (!is_digit(c)) fail(text, "bad exponent \"" + std::string(suffix) + "\"");
      v = v * 10 + (c - '0');
      if (v > 1000) fail(text, "exponent out of range");
    }
    return {neg ? -v : v, 0};
  }
  fail(text, "unknown suffix \"" + std::string(suffix) + "\"");
}

// floor(|x|) and whether anything was cut off, for |x| = digits x 2^bin x 10^exp10.
// `digits` holds decimal digits without leading zeros.
struct Magnitude {
  i128 floor = 0;
  bool inexact = false;
  bool overflow = false;
};

i128 pow10(int k) {
  i128 p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

Magnitude magnitude_fast(std::uint64_t digits, int bin, int exp10) {
  // digits < 10^18 and bin <= 60, so digits x 2^bin < 2^120: no overflow in 128 bits.
  Magnitude m;
  i128 v = static_cast<i128>(digits) << bin;
  if (exp10 >= 0) {
    if (v > kMax) m.overflow = true;
    for (int i = 0; i < exp10 && !m.overflow; ++i) {
      v *= 10;
      m.overflow = v > kMax;
    }
    m.floor = v;
    return m;
  }
  const int k = -exp10;
  if (k > 38) {
    m.floor = 0;
    m.inexact = v != 0;
    return m;
  }
  const i128 p = pow10(k);
  m.floor = v / p;
  m.inexact = v % p != 0;
  return m;
}

// Exact decimal arithmetic for the rare inputs with many significant digits.
Magnitude magnitude_slow(const std::string& digits, int bin, int exp10) {
  // Multiply the decimal digit string by 2^bin.
  std::vector<int> d;
  d.reserve(digits.size() + 20);
  for (char c : digits) d.push_back(c - '0');
  for (int b = 0; b < bin; ++b) {
    int carry = 0;
    for (auto it = d.rbegin(); it != d.rend(); ++it) {
      const int x = *it * 2 + carry;
      *it = x % 10;
      carry = x / 10;
    }
    if (carry) d.insert(d.begin(), carry);
  }
  // The decimal point sits `exp10` places right of the last digit.
  const long point = static_cast<long>(d.size()) + exp10;
  Magnitude m;
  if (point <= 0) {
    for (int x : d) m.inexact |= x != 0;
    return m;
  }
  for (long i = 0; i < point; ++i) {
    const int x = i < static_cast<long>(d.size()) ? d[static_cast<std::size_t>(i)] : 0;
    m.floor = m.floor * 10 + x;
    if (m.floor > kMax) {
      m.overflow = true;
      return m;
    }
  }
  for (long i = point; i < static_cast<long>(d.size()); ++i)
    m.inexact |= d[static_cast<std::size_t>(i)] != 0;
  return m;
}

}  // namespace

Quantity Quantity::parse(std::string_view text) {
  if (text.empty()) fail(text, "empty");
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  // Significant digits of the number, integer and fraction part together.
  std::string_view int_part;
  std::string_view frac_part;
  const std::size_t int_start = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  int_part = text.substr(int_start, i - int_start);
  bool had_point = false;
  if (i < text.size() && text[i] == '.') {
    had_point = true;
    ++i;
    const std::size_t frac_start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    frac_part = text.substr(frac_start, i - frac_start);
  }
  if (int_part.empty() && frac_part.empty()) {
    fail(text, had_point ? "no digits" : "must start with a number");
  }
  const std::string_view suffix = text.substr(i);
  if (!suffix.empty() && (suffix[0] == '.' || suffix[0] == '+' || suffix[0] == '-')) {
    fail(text, "unexpected \"" + std::string(1, suffix[0]) + "\" after the number");
  }
  const Scale scale = parse_suffix(text, suffix);

  // Drop trailing zeros of the fraction and leading zeros of the whole: they do not change the
  // value and keep the common case ("0.5", "100.0") on the fast path.
  while (!frac_part.empty() && frac_part.back() == '0') frac_part.remove_suffix(1);
  std::string digits;
  digits.reserve(int_part.size() + frac_part.size());
  digits.append(int_part);
  digits.append(frac_part);
  std::size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);

  // milli = digits x 10^(dec + 3 - fraction digits) x 2^bin
  const int exp10 = scale.dec + 3 - static_cast<int>(frac_part.size());
  Magnitude mag;
  if (digits.empty()) {
    mag = {};
  } else if (digits.size() <= 18) {
    std::uint64_t v = 0;
    for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    mag = magnitude_fast(v, scale.bin, exp10);
  } else {
    mag = magnitude_slow(digits, scale.bin, exp10);
  }
  if (mag.overflow) fail(text, "out of range");
  // Round up (towards +infinity), as Kubernetes does for values finer than a milli-unit.
  i128 milli = negative ? -mag.floor : mag.floor + (mag.inexact ? 1 : 0);
  if (milli > kMax) fail(text, "out of range");
  return Quantity(static_cast<std::int64_t>(milli));
}

std::string format_bytes_gib(std::int64_t bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const double gib = static_cast<double>(bytes) / kGiB;
  char buf[48];
  // One decimal, dropped when it is zero: "16Gi", "1.5Gi", "0.1Gi".
  std::snprintf(buf, sizeof buf, "%.1f", gib);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + "Gi";
}

}  // namespace fitscale
