#pragma once
// Secrets never reach a log line. Everything the logger prints passes through here first:
// values of fields whose name says "secret" are replaced whole, and free text is scanned for
// things that look like credentials (AWS keys, bearer and service-account tokens, PEM private
// keys, kubeconfig client-key-data blobs, key=value pairs with a secret-sounding key, passwords
// in URLs).
// Redaction errs on the side of hiding: a 40-character mixed-case run that was not a key is a
// small loss; a leaked key is not.
#include <string>
#include <string_view>

namespace fitscale::obs {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// token, secret, password, passwd, key-data, key_data, credential(s), authorization, api-key,
// private-key ... anywhere in the name, case-insensitive.
bool is_secret_field_name(std::string_view name);

// Runs in time linear in the text's length, whatever it holds (tenants' annotations may be
// 256 KiB): hand-written scanners, no regex. Also hides the userinfo of every URL
// ("https://[REDACTED]@host/..."). Does not shorten the text (obs/logger.h cuts it afterwards).
std::string redact_text(std::string_view text);

// A URL whose path is a secret (a Slack or Teams webhook: /services/T0/B0/XXXX) as it may be
// shown: "https://hooks.slack.com/…" — scheme, host and port, no userinfo, no path or query.
// Text without "://" gives kRedacted.
std::string url_origin(std::string_view url);

// The value to print for a field: kRedacted for secret names, redact_text(value) otherwise.
std::string redact_field(std::string_view name, std::string_view value);

}  // namespace fitscale::obs
