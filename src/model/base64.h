#pragma once
// RFC 4648 base64, for the fields the APIs carry in it (kubeconfig *-data, EC2 user data).
#include <string>
#include <string_view>

namespace fitscale {

// Accepts the standard and the URL-safe alphabet, padding and line breaks. Throws InputError
// naming `what` on bad input.
std::string base64_decode(std::string_view text, const std::string& what);
// Standard alphabet, padded, one line.
std::string base64_encode(std::string_view bytes);

}  // namespace fitscale
