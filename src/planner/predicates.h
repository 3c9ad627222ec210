#pragma once
// Scheduling predicates the planner evaluates once per (pod class, node or offering), never per
// pod: resources, labels (nodeSelector and required node affinity), anti-affinity.
#include <cstdint>
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/pod.h"
#include "model/resources.h"

namespace fitscale::planner {

struct PodClass;

// Every requested resource is available (extended resources a node lacks count as zero).
// Allocation-free: this runs in the inner loops.
bool fits(const Resources& req, const Resources& avail);

// How many pods of `req` one node of `alloc` holds: the minimum over requested resources of
// floor(alloc / req). Zero when one does not fit.
std::int64_t pods_per_node(const Resources& req, const Resources& alloc);

// The largest fraction of `alloc` that `req` takes over all requested resources (pods included);
// +infinity when a requested resource is missing.
double dominant_share(const Resources& req, const Resources& alloc);

// nodeSelector and required node affinity of the class (already canonical) against node labels.
bool labels_admit(const PodClass& c, const Labels& labels);
bool labels_admit(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                  const Labels& labels);

// Node labels plus the canonical key for every alias key present, so a node labelled by
// Karpenter or an older cluster matches a canonicalised selector.
Labels canonical_labels(const Labels& labels, const std::vector<std::string>& gpu_models);
// Whether canonical_labels would return `labels` unchanged: every alias key present has its
// canonical key present too (canonical_labels never overrides one). No copy, no allocation.
bool labels_are_canonical(const Labels& labels);

// Required anti-affinity on kubernetes.io/hostname, both ways: `incoming` refuses a node with
// `resident`, or `resident` refuses `incoming` (Kubernetes honours existing pods' terms too).
bool anti_affinity_conflict(const Pod& incoming, const Pod& resident);

}  // namespace fitscale::planner
