// The redactor sees whatever tenants write (annotations up to 256 KiB) on every log line. It used
// std::regex, whose backtracking executor recursed once per character: "token=" and 30 KB crashed
// `fitscale run` (issue 13). It is now a set of hand-written scanners; these tests hold them to
// what the regexes meant (a differential test against the old expressions, on inputs small enough
// for std::regex), and to no crash and no leak on inputs far larger than a regex survives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/bad_input.h"
#include "model/bounded_text.h"
#include "obs/logger.h"
#include "obs/redact.h"

namespace fitscale::obs {
namespace {

// The redaction as it was (until issue 13), kept here as the specification of what each scanner
// replaces. Only for inputs of a few KB: on long values it overflows the stack.
std::string regex_reference(std::string_view text) {
  std::string s(text);
  std::string lowered(s);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view w) { return lowered.find(w) != std::string::npos; };
  const bool secret_word =
      has("token") || has("secret") || has("password") || has("passwd") || has("key-data") ||
      has("key_data") || has("keydata") || has("credential") || has("authorization") ||
      has("api-key") || has("api_key") || has("apikey") || has("private-key") || has("private_key");
  if (has("-----begin")) {
    const std::regex pem("-----BEGIN[^-]*-----[\\s\\S]*?(-----END[^-]*-----|$)", std::regex::icase);
    s = std::regex_replace(s, pem, std::string(kRedacted));
  }
  // (The old code looked for "basic " with a space only, and so missed "basic\t<credentials>",
  // which this comparison found; the scanner hides it.)
  if (has("bearer") || has("basic")) {
    const std::regex bearer("\\b(bearer|basic)\\s+[^\\s\",;]+", std::regex::icase);
    s = std::regex_replace(s, bearer, "$1 " + std::string(kRedacted));
  }
  if (secret_word) {
    const std::regex kv(
        "([A-Za-z0-9_.-]*(token|secret|password|passwd|key-data|key_data|keydata|credential|"
        "authorization|api-?key|api_key|private[-_]key)[A-Za-z0-9_.-]*\"?\\s*[:=]\\s*\"?)"
        "([^\\s\",;}&\\]]+)",
        std::regex::icase);
    s = std::regex_replace(s, kv, "$1" + std::string(kRedacted));
  }
  if (s.find("AKIA") != std::string::npos || s.find("ASIA") != std::string::npos) {
    s = std::regex_replace(s, std::regex("(AKIA|ASIA)[A-Z0-9]{16}"), std::string(kRedacted));
  }
  if (s.find("eyJ") != std::string::npos) {
    const std::regex jwt("eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]+\\.?[A-Za-z0-9_-]*");
    s = std::regex_replace(s, jwt, std::string(kRedacted));
  }
  // Runs of base64 characters: this pass was a scanner already, as it was.
  auto b64 = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '+' || c == '=';
  };
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (!b64(s[i])) {
      out += s[i++];
      continue;
    }
    std::size_t j = i;
    bool upper = false, low = false, digit = false;
    while (j < s.size() && b64(s[j])) {
      const auto c = static_cast<unsigned char>(s[j]);
      upper |= std::isupper(c) != 0;
      low |= std::islower(c) != 0;
      digit |= std::isdigit(c) != 0;
      ++j;
    }
    const std::size_t n = j - i;
    const auto slashes = static_cast<std::size_t>(std::count(s.begin() + i, s.begin() + j, '/'));
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

// Log lines of the shapes fitscale writes, each with a credential in it.
const std::vector<std::string>& seeds() {
  static const std::vector<std::string> s = {
      "aws credentials aws_access_key_id=AKIAIOSFODNN7EXAMPLE "
      "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "GET /api/v1/nodes Authorization: Bearer "
      "eyJhbGciOiJSUzI1NiIsImtpZCI6ImFiYyJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJl",
      "kubeconfig user token: kube-token-3f9a7c1e55d0; basic dXNlcjpwYXNz, next",
      "{\"password\": \"hunter2-correct-horse\", \"user\": \"admin\", \"api_key\":\"k-1\"}",
      "key file -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\nline2secret\n"
      "-----END RSA PRIVATE KEY----- trailing text -----BEGIN CERT-----\ncut off",
      "refused: pod team-a/train-0: annotation fitscale.io/max-runtime: bad duration "
      "\"token=abcdef\": no number (expected e.g. \"36h\")",
      "launch 2 x p3.8xlarge spot in us-east-1a for team-a/train-0: $24.48/h Basic   x"};
  return s;
}

TEST(RedactMutation, ScannersReplaceWhatTheRegexesReplaced) {
  std::size_t compared = 0;
  std::string failures;
  for (std::size_t k = 0; k < seeds().size(); ++k) {
    for (const std::string& input : bad_input::bad_inputs(seeds()[k], 600, 1300 + k)) {
      // URLs' userinfo is a pass the regexes never had; base64 runs are the same code before
      // and after.
      if (input.find("://") != std::string::npos || input.size() > 4096) continue;
      const std::string got = redact_text(input);
      const std::string expected_full = regex_reference(input);
      ++compared;
      if (got != expected_full && failures.size() < 2000) {
        failures += "input \"" + bad_input::shown(input) + "\"\n  scanner: \"" +
                    bad_input::shown(got) + "\"\n  regex:   \"" + bad_input::shown(expected_full) +
                    "\"\n";
      }
    }
  }
  EXPECT_GT(compared, 4000u);
  EXPECT_EQ(failures, "");
}

// Issue 13's pod, and the other shapes a backtracking regex chokes on, at the largest size a
// Kubernetes object's annotations may have (256 KiB) and beyond.
TEST(RedactMutation, HugeTenantValuesAreRedactedWithoutACrash) {
  const std::size_t n = 300 * 1024;
  const std::string filler(n, 'A');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"token=" + filler, "token=[REDACTED]"},
      {"Authorization: Bearer " + filler, "Authorization: [REDACTED] [REDACTED]"},
      {"-----BEGIN KEY-----" + filler, "[REDACTED]"},
      {"eyJ" + std::string(n, 'a') + "." + std::string(n, 'b'), "[REDACTED]"},
      {"https://user:" + filler + "@example.com/x", "https://[REDACTED]@example.com/x"},
  };
  for (const auto& [input, expected] : cases) {
    EXPECT_EQ(redact_text(input), expected) << bad_input::shown(input, 60);
  }
  // Nothing to find but many places that start to look like something.
  for (const std::string& unit :
       {std::string("eyJ"), std::string("AKIA"), std::string("token"), std::string("-----BEGIN"),
        std::string("-----END"), std::string("://@"), std::string("bearer "), std::string("t=")}) {
    std::string input;
    while (input.size() < n) input += unit;
    const std::string out = redact_text(input);
    // A replacement may be longer than what it hides ("bearer x"), never by more than twice.
    EXPECT_LE(out.size(), 3 * input.size()) << unit;
  }
}

