#include "cloud/aws/node_bootstrap.h"

#include <algorithm>
#include <cctype>

namespace fitscale::aws {

namespace {

bool in_namespace(const std::string& key, const std::string& domain) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return false;
  const std::string prefix = key.substr(0, slash);
  return prefix == domain ||
         (prefix.size() > domain.size() &&
          prefix.compare(prefix.size() - domain.size() - 1, std::string::npos, "." + domain) == 0);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The boundary of a MIME multipart message's top-level Content-Type header, "" if it is not one.
std::string multipart_boundary(const std::string& message) {
  const auto headers_end =
      message.find("\n\n") != std::string::npos ? message.find("\n\n") : message.find("\r\n\r\n");
  const std::string headers = lower(message.substr(0, headers_end));
  const auto ct = headers.find("content-type:");
  if (ct == std::string::npos || headers.find("multipart/", ct) == std::string::npos) return "";
  const auto b = headers.find("boundary=", ct);
  if (b == std::string::npos) return "";
  // Read the original (case kept) value at the same offset.
  std::size_t i = b + 9;
  std::string value;
  const bool quoted = i < message.size() && message[i] == '"';
  if (quoted) ++i;
  while (i < message.size()) {
    const char c = message[i];
    if (quoted ? c == '"' : (c == ';' || c == '\r' || c == '\n' || c == ' ')) break;
    value.push_back(c);
    ++i;
  }
  return value;
}

std::string part_type_of(const std::string& body) {
  if (body.rfind("#!", 0) == 0) return "text/x-shellscript; charset=\"us-ascii\"";
  if (body.rfind("#cloud-config", 0) == 0) return "text/cloud-config; charset=\"us-ascii\"";
  if (body.find("node.eks.aws/") != std::string::npos &&
      body.find("NodeConfig") != std::string::npos)
    return "application/node.eks.aws";
  return "text/plain; charset=\"us-ascii\"";
}

std::string node_config_part(const std::string& boundary, const std::string& node_config) {
  return "--" + boundary + "\nContent-Type: application/node.eks.aws\n\n" + node_config + "\n";
}

}  // namespace

Labels kubelet_settable_labels(const Labels& labels) {
  Labels out;
  for (const auto& [key, value] : labels) {
    const bool kube = in_namespace(key, "kubernetes.io") || in_namespace(key, "k8s.io");
    const bool kubelets_own =
        in_namespace(key, "kubelet.kubernetes.io") || in_namespace(key, "node.kubernetes.io");
    // node.kubernetes.io/instance-type is set by the kubelet from the cloud: leave it to it.
    if (kube && (!kubelets_own || key == "node.kubernetes.io/instance-type")) continue;
    out[key] = value;
  }
  return out;
}

std::string nodeadm_kubelet_flags(const Labels& labels, const std::vector<Taint>& taints) {
  const Labels settable = kubelet_settable_labels(labels);
  std::string node_labels;
  for (const auto& [key, value] : settable)
    node_labels += (node_labels.empty() ? "" : ",") + key + "=" + value;
  std::string register_taints;
  for (const Taint& t : taints) {
    register_taints += (register_taints.empty() ? "" : ",") + t.key +
                       (t.value.empty() ? "" : "=" + t.value) + ":" + to_string(t.effect);
  }
  if (node_labels.empty() && register_taints.empty()) return "";
  // Flags are quoted YAML strings: label values may hold characters YAML would read otherwise.
  std::string out =
      "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n";
  if (!node_labels.empty()) out += "      - \"--node-labels=" + node_labels + "\"\n";
  if (!register_taints.empty())
    out += "      - \"--register-with-taints=" + register_taints + "\"\n";
  return out;
}

std::string user_data_with_node_config(const std::string& base, const std::string& node_config) {
  if (node_config.empty()) return base;
  if (const std::string boundary = multipart_boundary(base); !boundary.empty()) {
    // Before the first part, so the parts after it (the template's) are read as they were.
    const std::string first = "--" + boundary;
    const auto at = base.find(first);
    if (at != std::string::npos) {
      std::string out = base;
      out.insert(at, node_config_part(boundary, node_config));
      return out;
    }
  }
  std::string boundary = "==FITSCALE_NODE_CONFIG==";
  while (base.find(boundary) != std::string::npos) boundary += "=";
  std::string out = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"" + boundary +
                    "\"\n\n" + node_config_part(boundary, node_config);
  if (!base.empty()) {
    out += "--" + boundary + "\nContent-Type: " + part_type_of(base) + "\n\n" + base;
    if (base.back() != '\n') out += "\n";
  }
  out += "--" + boundary + "--\n";
  return out;
}

}  // namespace fitscale::aws
