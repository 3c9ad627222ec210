#include "obs/redact.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace fitscale::obs {

// Every pass below is a hand-written scanner that looks at each byte a bounded number of times:
// the text comes from tenants (pod annotations may be 256 KiB), and a backtracking regex on such
// input ran out of stack (issue 13). Where a pass gives up on a candidate it resumes after the
// bytes it has already read, never inside them.

namespace {

char lower_char(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_upper(c) || is_lower(c) || is_digit(c); }
// What std::regex's \s matched: space, \t \n \v \f \r.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_word(char c) { return is_alnum(c) || c == '_'; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_char(c);
  return out;
}

constexpr std::array<std::string_view, 14> kSecretWords = {
    "token",      "secret",        "password", "passwd",  "key-data", "key_data",    "keydata",
    "credential", "authorization", "api-key",  "api_key", "apikey",   "private-key", "private_key"};

bool contains_secret_word(std::string_view lowered) {
  return std::any_of(kSecretWords.begin(), kSecretWords.end(),
                     [&](std::string_view w) { return lowered.find(w) != std::string_view::npos; });
}

// Case-insensitive: does `s` hold `word` (lower case) at `at`?
bool has_at(std::string_view s, std::size_t at, std::string_view word) {
  if (at + word.size() > s.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (lower_char(s[at + k]) != word[k]) return false;
  }
  return true;
}

// PEM blocks, "-----BEGIN ...-----" through "-----END ...-----", or to the end of the text when
// the block was cut off.
std::string redact_pem(std::string_view s) {
  const std::string lowered = lower(s);
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t begin = lowered.find("-----begin", i);
    if (begin == std::string::npos) break;
    // The label runs to the next dash; it must close with five of them.
    std::size_t label_end = begin + 10;
    while (label_end < s.size() && s[label_end] != '-') ++label_end;
    if (s.compare(label_end, 5, "-----") != 0) {
      out.append(s, i, label_end - i);
      i = label_end;
      continue;
    }
    out.append(s, i, begin - i);
    out += kRedacted;
    // The first "-----END label-----" after it. A candidate's label scan stops at the next dash,
    // where the next candidate begins at the earliest: the scans never overlap.
    std::size_t end = lowered.find("-----end", label_end + 5);
    std::size_t close = 0;
    for (; end != std::string::npos; end = lowered.find("-----end", end + 1)) {
      close = end + 8;
      while (close < s.size() && s[close] != '-') ++close;
      if (s.compare(close, 5, "-----") == 0) break;
    }
    if (end == std::string::npos) return out;  // cut off: hide everything after BEGIN
    i = close + 5;
  }
  out.append(s, i);
  return out;
}

// "Bearer X" and "Basic X" (HTTP Authorization values): the word stays, X goes.
std::string redact_auth_schemes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const bool boundary = i == 0 || !is_word(s[i - 1]);
    std::size_t word = 0;
    if (boundary && has_at(s, i, "bearer")) word = 6;
    if (boundary && has_at(s, i, "basic")) word = 5;
    if (word == 0) {
      out += s[i++];
      continue;
    }
    std::size_t j = i + word;
    std::size_t spaces = j;
    while (spaces < s.size() && is_space(s[spaces])) ++spaces;
    std::size_t value_end = spaces;
    while (value_end < s.size() && !is_space(s[value_end]) && s[value_end] != '"' &&
           s[value_end] != ',' && s[value_end] != ';') {
      ++value_end;
    }
    if (spaces == j || value_end == spaces) {  // no whitespace, or nothing after it
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    out.append(s, i, j - i);
    out += ' ';
    out += kRedacted;
    i = value_end;
  }
  return out;
}

bool key_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }
bool value_char(char c) {
  return !is_space(c) && c != '"' && c != ',' && c != ';' && c != '}' && c != '&' && c != ']';
}

// key=value, key: value, "key": "value" where the key sounds secret: the value goes.
std::string redact_secret_values(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (!key_char(s[i])) {
      out += s[i++];
      continue;
    }
    std::size_t key_end = i;
    while (key_end < s.size() && key_char(s[key_end])) ++key_end;
    if (!contains_secret_word(lower(s.substr(i, key_end - i)))) {
      out.append(s, i, key_end - i);
      i = key_end;
      continue;
    }
    std::size_t j = key_end;
    if (j < s.size() && s[j] == '"') ++j;
    while (j < s.size() && is_space(s[j])) ++j;
    const bool separator = j < s.size() && (s[j] == ':' || s[j] == '=');
    if (separator) ++j;
    while (separator && j < s.size() && is_space(s[j])) ++j;
    if (separator && j < s.size() && s[j] == '"') ++j;
    std::size_t value_end = j;
    while (separator && value_end < s.size() && value_char(s[value_end])) ++value_end;
    if (!separator || value_end == j) {
      out.append(s, i, key_end - i);
      i = key_end;
      continue;
    }
    out.append(s, i, j - i);
    out += kRedacted;
    i = value_end;
  }
  return out;
}

