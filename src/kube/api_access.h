#pragma once
// One request before fitscale starts its informers, to tell a misconfigured kubeconfig from an
// API server that is down: the first never heals, so it should stop the program with one line.
#include "kube/api_client.h"
#include "kube/kubeconfig.h"

namespace fitscale {

// Lists one node with `config`. Throws InputError naming the kubeconfig when the TLS handshake
// fails (server certificate not signed by the kubeconfig's CA, client certificate refused) or
// the server answers 401/403 (credentials refused). Returns normally on success and on any
// other failure (connection refused, timeout, 5xx): the informers retry those, as after an API
// server restart.
void check_api_access(const KubeConfig& config, const ApiClientOptions& options = {});

}  // namespace fitscale
