#pragma once
// `--interval`-like flags: a whole number of seconds, at least 1. A 0 or a negative value is an
// error naming the flag (CLI11 prefixes it), not a silent "use the default".
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>

namespace fitscale::cli {

inline CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        std::int64_t n = 0;
        const char* end = v.data() + v.size();
        const auto [ptr, ec] = std::from_chars(v.data(), end, n);
        if (ec != std::errc() || ptr != end) {
          return "must be a whole number of seconds, got '" + v + "'";
        }
        if (n < 1) return "must be at least 1 second, got " + v;
        return "";
      },
      "SECONDS>0");
}

}  // namespace fitscale::cli
