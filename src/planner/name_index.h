#pragma once
// Node names to their place in a list, rebuilt on every plan and every reclaim decision: an
// open-addressing table (a power of two at least twice the names, linear probing) with an
// inlined hash. A std::unordered_map's allocation per node, and std::hash (an out-of-line call
// of about 90 instructions for a node name), were most of what indexing the nodes and their pods
// cost. The names are views: what they point into must outlive the index.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace fitscale::planner {

class NameIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Room for at most `names` names, all added before any find(). With a name twice, the first
  // one added wins (it sits earlier on its probe sequence), as std::unordered_map::emplace keeps
  // the first.
  explicit NameIndex(std::size_t names);
  void add(std::string_view name, std::uint32_t at);
  // The place given to `name`, or kNone.
  std::uint32_t find(std::string_view name) const {
    for (std::size_t h = hash(name) & mask_;; h = (h + 1) & mask_) {
      const auto& [n, i] = table_[h];
      if (i == kNone || n == name) return i;
    }
  }

  // Eight bytes at a time; the table keeps the low bits, so every input byte must reach them.
  static std::size_t hash(std::string_view s);

 private:
  std::size_t mask_ = 0;
  std::vector<std::pair<std::string_view, std::uint32_t>> table_;
};

}  // namespace fitscale::planner
