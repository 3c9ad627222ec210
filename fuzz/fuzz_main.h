#pragma once
// What every fuzz target does with a contract violation: print it and abort, so libFuzzer saves
// the input as a crash (crash-<sha1>) that `./target crash-<sha1>` reproduces.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "bad_input.h"

namespace fitscale::fuzz {

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

template <class Parse>
void require_contract(std::string_view place, Parse&& parse) {
  if (auto v = bad_input::contract_violation(place, std::forward<Parse>(parse))) {
    std::fprintf(stderr, "bad-input contract broken: %s\n", v->c_str());
    std::abort();
  }
}

}  // namespace fitscale::fuzz
