#pragma once
// Reading the cloud APIs' JSON answers leniently: a field that is absent or of another type reads
// as empty, for the fields whose absence the caller handles anyway (names, codes, messages, tags).
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace fitscale::cloud {

// j[key] when j is an object and j[key] a string, else "".
std::string string_field(const nlohmann::json& j, const char* key);

}  // namespace fitscale::cloud
