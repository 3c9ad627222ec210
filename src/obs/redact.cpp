#include "obs/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace fitscale::obs {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

constexpr std::array<std::string_view, 12> kSecretWords = {
    "token",   "secret",     "password",      "passwd",  "key-data", "key_data",
    "keydata", "credential", "authorization", "api-key", "api_key",  "private-key"};

bool contains_secret_word(const std::string& lowered) {
  for (auto w : kSecretWords) {
    if (lowered.find(w) != std::string::npos) return true;
  }
  return lowered.find("apikey") != std::string::npos ||
         lowered.find("private_key") != std::string::npos;
}

bool b64_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '+' || c == '=';
}

// Runs of base64 characters that are an AWS secret access key (exactly 40, mixed case and a
// digit) or a long blob (>= 64: certificates, client-key-data, tokens) become kRedacted.
std::string redact_runs(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (!b64_char(s[i])) {
      out += s[i++];
      continue;
    }
    std::size_t j = i;
    bool upper = false, low = false, digit = false;
    while (j < s.size() && b64_char(s[j])) {
      unsigned char c = static_cast<unsigned char>(s[j]);
      upper |= std::isupper(c) != 0;
      low |= std::islower(c) != 0;
      digit |= std::isdigit(c) != 0;
      ++j;
    }
    const std::size_t n = j - i;
    // A path ("/var/lib/...") is not a secret; a run must not be mostly slashes.
    const auto slashes =
        static_cast<std::size_t>(std::count(s.begin() + static_cast<std::ptrdiff_t>(i),
                                            s.begin() + static_cast<std::ptrdiff_t>(j), '/'));
    const bool aws_secret = n == 40 && upper && low && digit && slashes <= 4;
    const bool blob = n >= 64 && (upper + low + digit) >= 2 && slashes * 8 < n;
    if (aws_secret || blob)
      out += kRedacted;
    else
      out.append(s, i, n);
    i = j;
  }
  return out;
}

}  // namespace

bool is_secret_field_name(std::string_view name) { return contains_secret_word(lower(name)); }

std::string redact_text(std::string_view text) {
  std::string s(text);
  const std::string lowered = lower(s);
  if (lowered.find("-----begin") != std::string::npos) {
    // PEM blocks, including an unterminated one (cut off mid-line).
    const std::regex pem("-----BEGIN[^-]*-----[\\s\\S]*?(-----END[^-]*-----|$)", std::regex::icase);
    s = std::regex_replace(s, pem, std::string(kRedacted));
  }
  if (lowered.find("bearer") != std::string::npos || lowered.find("basic ") != std::string::npos) {
    const std::regex bearer("\\b(bearer|basic)\\s+[^\\s\",;]+", std::regex::icase);
    s = std::regex_replace(s, bearer, "$1 " + std::string(kRedacted));
  }
  if (contains_secret_word(lowered)) {
    // key=value, key: value, "key": "value" where the key sounds secret.
    const std::regex kv(
        "([A-Za-z0-9_.-]*(token|secret|password|passwd|key-data|key_data|keydata|credential|"
        "authorization|"
        "api-?key|api_key|private[-_]key)[A-Za-z0-9_.-]*\"?\\s*[:=]\\s*\"?)([^\\s\",;}&\\]]+)",
        std::regex::icase);
    s = std::regex_replace(s, kv, "$1" + std::string(kRedacted));
  }
  if (s.find("AKIA") != std::string::npos || s.find("ASIA") != std::string::npos) {
    const std::regex access_key("(AKIA|ASIA)[A-Z0-9]{16}");
    s = std::regex_replace(s, access_key, std::string(kRedacted));
  }
  if (s.find("eyJ") != std::string::npos) {
    // JSON Web Tokens (Kubernetes service-account tokens): header.payload.signature.
    const std::regex jwt("eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]+\\.?[A-Za-z0-9_-]*");
    s = std::regex_replace(s, jwt, std::string(kRedacted));
  }
  return redact_runs(s);
}

std::string redact_field(std::string_view name, std::string_view value) {
  if (is_secret_field_name(name)) return std::string(kRedacted);
  return redact_text(value);
}

}  // namespace fitscale::obs
