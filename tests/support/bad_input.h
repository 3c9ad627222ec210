#pragma once
// The bad-input contract (docs/CONTRIBUTING.md, "Fuzzing") and the mutations that probe it, shared
// by the libFuzzer targets in fuzz/ and the deterministic mutation tests in tests/<layer>/.
//
// Contract: a parser handed any bytes either returns a value or throws InputError whose message
// names the input (the file; "" for a single API object, whose errors name the object) and says
// something more. Any other exception (std::out_of_range from a stray .at(), a library's own
// exception type, bad_alloc from a size taken from the input) is a finding; so are crashes,
// sanitizer reports and hangs, which the harness (ASan/UBSan, the ctest timeout) catches.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "model/error.h"

namespace fitscale::bad_input {

// nullopt when `parse` kept the contract for an input named `place`; else what went wrong.
template <class Parse>
std::optional<std::string> contract_violation(std::string_view place, Parse&& parse) {
  try {
    parse();
    return std::nullopt;
  } catch (const InputError& e) {
    const std::string_view msg = e.what();
    if (msg.find(place) == std::string_view::npos) {
      return "InputError does not name \"" + std::string(place) + "\": " + std::string(msg);
    }
    if (msg.size() < place.size() + 3)
      return "InputError says nothing after the place: " + std::string(msg);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("exception other than InputError (") + typeid(e).name() + "): " + e.what();
  } catch (...) {
    return std::string("exception that is not a std::exception");
  }
}

// `text` with unprintable bytes escaped and cut to a length that fits a test failure message.
inline std::string shown(std::string_view text, std::size_t max = 300) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '\\') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (text.size() > max) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

// "" when `parse` keeps the contract on every input; else the first few breaches with their
// inputs and how many there were, for EXPECT_EQ(..., "").
template <class Parse>
std::string violations(std::string_view place, const std::vector<std::string>& inputs,
                       Parse&& parse, std::size_t max_shown = 3) {
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (auto v = contract_violation(place, [&] { parse(inputs[i]); })) {
      if (n++ < max_shown)
        out += "input #" + std::to_string(i) + " \"" + shown(inputs[i]) + "\": " + *v + "\n";
    }
  }
  if (n > 0)
    out +=
        std::to_string(n) + " of " + std::to_string(inputs.size()) + " inputs broke the contract";
  return out;
}

// A small deterministic generator (splitmix64): the same seed gives the same mutations on every
// compiler and standard library, which std::uniform_int_distribution does not promise.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for test inputs; n > 0.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// Where each line starts (offsets into `text`), the first at 0.
inline std::vector<std::size_t> line_starts(std::string_view text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size()) starts.push_back(i + 1);
  }
  return starts;
}

// Every prefix of `text` that ends at a line boundary, and one that ends in the middle of each
// line: what a file cut off by a full disk or an interrupted copy looks like.
inline std::vector<std::string> truncations(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t start : line_starts(text)) {
    out.emplace_back(text.substr(0, start));
    const std::size_t end = text.find('\n', start);
    const std::size_t len = (end == std::string_view::npos ? text.size() : end) - start;
    if (len > 1) out.emplace_back(text.substr(0, start + len / 2));
  }
  return out;
}

namespace detail {

inline constexpr std::string_view kHugeNumbers[] = {"99999999999999999999999999",
                                                    "9223372036854775807",
                                                    "9223372036854775808",
                                                    "-9223372036854775808",
                                                    "18446744073709551616",
                                                    "2147483648",
                                                    "-1",
                                                    "0",
                                                    "-0",
                                                    "1e308",
                                                    "1e309",
                                                    "-1e308",
                                                    "1e-400",
                                                    "nan",
                                                    "inf",
                                                    "-inf",
                                                    "0x10",
                                                    "1.5",
                                                    "9223372036854775807Ei",
                                                    "9223372036854775807m",
                                                    "1E18",
                                                    "999999999999Ei"};

inline constexpr std::string_view kOddBytes[] = {std::string_view("\0", 1),
                                                 "\xff",
                                                 "\xfe\xff",
                                                 "\xc3\x28",
                                                 "\xed\xa0\x80",
                                                 "\xf4\x90\x80\x80",
                                                 "\xef\xbb\xbf",
                                                 "\"",
                                                 "'",
                                                 ",",
                                                 "\n",
                                                 "\r",
                                                 "\r\n",
                                                 ":",
                                                 "- ",
                                                 "{",
                                                 "}",
                                                 "[",
                                                 "]",
                                                 "<",
                                                 ">",
                                                 "&",
                                                 "\\",
                                                 "\\u0000",
                                                 "#",
                                                 "\t",
                                                 "&#0;",
                                                 "]]>",
                                                 "*",
                                                 "!",
                                                 "%",
                                                 "|",
                                                 ">-",
                                                 "---\n",
                                                 "...\n"};

// The line containing offset `at`: [begin, end) without its newline.
inline std::pair<std::size_t, std::size_t> line_around(const std::string& s, std::size_t at) {
  std::size_t begin = s.rfind('\n', at == 0 ? 0 : at - 1);
  begin = (begin == std::string::npos || at == 0) ? 0 : begin + 1;
  std::size_t end = s.find('\n', at);
  if (end == std::string::npos) end = s.size();
  return {begin, end};
}

// Offsets of the separators of a CSV line [begin, end).
inline std::vector<std::size_t> commas(const std::string& s, std::size_t begin, std::size_t end) {
  std::vector<std::size_t> out;
  for (std::size_t i = begin; i < end; ++i) {
    if (s[i] == ',') out.push_back(i);
  }
  return out;
}

// Removes (or, with `duplicate`, repeats) field `k` of every line: a column deleted or doubled
// by a spreadsheet.
inline std::string edit_column(const std::string& s, std::size_t k, bool duplicate) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = s.find('\n', pos);
    const bool last = end == std::string::npos;
    if (last) end = s.size();
    std::vector<std::string_view> fields;
    std::size_t start = pos;
    for (std::size_t i = pos; i <= end; ++i) {
      if (i == end || s[i] == ',') {
        fields.emplace_back(s.data() + start, i - start);
        start = i + 1;
      }
    }
    if (k < fields.size()) {
      if (duplicate) {
        fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(k), fields[k]);
      } else {
        fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out.push_back(',');
      out.append(fields[i]);
    }
    if (last) return out;
    out.push_back('\n');
    pos = end + 1;
  }
}

}  // namespace detail

