#pragma once
#include <stdexcept>
#include <string>

namespace fitscale {

// Bad input from a user: a file, a field, an object. The message names the place
// ("cluster.json: pod team-a/train-0: spec.containers[0].resources.requests.cpu: ...").
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fitscale
