#include "planner/gangs.h"

#include "planner/offering_choice.h"
#include "planner/reasons.h"

namespace fitscale::planner {

GangPlan pack_gang(const std::string& gang, const std::vector<PodClass>& members,
                   const Catalog& catalog, const Policy& policy,
                   const std::vector<std::uint32_t>& zone_offerings) {
  GangPlan best;
  std::int64_t pod_count = 0;
  for (const PodClass& c : members) pod_count += static_cast<std::int64_t>(c.pods.size());
  bool backoff_blocked = false;
  for (const std::string& zone : policy.zones) {
    std::vector<std::uint32_t> here;
    for (std::uint32_t i : zone_offerings) {
      if (catalog.offerings[i].zone == zone) here.push_back(i);
    }
    GangPlan p;
    p.ok = true;
    p.zone = zone;
    for (const PodClass& c : members) {
      const OfferingChoice choice = choose_offerings(c, catalog, policy, here);
      if (choice.usable.empty()) {
        backoff_blocked = backoff_blocked || !choice.backed_off.empty();
        p.ok = false;
        break;
      }
      const ClassPacker packer(c.exemplar->requests, c.self_anti_affinity, choice.usable, catalog,
                               PriceTies::FewerNodes);
      const auto n = static_cast<std::int64_t>(c.pods.size());
      p.micros_per_hour += packer.cost(n);
      p.nodes += packer.nodes(n);
      p.gpus += packer.gpus(n);
      for (NewNodes& g : lay_out(packer, c.pods)) p.groups.push_back(std::move(g));
    }
    if (p.ok && (!best.ok || p.micros_per_hour < best.micros_per_hour)) best = std::move(p);
  }
  if (best.ok) return best;

  // Say why: a member no offering anywhere can hold, backoff, or no single zone for all.
  for (const PodClass& c : members) {
    const OfferingChoice anywhere = choose_offerings(c, catalog, policy, zone_offerings);
    if (!anywhere.fits_somewhere()) {
      best.kind = UnschedulableKind::NoOffering;
      best.reason = "gang " + gang + ": pod " + c.exemplar->key() + ": " +
                    no_offering_reason(c, catalog, zone_offerings);
      return best;
    }
  }
  if (backoff_blocked) {
    best.kind = UnschedulableKind::CapacityBackoff;
    best.reason =
        "gang " + gang +
        ": in every zone some of its pods fit only offerings backed off after launch failures";
    return best;
  }
  best.kind = UnschedulableKind::NoOffering;
  best.reason = "gang " + gang + " needs its " + format_count(pod_count) +
                " pods in one zone; no single zone has offerings for all of them";
  return best;
}

}  // namespace fitscale::planner
