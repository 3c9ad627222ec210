#include "cloud/aws/fleet_request.h"

#include <cstdio>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/query_client.h"
#include "model/error.h"
#include "model/reservation.h"

namespace fitscale::aws {

std::string offering_key(const std::string& instance_type, const std::string& zone,
                         CapacityType capacity) {
  return instance_type + "/" + zone + "/" + to_string(capacity);
}

std::string fleet_client_token(const std::string& token) {
  return token.size() <= 64 ? token : sha256_hex(token);
}

std::string provider_id(const std::string& zone, const std::string& instance_id) {
  return "aws:///" + zone + "/" + instance_id;
}

LaunchTemplateRef launch_template_of(const LaunchRequest& r, const AwsProviderOptions& o) {
  // The pool's template.launchTemplate wins over aws.launchTemplate of the config.
  const bool pools_own = !r.launch_template_id.empty() || !r.launch_template_name.empty();
  LaunchTemplateRef template_ref =
      pools_own ? LaunchTemplateRef{r.launch_template_name, r.launch_template_id,
                                    r.launch_template_version}
                : o.launch_template;
  if (template_ref.id.empty() && template_ref.name.empty()) {
    throw InputError("aws.launchTemplate: name or id is required to launch instances (mode fleet)");
  }
  return template_ref;
}

NameValues create_fleet_params(const LaunchRequest& r, const AwsProviderOptions& o) {
  return create_fleet_params(r, o, launch_template_of(r, o));
}

NameValues create_fleet_params(const LaunchRequest& r, const AwsProviderOptions& o,
                               const LaunchTemplateRef& template_ref) {
  const bool spot = r.capacity_type == CapacityType::Spot;
  const std::string lt = "LaunchTemplateConfigs.1.";
  NameValues p = {{"Type", "instant"}};
  if (!template_ref.id.empty()) {
    p.emplace_back(lt + "LaunchTemplateSpecification.LaunchTemplateId", template_ref.id);
  } else {
    p.emplace_back(lt + "LaunchTemplateSpecification.LaunchTemplateName", template_ref.name);
  }
  p.emplace_back(lt + "LaunchTemplateSpecification.Version",
                 template_ref.version.empty() ? "$Default" : template_ref.version);
  p.emplace_back(lt + "Overrides.1.InstanceType", r.instance_type);
  if (auto s = o.subnets.find(r.zone); s != o.subnets.end()) {
    p.emplace_back(lt + "Overrides.1.SubnetId", s->second);
  } else {
    p.emplace_back(lt + "Overrides.1.AvailabilityZone", r.zone);
  }
  p.emplace_back("TargetCapacitySpecification.TotalTargetCapacity", std::to_string(r.count));
  // A reservation is launched into as on-demand capacity that uses the unused reservations of
  // the type in the zone first, or as capacity-block capacity (CreateFleet, type instant: EC2
  // API reference, CapacityReservationOptionsRequest and TargetCapacitySpecificationRequest).
  const auto reservation = r.node_labels.find(label::kCapacityReservationType);
  const bool capacity_block =
      reservation != r.node_labels.end() && reservation->second == "capacity-block";
  p.emplace_back("TargetCapacitySpecification.DefaultTargetCapacityType", spot ? "spot"
                                                                          : capacity_block
                                                                              ? "capacity-block"
                                                                              : "on-demand");
  const std::string options = spot ? "SpotOptions." : "OnDemandOptions.";
  if (spot) {
    p.emplace_back("SpotOptions.AllocationStrategy", "price-capacity-optimized");
  } else {
    p.emplace_back("OnDemandOptions.AllocationStrategy", "lowest-price");
  }
  if (r.capacity_type == CapacityType::Reserved && !capacity_block) {
    p.emplace_back("OnDemandOptions.CapacityReservationOptions.UsageStrategy",
                   "use-capacity-reservations-first");
  }
  if (r.all_or_nothing) {
    // EC2 launches nothing unless it can launch all of them, of one type in one zone (the
    // three settings go together: MinTargetCapacity requires the other two).
    p.emplace_back(options + "MinTargetCapacity", std::to_string(r.count));
    p.emplace_back(options + "SingleInstanceType", "true");
    p.emplace_back(options + "SingleAvailabilityZone", "true");
  }
  if (r.max_total_micros_per_hour) {
    // EC2 stops launching once the fleet's instances would cost more than this per hour: the
    // budgets' ceiling enforced by the cloud itself (whole micro-dollars, as a decimal string).
    const Micros m = *r.max_total_micros_per_hour;
    char price[48];
    std::snprintf(price, sizeof price, "%lld.%06lld", static_cast<long long>(m / 1'000'000),
                  static_cast<long long>(m % 1'000'000));
    p.emplace_back(spot ? "SpotOptions.MaxTotalPrice" : "OnDemandOptions.MaxTotalPrice", price);
  }
  p.emplace_back("TagSpecification.1.ResourceType", "instance");
  int n = 0;
  auto tag = [&](const std::string& key, const std::string& value) {
    if (value.empty()) return;
    ++n;
    p.emplace_back("TagSpecification.1.Tag." + std::to_string(n) + ".Key", key);
    // Tag values are limited to 256 characters.
    p.emplace_back("TagSpecification.1.Tag." + std::to_string(n) + ".Value", value.substr(0, 256));
  };
  tag(kTagCluster, o.cluster_name);
  tag(kTagPool, r.pool);
  tag(kTagJob, r.job);
  tag(kTagNamespace, r.owner_namespace);
  if (auto id = r.node_labels.find(label::kCapacityReservationId); id != r.node_labels.end())
    tag(std::string(label::kCapacityReservationId), id->second);
  tag("Name", "fitscale-" + o.cluster_name + "-" + (r.pool.empty() ? "default" : r.pool));
  if (!r.client_token.empty()) p.emplace_back("ClientToken", fleet_client_token(r.client_token));
  return p;
}

FleetAnswer parse_create_fleet(const pugi::xml_node& response, const LaunchRequest& r, Time now) {
  FleetAnswer out;
  for (auto item : response.child("fleetInstanceSet").children("item")) {
    const std::string lifecycle = text(item, "lifecycle");
    for (auto id : item.child("instanceIds").children("item")) {
      Instance i;
      i.id = id.text().get();
      i.instance_type = text(item, "instanceType");
      if (i.instance_type.empty()) i.instance_type = r.instance_type;
      i.zone = r.zone;
      // A reserved request's instances are in the reservation (on-demand lifecycle).
      i.capacity_type = lifecycle == "spot"                         ? CapacityType::Spot
                        : r.capacity_type == CapacityType::Reserved ? CapacityType::Reserved
                                                                    : CapacityType::OnDemand;
      i.state = "pending";
      i.provider_id = provider_id(i.zone, i.id);
      i.launched_at = now;
      i.price_micros_per_hour = r.price_micros_per_hour;
      i.pool = r.pool;
      i.owner_namespace = r.owner_namespace;
      i.job = r.job;
      out.launched.push_back(std::move(i));
    }
  }
  const int missing = r.count - static_cast<int>(out.launched.size());
  if (missing <= 0) return out;
  LaunchFailure f;
  f.offering_key = offering_key(r.instance_type, r.zone, r.capacity_type);
  // A reservation's offering is backed off alone (Offering::key names it).
  if (auto id = r.node_labels.find(label::kCapacityReservationId); id != r.node_labels.end())
    f.offering_key += "/" + id->second;
  f.count = missing;
  for (auto e : response.child("errorSet").children("item")) {
    const std::string code = text(e, "errorCode");
    // A capacity code anywhere in the set decides: that is what the controller must back off.
    if (f.code.empty() || (!is_capacity_error(f.code) && is_capacity_error(code))) f.code = code;
    if (!f.message.empty()) f.message += "; ";
    f.message += code + ": " + text(e, "errorMessage");
  }
  if (f.code.empty()) {
    f.code = "UnfulfilledCapacity";
    f.message = "CreateFleet launched " + std::to_string(out.launched.size()) + " of " +
                std::to_string(r.count) + " instances and gave no error";
  }
  f.capacity_error = f.code == "UnfulfilledCapacity" || is_capacity_error(f.code);
  if (r.all_or_nothing && !out.launched.empty()) {
    // MinTargetCapacity should have prevented this; if EC2 (or what stands in for it) answered
    // with part of a gang anyway, the part is useless: it is terminated at once, the offering is
    // backed off, and the whole count counts as not launched.
    for (const Instance& i : out.launched) out.to_terminate.push_back(i.id);
    f.message += "; all or nothing: terminating the " + std::to_string(out.launched.size()) +
                 " that did launch";
    f.count = r.count;
    f.capacity_error = true;
    out.launched.clear();
  }
  out.failures.push_back(std::move(f));
  return out;
}

}  // namespace fitscale::aws