// One random edit of `s`: a bit flip, an odd byte (NUL, invalid UTF-8, a delimiter), a run of
// digits replaced by a huge or special number, a line deleted or repeated, a field deleted or
// repeated on one line or in every line, a piece of the text spliced elsewhere, or a cut.
inline void mutate_once(std::string& s, Rng& rng) {
  using namespace detail;
  if (s.empty()) {
    s.append(kOddBytes[rng.below(std::size(kOddBytes))]);
    return;
  }
  const std::size_t at = rng.below(s.size());
  switch (rng.below(11)) {
    case 0:
      s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
      break;
    case 1:
      s.insert(at, kOddBytes[rng.below(std::size(kOddBytes))]);
      break;
    case 2: {
      // A run of digits (with sign, point and exponent) replaced by a huge or special value.
      std::size_t b = at;
      while (b < s.size() && !(s[b] >= '0' && s[b] <= '9')) ++b;
      if (b == s.size()) b = at;
      std::size_t e = b;
      // The number and its suffix ("40Gi", "1.5e3"), so the replacement is the whole value.
      while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '.')) ++e;
      s.replace(b, e - b, kHugeNumbers[rng.below(std::size(kHugeNumbers))]);
      break;
    }
    case 3: {
      auto [b, e] = line_around(s, at);
      s.erase(b, e < s.size() ? e - b + 1 : e - b);
      break;
    }
    case 4: {
      auto [b, e] = line_around(s, at);
      s.insert(b, s.substr(b, e - b) + "\n");
      break;
    }
    case 5: {
      // One field of one line deleted or doubled.
      auto [b, e] = line_around(s, at);
      const std::vector<std::size_t> c = commas(s, b, e);
      if (c.empty()) break;
      const std::size_t i = rng.below(c.size());
      const std::size_t fb = i == 0 ? b : c[i - 1] + 1;
      if (rng.below(2) == 0) {
        s.erase(fb, c[i] - fb + 1);
      } else {
        s.insert(fb, s.substr(fb, c[i] - fb + 1));
      }
      break;
    }
    case 6:
      s = edit_column(s, rng.below(12), rng.below(2) == 1);
      break;
    case 7: {
      const std::size_t from = rng.below(s.size());
      const std::size_t len = 1 + rng.below(std::min<std::size_t>(64, s.size() - from));
      s.insert(at, s.substr(from, len));
      break;
    }
    case 8:
      s.resize(at);
      break;
    case 9:
      s.erase(at, 1 + rng.below(8));
      break;
    default:
      s[at] = kOddBytes[rng.below(std::size(kOddBytes))][0];
      break;
  }
}

// `count` inputs derived from `seed`: each is the seed after one to three random edits, with a
// fixed generator seed so a failure names an input that the next run reproduces.
inline std::vector<std::string> mutations(std::string_view seed, std::size_t count,
                                          std::uint64_t rng_seed) {
  Rng rng(rng_seed);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string s(seed);
    const std::size_t edits = 1 + rng.below(3);
    for (std::size_t k = 0; k < edits; ++k) mutate_once(s, rng);
    out.push_back(std::move(s));
  }
  return out;
}

// What the mutation tests feed a parser: every truncation of `seed`, then `count` mutations.
inline std::vector<std::string> bad_inputs(std::string_view seed, std::size_t count,
                                           std::uint64_t rng_seed) {
  std::vector<std::string> out = truncations(seed);
  std::vector<std::string> more = mutations(seed, count, rng_seed);
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return out;
}

}  // namespace fitscale::bad_input
