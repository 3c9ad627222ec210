#include "cloud/aws/credential_endpoints.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <sstream>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/query_client.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

std::string read_token_file(const std::string& path, const char* variable) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(std::string(variable) + ": cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  // Kubernetes writes the projected token without a newline; a hand-made file often has one.
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (token.empty()) throw InputError(std::string(variable) + ": " + path + " is empty");
  return token;
}

// What a failed HTTP answer says, for the error: never the body of a success (it holds keys).
AwsError http_failure(const std::string& action, const HttpResponse& r, const std::string& url) {
  if (r.status == 0) return AwsError(action, "NoAnswer", r.transport_error + " (" + url + ")", 0);
  std::string message = "HTTP " + std::to_string(r.status) + " from " + url;
  // The container endpoint answers errors as {"code": ..., "message": ...}.
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    message += ": " + j["message"].get<std::string>().substr(0, 200);
  }
  std::string code = "HTTP" + std::to_string(r.status);
  if (j.is_object() && j.contains("code") && j["code"].is_string())
    code = j["code"].get<std::string>();
  return AwsError(action, code, message, r.status);
}

std::string host_of(const std::string& url) {
  auto rest = url;
  if (auto p = rest.find("://"); p != std::string::npos) rest = rest.substr(p + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

}  // namespace

TemporaryCredentials parse_credentials_json(std::string_view json, std::string_view source) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  auto field = [&](const char* name) -> std::string {
    if (!j.is_object() || !j.contains(name) || !j[name].is_string()) return "";
    return j[name].get<std::string>();
  };
  TemporaryCredentials out;
  out.credentials = {field("AccessKeyId"), field("SecretAccessKey"), field("Token"),
                     std::string(source)};
  if (out.credentials.empty()) {
    throw AwsError("GetCredentials", "MalformedResponse",
                   std::string(source) + " did not answer AccessKeyId and SecretAccessKey", 200);
  }
  if (const auto e = field("Expiration"); !e.empty()) {
    try {
      out.expiration = parse_rfc3339(e);
    } catch (const InputError&) {
      throw AwsError("GetCredentials", "MalformedResponse",
                     std::string(source) + " answered an Expiration that is not RFC 3339", 200);
    }
  }
  return out;
}

TemporaryCredentials parse_assume_role_with_web_identity(std::string_view xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) {
    throw AwsError("AssumeRoleWithWebIdentity", "MalformedResponse", "the response is not XML",
                   200);
  }
  const auto c =
      doc.document_element().child("AssumeRoleWithWebIdentityResult").child("Credentials");
  TemporaryCredentials out;
  out.credentials = {text(c, "AccessKeyId"), text(c, "SecretAccessKey"), text(c, "SessionToken"),
                     ""};
  if (out.credentials.empty()) {
    throw AwsError("AssumeRoleWithWebIdentity", "MalformedResponse",
                   "the response has no Credentials", 200);
  }
  try {
    out.expiration = parse_rfc3339(text(c, "Expiration"));
  } catch (const InputError&) {
    throw AwsError("AssumeRoleWithWebIdentity", "MalformedResponse",
                   "the response has no RFC 3339 Expiration", 200);
  }
  return out;
}

TemporaryCredentials fetch_web_identity(HttpTransport& http, const WebIdentityOptions& o) {
  const std::string token = read_token_file(o.token_file, "AWS_WEB_IDENTITY_TOKEN_FILE");
  const NameValues form = {
      {"Action", "AssumeRoleWithWebIdentity"},
      {"Version", "2011-06-15"},
      {"RoleArn", o.role_arn},
      {"RoleSessionName", o.session_name.empty() ? "fitscale" : o.session_name},
      {"WebIdentityToken", token}};
  const auto r = http.post(o.sts_endpoint,
                           {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}},
                           form_encode(form));
  if (r.status == 0) {
    throw AwsError("AssumeRoleWithWebIdentity", "NoAnswer",
                   r.transport_error + " (" + o.sts_endpoint + ")", 0);
  }
  if (r.status < 200 || r.status >= 300) {
    const auto d = decode_error(r.body, r.status);
    throw AwsError("AssumeRoleWithWebIdentity", d.code, d.message + " (role " + o.role_arn + ")",
                   r.status);
  }
  auto out = parse_assume_role_with_web_identity(r.body);
  out.credentials.source = "web identity (" + o.role_arn + ")";
  return out;
}

