#pragma once
// AWS Signature Version 4, the way every query API (EC2, Auto Scaling, IAM) authenticates a
// request. Pure functions: the caller supplies the time, so signing is testable against AWS's
// published examples and nothing here reads a clock.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/time.h"

namespace fitscale::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials (STS) only
  std::string source;  // "environment", "~/.aws/credentials [dev]": for messages, never the key

  bool empty() const { return access_key_id.empty() || secret_access_key.empty(); }
};

using NameValues = std::vector<std::pair<std::string, std::string>>;

// One HTTP request as it will be sent. `query` holds raw (not yet encoded) names and values;
// `headers` must include Host.
struct RequestToSign {
  std::string method = "POST";
  std::string path = "/";
  NameValues query;
  NameValues headers;
  std::string payload;
};

std::string hex_encode(std::string_view bytes);
std::string sha256_hex(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);  // raw 32 bytes

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters stay, everything else is
// %XX in upper case; '/' is kept only in paths.
std::string uri_encode(std::string_view text, bool keep_slash);
// "20150830T123600Z"
std::string amz_date(Time t);

std::string signed_header_names(const RequestToSign& request);  // "content-type;host;x-amz-date"
std::string canonical_request(const RequestToSign& request);
std::string credential_scope(std::string_view date, std::string_view region,
                             std::string_view service);
std::string string_to_sign(std::string_view amz_date, std::string_view scope,
                           std::string_view canonical_request);
std::string signing_key(std::string_view secret, std::string_view date, std::string_view region,
                        std::string_view service);  // raw 32 bytes

// Adds X-Amz-Date (unless the request already has one) and X-Amz-Security-Token (with
// temporary credentials), then returns the Authorization header value for the request.
std::string sign(RequestToSign& request, const Credentials& credentials, std::string_view region,
                 std::string_view service, Time now);

}  // namespace fitscale::aws
