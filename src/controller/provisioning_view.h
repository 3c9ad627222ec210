#pragma once
// ProvisioningRequests served through the controller's own planning (docs/kueue.md): a
// ClusterView in front of the real one that, each loop,
// - shows the pods of every request that still asks for capacity (model/provisioning_request.h)
//   as pending pods, so the controller plans, budgets and launches them like any other gang;
// - shows the pods of a booked request bound to the nodes found for them, so no other pending
//   pod is planned onto that capacity and scale-down keeps those nodes;
// - hides pods that consume a request (consume-provisioning-request annotation) from launching:
//   they use the booked capacity and trigger nothing else;
// - reads what the controller says of the request's pods (the Events it records on them; they
//   never reach the API) and turns it, with the capacity found, into the request's conditions
//   (controller/provisioning_decision.h), written through the store.
#include <map>
#include <set>
#include <string>

#include "controller/interfaces.h"
#include "controller/provisioning_decision.h"
#include "controller/provisioning_store.h"
#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale {

class ProvisioningRequestView final : public ClusterView {
 public:
  // All references must outlive the view. `policy` decides where pods fit (budgets are not
  // applied to that question; the controller applies them to launches).
  ProvisioningRequestView(ClusterView& inner, ProvisioningRequestStore& store, const Clock& clock,
                          const Catalog& catalog, Policy policy);

  std::uint64_t generation() const override;
  ClusterState observe() override;
  bool cordon(const std::string& node) override { return inner_.cordon(node); }
  bool uncordon(const std::string& node) override { return inner_.uncordon(node); }
  bool add_taint(const std::string& node, const Taint& taint) override {
    return inner_.add_taint(node, taint);
  }
  bool remove_taint(const std::string& node, const std::string& key) override {
    return inner_.remove_taint(node, key);
  }
  EvictOutcome evict(const std::string& ns, const std::string& pod) override;
  bool delete_node(const std::string& node) override { return inner_.delete_node(node); }
  bool delete_pod(const std::string& ns, const std::string& pod) override;
  bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                              std::string_view gate) override;
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message) override;

  // What the last observe() decided, for tests and logs: request key -> action.
  const std::map<std::string, RequestAction>& actions() const { return actions_; }
  // Status writes that failed at the last observe() (request key -> error).
  const std::map<std::string, std::string>& write_errors() const { return write_errors_; }

 private:
  // Places `pods` on Ready nodes next to everything bound (and earlier bookings): node by pod
  // key for every pod, or empty when not all fit.
  std::map<std::string, std::string> fit(const ClusterState& s, const std::vector<Pod>& pods,
                                         Time now) const;

  ClusterView& inner_;
  ProvisioningRequestStore& store_;
  const Clock& clock_;
  const Catalog& catalog_;
  Policy policy_;
  std::map<std::string, PlanVerdict> verdicts_;  // by request key
  std::set<std::string> launched_;               // requests the controller launched nodes for
  std::map<std::string, RequestAction> actions_;
  std::map<std::string, std::string> write_errors_;
  bool active_ = false;  // some request still changes with time alone (bookings, expiry)
  mutable std::uint64_t polls_ = 0;
};

}  // namespace fitscale
