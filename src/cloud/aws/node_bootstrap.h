#pragma once
// What an EC2 node's kubelet is told to register with: its pool's labels and taints (startup
// taints included), written into the instance's user data for Amazon Linux 2023's nodeadm
// (docs/aws.md, "Node labels and taints"). nodeadm reads every part of a MIME multipart user data
// whose type is application/node.eks.aws and merges the NodeConfig documents, so fitscale adds one
// part holding only kubelet flags (--node-labels, --register-with-taints) and keeps the launch
// template's own parts (its cluster NodeConfig, scripts) as they are.
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/taint.h"

namespace fitscale::aws {

// The labels a kubelet may set on its own Node: its NodeRestriction admission refuses labels in
// the kubernetes.io and k8s.io namespaces other than the kubelet's own (kubelet.kubernetes.io/,
// node.kubernetes.io/ and the well-known ones it sets itself), and the kubelet refuses to start
// with them. The well-known ones (instance type, zone, region, arch, os, hostname) the kubelet and
// the cloud set anyway, so they are left out too.
Labels kubelet_settable_labels(const Labels& labels);

// The NodeConfig (node.eks.aws/v1alpha1) with spec.kubelet.flags for these labels and taints;
// "" when there is nothing to pass.
std::string nodeadm_kubelet_flags(const Labels& labels, const std::vector<Taint>& taints);

// `base` (the launch template's user data, decoded; may be empty) with `node_config` added as
// its first application/node.eks.aws part. A MIME multipart `base` keeps its parts and boundary;
// any other `base` becomes a part of its own (a #! script: text/x-shellscript, #cloud-config:
// text/cloud-config, a NodeConfig: application/node.eks.aws, else text/plain).
std::string user_data_with_node_config(const std::string& base, const std::string& node_config);

}  // namespace fitscale::aws
