#pragma once
// Where the Kubernetes API is and how to authenticate to it: from a kubeconfig file (kubectl's
// format) or from the pod's service account (in-cluster). Secrets (token, client key) live only
// in this struct and in the HTTP handle; nothing here is ever logged.
#include <string>
#include <string_view>

namespace fitscale {

struct KubeConfig {
  std::string source;  // the kubeconfig path or "in-cluster", for messages
  std::string server;  // "https://10.0.0.1:443", no trailing slash
  // CA bundle (certificate-authority-data or the file's contents); empty = system CAs.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  std::string token;                          // bearer token (secret)
  std::string client_cert_pem;                // client certificate (PEM)
  std::string client_key_pem;                 // client key (PEM, secret)
  std::string default_namespace = "default";  // the context's namespace, or the service account's
};

// Parses kubeconfig YAML. `source` names the file in errors; relative file references
// (certificate-authority, client-certificate, client-key, tokenFile) resolve against `base_dir`,
// as kubectl does. Throws InputError naming the file and the key ("users[0].user.token").
KubeConfig parse_kubeconfig(std::string_view yaml_text, const std::string& source,
                            const std::string& base_dir);
KubeConfig load_kubeconfig(const std::string& path);

// In-cluster config. The caller (cli/) reads KUBERNETES_SERVICE_HOST / _PORT from the
// environment; the service-account directory holds token, ca.crt and namespace.
struct InClusterEnv {
  std::string host;
  std::string port;
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};
KubeConfig in_cluster_config(const InClusterEnv& env);

}  // namespace fitscale
