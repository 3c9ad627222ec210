#pragma once
// Everything fitscale reads from an EC2, Auto Scaling or SQS answer, run on one body, for the
// bad-input contract (bad_input.h): fuzz/aws_xml_fuzz.cpp and
// tests/cloud/aws_xml_mutation_test.cpp. A body that is not XML is QueryClient's AwsError
// "MalformedResponse"; anything that parses must be read without an exception and without undefined
// behaviour, and a catalog merged from it must build. The EventBridge event bodies in SQS messages
// (JSON) are read from the raw text as well.
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/aws/api_catalog.h"
#include "cloud/aws/asg_groups.h"
#include "cloud/aws/aws_error.h"
#include "cloud/aws/ec2_instances.h"
#include "cloud/aws/fleet_request.h"
#include "cloud/aws/interruption_queue.h"

namespace fitscale::bad_input {

// A price-table row for an API type: the merge needs one to know the on-demand price.
inline InstanceType price_table_row(const std::string& name) {
  InstanceType row;
  row.name = name;
  row.arch = "amd64";
  row.vcpu = 2;
  row.memory_mib = 4096;
  row.on_demand_usd_per_hour = 0.1;
  return row;
}

inline void read_aws_answer(std::string_view text) {
  aws::decode_error(text, 400);
  aws::parse_interruption_event(text);
  pugi::xml_document doc;
  if (!doc.load_buffer(text.data(), text.size())) return;
  const pugi::xml_node root = doc.document_element();

  aws::ApiFacts facts;
  aws::parse_instance_types(root, facts);
  aws::parse_type_offerings(root, facts);
  aws::parse_spot_prices(root, facts);
  std::vector<InstanceType> table;
  for (const auto& [name, t] : facts.types) {
    (void)t;
    facts.offered.emplace(name, "us-east-1a");
    table.push_back(price_table_row(name));
  }
  CatalogOptions options;
  Catalog catalog = aws::merge_api_catalog(facts, table, options).catalog;
  aws::apply_spot_prices(catalog, facts.spot);

  std::vector<Instance> instances;
  aws::parse_describe_instances(root, nullptr, instances);
  std::vector<aws::AutoScalingGroup> groups;
  aws::parse_groups(root, "fitscale.io/asg", "", groups);
  for (const auto& g : groups) (void)g.grown_desired(1);
  for (const auto& m : aws::parse_receive_message(root)) aws::parse_interruption_event(m.body);
  LaunchRequest request;
  request.instance_type = "m5.large";
  request.zone = "us-east-1a";
  request.count = 2;
  aws::parse_create_fleet(root, request, 0);
}

}  // namespace fitscale::bad_input
