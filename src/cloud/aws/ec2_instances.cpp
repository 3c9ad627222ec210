#include "cloud/aws/ec2_instances.h"

#include "cloud/aws/aws_options.h"
#include "cloud/aws/fleet_request.h"
#include "cloud/aws/query_client.h"
#include "model/error.h"
#include "model/reservation.h"
#include "model/time.h"

namespace fitscale::aws {

NameValues describe_cluster_instances_params(const std::string& cluster_name) {
  return {{"Filter.1.Name", std::string("tag:") + kTagCluster},
          {"Filter.1.Value.1", cluster_name},
          {"Filter.2.Name", "instance-state-name"},
          {"Filter.2.Value.1", "pending"},
          {"Filter.2.Value.2", "running"},
          {"Filter.2.Value.3", "stopping"},
          {"MaxResults", "500"}};
}

Time parse_aws_time(const std::string& text) {
  std::string t = text;
  if (auto dot = t.find('.'); dot != std::string::npos) {
    auto z = t.find_first_of("Z+", dot);
    t = t.substr(0, dot) + (z == std::string::npos ? "Z" : t.substr(z));
  }
  try {
    return parse_rfc3339(t);
  } catch (const InputError&) {
    return 0;
  }
}

void parse_describe_instances(const pugi::xml_node& response, const PriceLookup& price,
                              std::vector<Instance>& out) {
  for (auto reservation : response.child("reservationSet").children("item")) {
    for (auto item : reservation.child("instancesSet").children("item")) {
      Instance i;
      i.id = text(item, "instanceId");
      i.instance_type = text(item, "instanceType");
      i.zone = item.child("placement").child_value("availabilityZone");
      i.state = item.child("instanceState").child_value("name");
      // An instance running in a Capacity Reservation or Capacity Block names it.
      const std::string reservation = text(item, "capacityReservationId");
      i.capacity_type = text(item, "instanceLifecycle") == "spot" ? CapacityType::Spot
                        : !reservation.empty()                    ? CapacityType::Reserved
                                                                  : CapacityType::OnDemand;
      if (!reservation.empty()) i.node_labels.emplace(label::kCapacityReservationId, reservation);
      i.provider_id = provider_id(i.zone, i.id);
      i.launched_at = parse_aws_time(text(item, "launchTime"));
      for (auto tag : item.child("tagSet").children("item")) {
        i.tags[text(tag, "key")] = text(tag, "value");
      }
      if (auto t = i.tags.find(kTagPool); t != i.tags.end()) i.pool = t->second;
      if (auto t = i.tags.find(kTagJob); t != i.tags.end()) i.job = t->second;
      if (auto t = i.tags.find(kTagNamespace); t != i.tags.end()) i.owner_namespace = t->second;
      i.price_micros_per_hour = price ? price(i.instance_type, i.zone, i.capacity_type) : 0;
      out.push_back(std::move(i));
    }
  }
}

}  // namespace fitscale::aws
