#pragma once
// The certificates `fitscale cluster` serves HTTPS with when it is given none: a throwaway CA
// and a serving certificate it signed, made at start. HTTPS by default because the official
// JavaScript client refuses an http:// server unless the kubeconfig also says
// insecure-skip-tls-verify; with the CA written into the kubeconfig as
// certificate-authority-data, every client verifies the server instead.
#include <string>
#include <vector>

#include "model/time.h"

namespace fitscale::vcluster {

struct GeneratedTls {
  std::string ca_pem;    // the CA certificate (what clients trust)
  std::string cert_pem;  // the serving certificate, signed by the CA
  std::string key_pem;   // the serving certificate's private key
};

// A P-256 CA ("fitscale-cluster-ca") and a serving certificate for `hosts` (IP addresses become
// IP subjectAltNames, anything else DNS names), valid from an hour before `now` for a year.
// Throws std::runtime_error when OpenSSL fails.
GeneratedTls generate_serving_tls(const std::vector<std::string>& hosts, Time now);

}  // namespace fitscale::vcluster
