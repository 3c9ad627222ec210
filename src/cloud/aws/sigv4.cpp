#include "cloud/aws/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

namespace fitscale::aws {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Header values are trimmed and inner runs of spaces collapse to one (SigV4 canonical form).
std::string trim_collapse(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

bool has_header(const NameValues& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return lower(h.first) == name; });
}

// Lower-cased name -> values in the order sent, joined with ',' as SigV4 requires.
std::map<std::string, std::string> canonical_header_map(const RequestToSign& r) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : r.headers) {
    auto key = lower(name);
    auto v = trim_collapse(value);
    auto it = out.find(key);
    if (it == out.end()) {
      out.emplace(key, v);
    } else {
      it->second += "," + v;
    }
  }
  return out;
}

}  // namespace

std::string hex_encode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return hex_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string uri_encode(std::string_view text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string amz_date(Time t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string signed_header_names(const RequestToSign& request) {
  std::string out;
  for (const auto& [name, value] : canonical_header_map(request)) {
    if (!out.empty()) out += ';';
    out += name;
  }
  return out;
}

std::string canonical_request(const RequestToSign& r) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [k, v] : r.query) query.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(query.begin(), query.end());
  std::string q;
  for (const auto& [k, v] : query) {
    if (!q.empty()) q += '&';
    q += k + "=" + v;
  }
  std::string headers;
  for (const auto& [name, value] : canonical_header_map(r)) headers += name + ":" + value + "\n";
  return r.method + "\n" + uri_encode(r.path.empty() ? "/" : r.path, true) + "\n" + q + "\n" +
         headers + "\n" + signed_header_names(r) + "\n" + sha256_hex(r.payload);
}

std::string credential_scope(std::string_view date, std::string_view region,
                             std::string_view service) {
  return std::string(date) + "/" + std::string(region) + "/" + std::string(service) +
         "/aws4_request";
}

std::string string_to_sign(std::string_view amz_date, std::string_view scope,
                           std::string_view canonical_request) {
  return "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + std::string(scope) + "\n" +
         sha256_hex(canonical_request);
}

std::string signing_key(std::string_view secret, std::string_view date, std::string_view region,
                        std::string_view service) {
  auto k_date = hmac_sha256("AWS4" + std::string(secret), date);
  auto k_region = hmac_sha256(k_date, region);
  auto k_service = hmac_sha256(k_region, service);
  return hmac_sha256(k_service, "aws4_request");
}

std::string sign(RequestToSign& request, const Credentials& credentials, std::string_view region,
                 std::string_view service, Time now) {
  std::string date_time;
  for (const auto& [name, value] : request.headers) {
    if (lower(name) == "x-amz-date") date_time = value;
  }
  if (date_time.empty()) {
    date_time = amz_date(now);
    request.headers.emplace_back("X-Amz-Date", date_time);
  }
  if (!credentials.session_token.empty() && !has_header(request.headers, "x-amz-security-token")) {
    request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  const std::string date = date_time.substr(0, 8);
  const auto scope = credential_scope(date, region, service);
  const auto to_sign = string_to_sign(date_time, scope, canonical_request(request));
  const auto signature = hex_encode(
      hmac_sha256(signing_key(credentials.secret_access_key, date, region, service), to_sign));
  return "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope +
         ", SignedHeaders=" + signed_header_names(request) + ", Signature=" + signature;
}

}  // namespace fitscale::aws
