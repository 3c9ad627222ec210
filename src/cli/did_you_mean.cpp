#include "cli/did_you_mean.h"

#include <algorithm>

namespace fitscale::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the dynamic programme (i-2, i-1, i).
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_command(std::string_view typed,
                                           const std::vector<std::string>& commands) {
  if (typed.size() > 64) return std::nullopt;  // no typo of a command is that long
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& c : commands) {
    const std::size_t d = edit_distance(typed, c);
    if (d < best_distance && d * 2 < c.size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace fitscale::cli
