#pragma once
// Encodings the cloud APIs' requests need beyond model/base64.h: GCP's JWT in base64's URL-safe
// form, and form escaping (OAuth2 token requests, application/x-www-form-urlencoded).
#include <string>
#include <string_view>

namespace fitscale::cloud {

// RFC 4648 section 5 base64url without padding (JWS compact serialization, RFC 7515).
std::string base64url(std::string_view s);
// application/x-www-form-urlencoded escaping of one value.
std::string form_escape(std::string_view s);

}  // namespace fitscale::cloud
