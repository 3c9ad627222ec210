#include "model/gang_sources/gang_source.h"

#include <charconv>

namespace fitscale {

std::optional<std::int64_t> read_gang_size(const Labels& labels, const Annotations& annotations,
                                           std::initializer_list<std::string_view> keys,
                                           std::optional<GangProblem>& problem) {
  for (std::string_view key : keys) {
    for (const auto* m : {&labels, &annotations}) {
      auto it = m->find(key);
      if (it == m->end()) continue;
      const std::string& v = it->second;
      std::int64_t n = 0;
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || ptr != v.data() + v.size() || n < 1) {
        problem =
            GangProblem{std::string(m == &labels ? "metadata.labels." : "metadata.annotations.") +
                            std::string(key),
                        "gang size must be a whole number >= 1, got \"" + v + "\""};
        return std::nullopt;
      }
      return n;
    }
  }
  return std::nullopt;
}

}  // namespace fitscale