TEST(RedactMutation, PlantedSecretsNeverSurviveMutatedSurroundings) {
  const std::string key = "AKIAIOSFODNN7EXAMPLE";
  const std::string token = "s3cr3tTOKENvalue";
  std::size_t n = 0;
  for (std::size_t k = 0; k < seeds().size(); ++k) {
    for (const std::string& around : bad_input::mutations(seeds()[k], 300, 77 + k)) {
      const std::string input =
          around + " " + key + " Authorization: Bearer " + token + " " + around;
      const std::string out = redact_text(input);
      ASSERT_EQ(out.find(key), std::string::npos) << bad_input::shown(input);
      ASSERT_EQ(out.find(token), std::string::npos) << bad_input::shown(input);
      ++n;
    }
  }
  EXPECT_EQ(n, seeds().size() * 300);
}

TEST(RedactUrls, UserinfoIsHiddenInEveryUrl) {
  EXPECT_EQ(redact_text("server https://admin:hunter2@10.0.0.1:6443/api and "
                        "http://bob@h/x?user=a@b"),
            "server https://[REDACTED]@10.0.0.1:6443/api and http://[REDACTED]@h/x?user=a@b");
  EXPECT_EQ(redact_text("https://api.example.com:6443"), "https://api.example.com:6443");
  EXPECT_EQ(redact_text("mail me at a@b.c, see https://x.y/"),
            "mail me at a@b.c, see https://x.y/");
}

TEST(RedactUrls, OriginHidesPathQueryAndUserinfo) {
  EXPECT_EQ(url_origin("https://hooks.slack.com/services/T000/B000/XXXXSECRET"),
            "https://hooks.slack.com/\xE2\x80\xA6");
  EXPECT_EQ(url_origin("http://u:p@127.0.0.1:9000/hook?key=1"),
            "http://127.0.0.1:9000/\xE2\x80\xA6");
  EXPECT_EQ(url_origin("https://example.com"), "https://example.com");
  EXPECT_EQ(url_origin("not a url"), "[REDACTED]");
}

TEST(BoundedText, CutsLongValuesOnACharacterBoundaryAndSaysHowLong) {
  EXPECT_EQ(bounded_text("short"), "short");
  EXPECT_EQ(bounded_text(std::string(256, 'x')), std::string(256, 'x'));
  EXPECT_EQ(bounded_text(std::string(300, 'x')), std::string(256, 'x') + "\xE2\x80\xA6(300 bytes)");
  // "é" is two bytes: a cut between them backs up to before it.
  const std::string e = "\xC3\xA9";
  EXPECT_EQ(bounded_text("ab" + e + "cd", 3), "ab\xE2\x80\xA6(6 bytes)");
}

TEST(BoundedText, LogLinesStayShortWhateverATenantWrote) {
  std::ostringstream out;
  Logger log({LogFormat::Text, LogLevel::Info, {}}, out);
  const std::string annotation(256 * 1024, 'z');
  const std::string message = "refuse team-a/p: bad duration \"" + annotation + "\"";
  log.warn(message, {{"reason", annotation}});
  const std::string line = out.str();
  EXPECT_LT(line.size(), 2 * kLogValueLimit + 200) << line.size();
  EXPECT_NE(line.find("\xE2\x80\xA6(262144 bytes)"), std::string::npos);
  EXPECT_NE(line.find("\xE2\x80\xA6(" + std::to_string(message.size()) + " bytes)"),
            std::string::npos)
      << line.substr(0, 80);
}

}  // namespace
}  // namespace fitscale::obs
