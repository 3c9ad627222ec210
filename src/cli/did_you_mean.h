#pragma once
// "fitscale plna" -> did you mean "plan"? The closest command by edit distance, counting a swap of
// two neighbouring letters as one edit (the usual typo), when it is close enough to be a typo.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fitscale::cli {

// Letters inserted, deleted, changed or swapped with a neighbour to turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The command nearest `typed`: at most 2 edits away and fewer edits than half its length (so
// "ru" suggests "run" but "x" suggests nothing). Ties go to the first in `commands`.
std::optional<std::string> closest_command(std::string_view typed,
                                           const std::vector<std::string>& commands);

}  // namespace fitscale::cli