// AWS access key ids: AKIA or ASIA and 16 upper-case letters or digits.
std::string redact_access_key_ids(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const bool prefix = s.compare(i, 4, "AKIA") == 0 || s.compare(i, 4, "ASIA") == 0;
    std::size_t n = 0;
    if (prefix) {
      while (n < 16 && i + 4 + n < s.size() && (is_upper(s[i + 4 + n]) || is_digit(s[i + 4 + n])))
        ++n;
    }
    if (n == 16) {
      out += kRedacted;
      i += 20;
    } else {
      out += s[i++];
    }
  }
  return out;
}

bool url_b64_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }

// JSON Web Tokens (Kubernetes service-account tokens): "eyJ" header, '.', payload, an optional
// '.' and signature.
std::string redact_jwts(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 3, "eyJ") != 0) {
      out += s[i++];
      continue;
    }
    std::size_t header_end = i + 3;
    while (header_end < s.size() && url_b64_char(s[header_end])) ++header_end;
    std::size_t payload_end = header_end + 1;
    const bool dot = header_end < s.size() && s[header_end] == '.';
    while (dot && payload_end < s.size() && url_b64_char(s[payload_end])) ++payload_end;
    if (header_end - (i + 3) < 5 || !dot || payload_end == header_end + 1) {
      // Any "eyJ" inside the header shares its end, and fails the same way.
      out.append(s, i, header_end - i);
      i = header_end;
      continue;
    }
    std::size_t end = payload_end;
    if (end < s.size() && s[end] == '.') ++end;
    while (end < s.size() && url_b64_char(s[end])) ++end;
    out += kRedacted;
    i = end;
  }
  return out;
}

bool authority_end(char c) {
  return c == '/' || c == '?' || c == '#' || is_space(c) || c == '"' || c == '\'' || c == '<' ||
         c == '>' || c == ',' || c == ';';
}

// The userinfo of URLs ("https://admin:hunter2@api.example.com" -> "https://[REDACTED]@api...").
std::string redact_url_userinfo(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t scheme_end = s.find("://", i);
    if (scheme_end == std::string_view::npos) break;
    const std::size_t host = scheme_end + 3;
    std::size_t end = host;
    std::size_t at = std::string_view::npos;
    for (; end < s.size() && !authority_end(s[end]); ++end) {
      if (s[end] == '@') at = end;
    }
    if (at == std::string_view::npos || at == host) {  // no userinfo, or an empty one
      out.append(s, i, end - i);
    } else {
      out.append(s, i, host - i);
      out += kRedacted;
      out.append(s, at, end - at);
    }
    i = end;
  }
  out.append(s.substr(std::min(i, s.size())));
  return out;
}

bool b64_char(char c) { return is_alnum(c) || c == '/' || c == '+' || c == '='; }

// Runs of base64 characters that are an AWS secret access key (exactly 40, mixed case and a
// digit) or a long blob (>= 64: certificates, client-key-data, tokens) become kRedacted.
std::string redact_runs(std::string_view s) {
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
    std::size_t slashes = 0;
    while (j < s.size() && b64_char(s[j])) {
      upper |= is_upper(s[j]);
      low |= is_lower(s[j]);
      digit |= is_digit(s[j]);
      slashes += s[j] == '/';
      ++j;
    }
    const std::size_t n = j - i;
    // A path ("/var/lib/...") is not a secret; a run must not be mostly slashes.
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
  // The cheap checks first: most log lines hold none of these and are copied once.
  const std::string lowered = lower(text);
  std::string s(text);
  if (lowered.find("-----begin") != std::string::npos) s = redact_pem(s);
  if (lowered.find("bearer") != std::string::npos || lowered.find("basic") != std::string::npos)
    s = redact_auth_schemes(s);
  if (contains_secret_word(lowered)) s = redact_secret_values(s);
  if (s.find("AKIA") != std::string::npos || s.find("ASIA") != std::string::npos)
    s = redact_access_key_ids(s);
  if (s.find("eyJ") != std::string::npos) s = redact_jwts(s);
  if (s.find("://") != std::string::npos && s.find('@') != std::string::npos)
    s = redact_url_userinfo(s);
  return redact_runs(s);
}

std::string url_origin(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(kRedacted);
  const std::size_t host = scheme_end + 3;
  std::size_t end = host;
  std::size_t at = std::string_view::npos;
  for (; end < url.size() && !authority_end(url[end]); ++end) {
    if (url[end] == '@') at = end;
  }
  std::string out(url.substr(0, host));
  out.append(url.substr(at == std::string_view::npos ? host : at + 1,
                        end - (at == std::string_view::npos ? host : at + 1)));
  if (end < url.size()) out += "/\xE2\x80\xA6";  // "/…": the path (and query) stay hidden
  return out;
}

std::string redact_field(std::string_view name, std::string_view value) {
  if (is_secret_field_name(name)) return std::string(kRedacted);
  return redact_text(value);
}

}  // namespace fitscale::obs
