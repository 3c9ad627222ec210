#include "model/node.h"

namespace fitscale {

const char* to_string(NodeState s) {
  switch (s) {
    case NodeState::InFlight:
      return "in-flight";
    case NodeState::Registered:
      return "registered";
    case NodeState::Ready:
      return "ready";
    case NodeState::Deleting:
      return "deleting";
  }
  return "unknown";
}

}  // namespace fitscale
