#pragma once
// DescribeInstances pages -> fitscale Instances (the cluster's, found by tag after a restart).
#include <functional>
#include <pugixml.hpp>
#include <vector>

#include "cloud/aws/sigv4.h"
#include "controller/interfaces.h"

namespace fitscale::aws {

// Filters for the cluster's live instances: tag fitscale.io/cluster=NAME, state pending,
// running or stopping.
NameValues describe_cluster_instances_params(const std::string& cluster_name);

// `price` gives the hourly price of (type, zone, capacity) in micro-dollars (0 when unknown).
using PriceLookup = std::function<Micros(const std::string&, const std::string&, CapacityType)>;
void parse_describe_instances(const pugi::xml_node& response, const PriceLookup& price,
                              std::vector<Instance>& out);

// "2026-11-29T21:55:05.000Z" -> seconds; 0 when unparsable.
Time parse_aws_time(const std::string& text);

}  // namespace fitscale::aws
