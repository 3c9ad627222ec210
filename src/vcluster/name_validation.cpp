#include "vcluster/name_validation.h"

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One RFC 1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric.
bool is_label(const std::string& s, std::size_t from, std::size_t to) {
  if (from >= to) return false;
  if (!lower_alnum(s[from]) || !lower_alnum(s[to - 1])) return false;
  for (std::size_t i = from; i < to; ++i) {
    if (!lower_alnum(s[i]) && s[i] != '-') return false;
  }
  return true;
}

// Printable for messages: bytes outside ASCII as \xNN, so an error never carries bad UTF-8.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "\"";
}

std::optional<std::string> path_segment_error(const std::string& name) {
  if (name == "." || name == "..") return "may not be '" + name + "'";
  if (name.find('/') != std::string::npos) return std::string("may not contain '/'");
  if (name.find('%') != std::string::npos) return std::string("may not contain '%'");
  return std::nullopt;
}

ApiError invalid(const std::string& kind, const std::string& name, const std::string& field,
                 const std::string& value, const std::string& why) {
  ApiError e(422, "Invalid",
             kind + " " + quoted(name) + " is invalid: " + field +
                 ": Invalid value: " + quoted(value) + ": " + why);
  e.with_cause("FieldValueInvalid", field, "Invalid value: " + quoted(value) + ": " + why);
  return e;
}

}  // namespace

std::optional<std::string> dns1123_label_error(const std::string& name) {
  if (name.size() > 63) return std::string("must be no more than 63 characters");
  if (!is_label(name, 0, name.size())) {
    return std::string(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return std::nullopt;
}

std::optional<std::string> dns1123_subdomain_error(const std::string& name) {
  if (name.size() > 253) return std::string("must be no more than 253 characters");
  std::size_t from = 0;
  bool ok = !name.empty();
  while (ok) {
    std::size_t dot = name.find('.', from);
    if (dot == std::string::npos) dot = name.size();
    ok = is_label(name, from, dot);
    if (dot == name.size()) break;
    from = dot + 1;
  }
  if (!ok) {
    return std::string(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return std::nullopt;
}

void validate_namespace_name(const std::string& ns) {
  if (auto why = dns1123_label_error(ns)) {
    throw invalid("Namespace", ns, "metadata.name", ns, *why);
  }
}

void validate_object_names(const ResourceInfo& r, const std::string& url_namespace,
                           const nlohmann::json& obj) {
  if (!obj.is_object()) throw bad_request("the request body must be a JSON object");
  if (!obj.contains("metadata")) return;
  const auto& md = obj["metadata"];
  // The shape first, as kube-apiserver's decoder refuses a wrong type with 400 before validating.
  if (!md.is_object()) throw bad_request("metadata: expected an object");
  for (const char* f : {"name", "generateName", "namespace"}) {
    if (md.contains(f) && !md[f].is_string() && !md[f].is_null()) {
      throw bad_request(std::string("metadata.") + f + ": expected a string");
    }
  }
  const bool label_names = r.plural == "namespaces" || r.plural == "services";
  auto check = [&](const std::string& field, const std::string& value) {
    std::optional<std::string> why = path_segment_error(value);
    if (!why) why = label_names ? dns1123_label_error(value) : dns1123_subdomain_error(value);
    if (why) throw invalid(r.kind, value, field, value, *why);
  };
  if (md.contains("name") && md["name"].is_string() && !md["name"].get<std::string>().empty()) {
    check("metadata.name", md["name"].get<std::string>());
  } else if (md.contains("generateName") && md["generateName"].is_string()) {
    // The prefix must make a valid name once the server appends its random suffix.
    const std::string prefix = md["generateName"].get<std::string>();
    if (!prefix.empty()) check("metadata.generateName", prefix + "x");
  }
  if (r.namespaced && !url_namespace.empty()) validate_namespace_name(url_namespace);
}

}  // namespace fitscale::vcluster
