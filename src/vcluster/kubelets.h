#pragma once
// Simulated kubelets, one pass over every bound pod: a pod bound to a node starts Running; it
// runs for the Go duration in annotation fitscale.io/sim-duration and then Succeeds (or forever
// without it); activeDeadlineSeconds fails it with DeadlineExceeded; a pod whose node is gone
// fails (NodeLost); a pod being deleted is stopped and removed.
#include "controller/interfaces.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

struct KubeletPass {
  int started = 0;
  int succeeded = 0;
  int failed = 0;
  int removed = 0;
};

KubeletPass run_kubelets(ObjectStore& store, const Clock& clock);

}  // namespace fitscale::vcluster
