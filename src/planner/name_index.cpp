#include "planner/name_index.h"

#include <cstring>

namespace fitscale::planner {

NameIndex::NameIndex(std::size_t names) {
  std::size_t size = 1;
  while (size < 2 * names) size *= 2;
  mask_ = size - 1;
  table_.assign(size, {{}, kNone});
}

void NameIndex::add(std::string_view name, std::uint32_t at) {
  std::size_t h = hash(name) & mask_;
  while (table_[h].second != kNone) h = (h + 1) & mask_;
  table_[h] = {name, at};
}

std::size_t NameIndex::hash(std::string_view s) {
  constexpr std::uint64_t kMul = 0xff51afd7ed558ccdULL;
  auto word = [&](std::size_t at) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + at, 8);
    return w;
  };
  std::uint64_t h = s.size() * 0x9e3779b97f4a7c15ULL;
  std::uint64_t last = 0;
  if (s.size() >= 8) {
    for (std::size_t i = 0; i + 8 < s.size(); i += 8) {
      h = (h ^ word(i)) * kMul;
      h ^= h >> 32;
    }
    last = word(s.size() - 8);  // the last eight bytes, overlapping the loop's when not aligned
  } else {
    for (char c : s) last = (last << 8) | static_cast<unsigned char>(c);
  }
  h ^= last;
  // Bytes late in the name sit in high bits; fold them down before and after the multiply.
  h ^= h >> 33;
  h *= kMul;
  return static_cast<std::size_t>(h ^ (h >> 33));
}

}  // namespace fitscale::planner
