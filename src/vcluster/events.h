#pragma once
// core/v1 Events written by the virtual cluster's own components (scheduler, kubelets, job
// controller, cloud bridge), so `kubectl get events` tells the story of a pod or node.
#include <nlohmann/json.hpp>
#include <string>

#include "controller/interfaces.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

// `about` is the object (Pod, Node, Job); its kind/apiVersion must be set.
void record_event(ObjectStore& store, const Clock& clock, const nlohmann::json& about,
                  const std::string& type, const std::string& reason, const std::string& message,
                  const std::string& component);

}  // namespace fitscale::vcluster
