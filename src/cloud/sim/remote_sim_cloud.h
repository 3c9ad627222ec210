#pragma once
// The virtual cluster's simulated cloud, reached over HTTP: what `fitscale run --provider sim`
// uses, so the controller launches into the same cloud whose instances `fitscale cluster`
// registers as Nodes. Endpoints: /fitscale.io/sim-cloud/{instances,launch,terminate} on the
// cluster's API server (the kubeconfig's server URL).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale {

struct RemoteSimCloudOptions {
  std::string base_url;      // "http(s)://127.0.0.1:PORT" (the API server)
  std::string bearer_token;  // the kubeconfig's token; empty = none
  long timeout_ms = 10000;
  // TLS as the kubeconfig says, for an https:// server (`fitscale cluster --tls-cert-file`).
  std::string ca_pem{};           // the only CA trusted; empty = the system CAs
  std::string client_cert_pem{};  // with client_key_pem: a client certificate
  std::string client_key_pem{};
  bool insecure_skip_tls_verify = false;
};

class RemoteSimCloud final : public CloudProvider {
 public:
  explicit RemoteSimCloud(RemoteSimCloudOptions options);

  std::string name() const override { return "sim"; }
  // A transport or server error becomes a failure (code "RequestError", not a capacity error)
  // for the whole request, so the controller neither backs off the offering nor assumes success.
  LaunchResult launch(const LaunchRequest& request) override;
  // Throws std::runtime_error when the server cannot be reached or refuses.
  void terminate(const std::vector<std::string>& instance_ids) override;
  // Throws std::runtime_error: the controller must not act on a cloud view it could not read.
  std::vector<Instance> list_instances() override;
  // One small request (GET instances?unchangedSince=G): a quiet loop neither downloads nor
  // parses the whole listing. nullopt when the server keeps no generation (an EC2 backend) or
  // cannot be reached (list_instances then says why).
  std::optional<std::uint64_t> generation() const override;
  // The listing fetched by the last generation() or list_instances() call.
  const std::vector<Instance>* lend_instances() const override;

 private:
  // Brings the cached listing up to date: a full GET only when it changed.
  void refresh() const;
  // Returns the response body; throws std::runtime_error on transport errors and non-2xx.
  std::string request(const std::string& method, const std::string& path,
                      const std::string& body) const;

  RemoteSimCloudOptions options_;
  // The last listing and its generation (nullopt: none, or a server that keeps none).
  mutable std::vector<Instance> listing_;
  mutable std::optional<std::uint64_t> listing_generation_;
};

}  // namespace fitscale
