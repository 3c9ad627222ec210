#pragma once

#include <nlohmann/json.hpp>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// The scale subresource (`kubectl scale`, HorizontalPodAutoscaler): the autoscaling/v1 Scale of
// an object whose resource has ScalePaths (a custom resource's CRD, or a built-in Deployment),
// and the object with a Scale's spec.replicas written to its spec replicas path.
nlohmann::json scale_of(const ResourceInfo& r, const nlohmann::json& obj);
nlohmann::json with_scale(const ResourceInfo& r, nlohmann::json obj, const nlohmann::json& scale);

// A metav1.LabelSelector ({matchLabels, matchExpressions}) in the query-parameter syntax that
// Scale's status.selector carries ("app=web,tier in (a,b),!canary"), its requirements sorted by
// key as kube-apiserver's labels.Selector prints them.
std::string label_selector_string(const nlohmann::json& selector);

}  // namespace fitscale::vcluster
