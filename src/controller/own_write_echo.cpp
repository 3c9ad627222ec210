#include "controller/own_write_echo.h"

namespace fitscale {

bool OwnWriteEcho::is_echo(const ClusterState& observed) const {
  if (!expected_ || !observed.synced) return false;
  // Sizes first: most real changes (a pod came or went) are found without comparing objects.
  const ClusterState& e = *expected_;
  return observed.nodes.size() == e.nodes.size() && observed.pods.size() == e.pods.size() &&
         observed.pdbs == e.pdbs && observed.bad_pods == e.bad_pods && observed.nodes == e.nodes &&
         observed.pods == e.pods;
}

}  // namespace fitscale
