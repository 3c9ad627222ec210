#pragma once
// A bearer token for a cloud's REST API (Azure Resource Manager, Compute Engine): fetched by a
// credential (client secret, service-account JWT, metadata server) and kept until near expiry.
#include <string>

namespace fitscale::cloud {

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  // A bearer token. Throws the cloud's error type when none can be had.
  virtual std::string token() = 0;
};

}  // namespace fitscale::cloud
