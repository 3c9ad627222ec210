#include "cloud/aws/credentials.h"

#include <fstream>
#include <sstream>

#include "model/error.h"

namespace fitscale::aws {
namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace

Credentials parse_credentials_ini(std::string_view text, std::string_view source,
                                  std::string_view profile, bool config_file_style) {
  const std::string wanted = (config_file_style && profile != "default")
                                 ? "profile " + std::string(profile)
                                 : std::string(profile);
  Credentials out;
  bool in_section = false;
  int line_no = 0;
  std::istringstream lines{std::string(text)};
  for (std::string raw; std::getline(lines, raw);) {
    ++line_no;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        throw InputError(std::string(source) + ":" + std::to_string(line_no) +
                         ": section header without ']'");
      }
      in_section = trim(std::string_view(line).substr(1, line.size() - 2)) == wanted;
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      // Nested values (e.g. "s3 =" blocks) are indented continuation lines: skip them.
      if (raw.size() > 0 && (raw[0] == ' ' || raw[0] == '\t')) continue;
      throw InputError(std::string(source) + ":" + std::to_string(line_no) +
                       ": expected 'key = value'");
    }
    if (!in_section) continue;
    const auto key = trim(std::string_view(line).substr(0, eq));
    const auto value = trim(std::string_view(line).substr(eq + 1));
    if (key == "aws_access_key_id") out.access_key_id = value;
    if (key == "aws_secret_access_key") out.secret_access_key = value;
    if (key == "aws_session_token") out.session_token = value;
  }
  if (!out.empty()) out.source = std::string(source) + " [" + std::string(profile) + "]";
  return out;
}

Credentials shared_file_credentials(const CredentialEnvironment& env, const std::string& profile,
                                    std::string* looked) {
  const std::string home = env.home.empty() ? "." : env.home;
  const std::string credentials_file = !env.shared_credentials_file.empty()
                                           ? env.shared_credentials_file
                                           : home + "/.aws/credentials";
  const std::string config_file =
      !env.config_file.empty() ? env.config_file : home + "/.aws/config";
  if (looked) *looked = "profile '" + profile + "' in " + credentials_file + " or " + config_file;
  std::string text;
  if (read_file(credentials_file, text)) {
    auto c = parse_credentials_ini(text, credentials_file, profile, false);
    if (!c.empty()) return c;
  }
  if (read_file(config_file, text)) {
    auto c = parse_credentials_ini(text, config_file, profile, true);
    if (!c.empty()) return c;
  }
  return {};
}

Credentials resolve_credentials(const CredentialEnvironment& env,
                                const std::string& configured_profile) {
  if (configured_profile.empty() && !env.access_key_id.empty() && !env.secret_access_key.empty()) {
    return {env.access_key_id, env.secret_access_key, env.session_token, "environment"};
  }
  const std::string profile = !configured_profile.empty() ? configured_profile
                              : !env.profile.empty()      ? env.profile
                                                          : "default";
  std::string looked;
  auto c = shared_file_credentials(env, profile, &looked);
  if (!c.empty()) return c;
  throw InputError("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give " +
                   looked + " keys");
}

}  // namespace fitscale::aws
