#include "kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "model/base64.h"
#include "model/error.h"
#include "model/file_text.h"
#include "model/yaml_documents.h"

namespace fitscale {
namespace {

// A file the kubeconfig points to: the error starts with the kubeconfig and the key that named
// it ("kc.yaml: users[0].user.client-key: /p/key.pem: cannot read: ..."), as every other error
// in the kubeconfig does.
std::string read_referenced(const std::string& path, const std::string& where) {
  try {
    return read_file_text(path, "", kMaxCredentialFileBytes);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
}

std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

// Reads an optional scalar; a map or a list where a string belongs is an error naming the key.
std::string scalar(const YAML::Node& parent, const char* key, const std::string& where) {
  YAML::Node n = parent[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) throw InputError(where + "." + key + ": expected a string");
  return n.as<std::string>();
}

// Finds the entry named `name` in a kubeconfig list (clusters, users, contexts).
std::pair<YAML::Node, std::string> find_named(const YAML::Node& root, const char* list,
                                              const std::string& name, const std::string& src) {
  YAML::Node items = root[list];
  if (!items || items.IsNull())
    throw InputError(src + ": " + list + ": missing (needed for '" + name + "')");
  if (!items.IsSequence()) throw InputError(src + ": " + list + ": expected a list");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    if (!item.IsMap())
      throw InputError(src + ": " + list + "[" + std::to_string(i) + "]: expected a map");
    if (scalar(item, "name", src + ": " + list + "[" + std::to_string(i) + "]") == name) {
      return {item, src + ": " + list + "[" + std::to_string(i) + "]"};
    }
  }
  throw InputError(src + ": " + list + ": no entry named '" + name + "'");
}

YAML::Node section(const YAML::Node& item, const char* key, const std::string& where) {
  YAML::Node n = item[key];
  if (!n || n.IsNull()) throw InputError(where + "." + key + ": missing");
  if (!n.IsMap()) throw InputError(where + "." + key + ": expected a map");
  return n;
}

// "true"/"false" only: a typo in a TLS switch must not silently turn verification off.
bool boolean(const YAML::Node& parent, const char* key, const std::string& where) {
  std::string s = scalar(parent, key, where);
  if (s.empty() || s == "false") return false;
  if (s == "true") return true;
  throw InputError(where + "." + key + ": expected true or false, got '" + s + "'");
}

std::string trim_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

KubeConfig parse_kubeconfig(std::string_view yaml_text, const std::string& source,
                            const std::string& base_dir) {
  const YAML::Node root = load_yaml_document(yaml_text, source);
  if (!root.IsMap())
    throw InputError(source + ": not a kubeconfig (expected a YAML map at the top)");

  KubeConfig cfg;
  cfg.source = source;
  try {
    YAML::Node current = root["current-context"];
    if (current && !current.IsScalar())
      throw InputError(source + ": current-context: expected a string");
    std::string context_name = current && !current.IsNull() ? current.as<std::string>() : "";
    if (context_name.empty()) throw InputError(source + ": current-context: missing");
    auto [ctx_item, ctx_where] = find_named(root, "contexts", context_name, source);
    YAML::Node ctx = section(ctx_item, "context", ctx_where);
    std::string cluster_name = scalar(ctx, "cluster", ctx_where + ".context");
    if (cluster_name.empty()) throw InputError(ctx_where + ".context.cluster: missing");
    std::string user_name = scalar(ctx, "user", ctx_where + ".context");
    std::string ns = scalar(ctx, "namespace", ctx_where + ".context");
    if (!ns.empty()) cfg.default_namespace = ns;

    auto [cl_item, cl_where] = find_named(root, "clusters", cluster_name, source);
    YAML::Node cluster = section(cl_item, "cluster", cl_where);
    std::string where = cl_where + ".cluster";
    cfg.server = scalar(cluster, "server", where);
    if (cfg.server.empty()) throw InputError(where + ".server: missing");
    if (cfg.server.rfind("http://", 0) != 0 && cfg.server.rfind("https://", 0) != 0) {
      throw InputError(where + ".server: expected an http:// or https:// URL, got '" + cfg.server +
                       "'");
    }
    while (cfg.server.size() > 8 && cfg.server.back() == '/') cfg.server.pop_back();
    cfg.insecure_skip_tls_verify = boolean(cluster, "insecure-skip-tls-verify", where);
    if (std::string data = scalar(cluster, "certificate-authority-data", where); !data.empty()) {
      cfg.ca_pem = base64_decode(data, where + ".certificate-authority-data");
    } else if (std::string file = scalar(cluster, "certificate-authority", where); !file.empty()) {
      cfg.ca_pem = read_referenced(resolve(base_dir, file), where + ".certificate-authority");
    }

    if (!user_name.empty()) {
      auto [u_item, u_where] = find_named(root, "users", user_name, source);
      YAML::Node user = u_item["user"];
      std::string uw = u_where + ".user";
      if (user && !user.IsNull()) {
        if (!user.IsMap()) throw InputError(uw + ": expected a map");
        if (user["exec"] || user["auth-provider"]) {
          throw InputError(uw + (user["exec"] ? ".exec" : ".auth-provider") +
                           ": not supported by fitscale; use a token or a client certificate");
        }
        cfg.token = scalar(user, "token", uw);
        if (cfg.token.empty()) {
          if (std::string file = scalar(user, "tokenFile", uw); !file.empty()) {
            cfg.token = trim_newlines(read_referenced(resolve(base_dir, file), uw + ".tokenFile"));
          }
        }
        if (std::string data = scalar(user, "client-certificate-data", uw); !data.empty()) {
          cfg.client_cert_pem = base64_decode(data, uw + ".client-certificate-data");
        } else if (std::string file = scalar(user, "client-certificate", uw); !file.empty()) {
          cfg.client_cert_pem =
              read_referenced(resolve(base_dir, file), uw + ".client-certificate");
        }
        if (std::string data = scalar(user, "client-key-data", uw); !data.empty()) {
          cfg.client_key_pem = base64_decode(data, uw + ".client-key-data");
        } else if (std::string file = scalar(user, "client-key", uw); !file.empty()) {
          cfg.client_key_pem = read_referenced(resolve(base_dir, file), uw + ".client-key");
        }
        if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty()) {
          throw InputError(uw + ": client-certificate and client-key must be given together");
        }
      }
    }
  } catch (const YAML::Exception& e) {
    throw InputError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return cfg;
}

KubeConfig load_kubeconfig(const std::string& path) {
  std::string text = read_file_text(path, "kubeconfig");
  std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_kubeconfig(text, path, dir);
}

KubeConfig in_cluster_config(const InClusterEnv& env) {
  if (env.host.empty() || env.port.empty()) {
    throw InputError(
        "no --kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST/PORT unset)");
  }
  KubeConfig cfg;
  cfg.source = "in-cluster";
  // An IPv6 service host needs brackets in a URL.
  std::string host = env.host.find(':') != std::string::npos ? "[" + env.host + "]" : env.host;
  cfg.server = "https://" + host + ":" + env.port;
  const std::string dir = env.service_account_dir;
  cfg.token = trim_newlines(
      read_file_text(dir + "/token", "in-cluster service account token", kMaxCredentialFileBytes));
  cfg.ca_pem =
      read_file_text(dir + "/ca.crt", "in-cluster service account CA", kMaxCredentialFileBytes);
  std::ifstream ns_file(dir + "/namespace");
  if (ns_file) {
    std::string ns;
    std::getline(ns_file, ns);
    if (!ns.empty()) cfg.default_namespace = ns;
  }
  return cfg;
}

}  // namespace fitscale