std::string container_credentials_url(const ContainerCredentialOptions& o) {
  if (!o.relative_uri.empty()) {
    const std::string rel = o.relative_uri.front() == '/' ? o.relative_uri : "/" + o.relative_uri;
    return "http://169.254.170.2" + rel;
  }
  const std::string& url = o.full_uri;
  if (url.rfind("https://", 0) == 0) return url;
  if (url.rfind("http://", 0) != 0) {
    throw InputError("AWS_CONTAINER_CREDENTIALS_FULL_URI: '" + url +
                     "' is not an http:// or https:// URL");
  }
  const std::string host = host_of(url);
  const bool allowed = host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" ||
                       host == "169.254.170.2" || host == "169.254.170.23" ||
                       host == "fd00:ec2::23";
  if (!allowed) {
    throw InputError(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI: http:// is allowed only to a loopback "
        "address, 169.254.170.2 or the EKS Pod Identity agent (169.254.170.23, "
        "fd00:ec2::23), not " +
        host);
  }
  return url;
}

TemporaryCredentials fetch_container_credentials(HttpTransport& http,
                                                 const ContainerCredentialOptions& o) {
  const std::string url = container_credentials_url(o);
  NameValues headers = {{"Accept", "application/json"}};
  if (!o.authorization_token_file.empty()) {
    headers.emplace_back(
        "Authorization",
        read_token_file(o.authorization_token_file, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"));
  } else if (!o.authorization_token.empty()) {
    headers.emplace_back("Authorization", o.authorization_token);
  }
  const auto r = http.send("GET", url, headers, "");
  if (r.status != 200) throw http_failure("GetContainerCredentials", r, url);
  return parse_credentials_json(r.body, "container credentials (" + url + ")");
}

TemporaryCredentials fetch_instance_metadata_credentials(HttpTransport& http,
                                                         const InstanceMetadataOptions& o) {
  std::string base = o.endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string token_url = base + "/latest/api/token";
  const auto t =
      http.send("PUT", token_url,
                {{"X-aws-ec2-metadata-token-ttl-seconds", std::to_string(o.token_ttl_s)}}, "");
  if (t.status != 200 || t.body.empty()) throw http_failure("GetMetadataToken", t, token_url);
  const NameValues with_token = {{"X-aws-ec2-metadata-token", t.body}};
  const std::string roles_url = base + "/latest/meta-data/iam/security-credentials/";
  const auto roles = http.send("GET", roles_url, with_token, "");
  if (roles.status == 404) {
    throw AwsError("GetInstanceRole", "NoInstanceProfile",
                   "the instance has no IAM instance profile (" + roles_url + " answered 404)",
                   404);
  }
  if (roles.status != 200) throw http_failure("GetInstanceRole", roles, roles_url);
  std::string role = roles.body.substr(0, roles.body.find_first_of("\r\n"));
  if (role.empty()) {
    throw AwsError("GetInstanceRole", "NoInstanceProfile",
                   "the instance has no IAM role (" + roles_url + " is empty)", 200);
  }
  const std::string keys_url = roles_url + role;
  const auto keys = http.send("GET", keys_url, with_token, "");
  if (keys.status != 200) throw http_failure("GetInstanceRoleCredentials", keys, keys_url);
  return parse_credentials_json(keys.body, "instance metadata (role " + role + ")");
}

}  // namespace fitscale::aws
