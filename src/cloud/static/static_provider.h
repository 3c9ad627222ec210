#pragma once
// Owned hardware (docs/clouds.md): the machines a team already has, as a CloudProvider. They are
// the Nodes that match a label selector; each is an "instance" with an amortized price (or 0) so
// the ledger meters it like the rest and budgets see its cost. They are never launched (the
// catalog sells none: the planner uses them as existing capacity, before any new offering) and
// never terminated: scale-down never proposes them (may_remove, model/node.h) and terminate()
// here refuses whatever it is asked.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale {

struct StaticProviderOptions {
  std::string name = "owned";  // the provider's name (providers[].name)
  Labels node_selector;        // every key=value must be on the Node
  Micros micros_per_hour = 0;  // amortized cost of one node
};

class StaticProvider final : public CloudProvider {
 public:
  // The cluster's Nodes, or nullopt while they are not known (a view not synced yet): then the
  // listing keeps what it had, so owned nodes do not seem to vanish and come back.
  using NodeSource = std::function<std::optional<std::vector<Node>>()>;
  StaticProvider(StaticProviderOptions options, NodeSource nodes, const Clock& clock);

  std::string name() const override { return options_.name; }
  LaunchResult launch(const LaunchRequest& request) override;
  void terminate(const std::vector<std::string>& instance_ids) override;
  std::vector<Instance> list_instances() override;

  // Ids terminate() was asked for and refused (there must be none; tests and logs check).
  const std::vector<std::string>& refused_terminations() const { return refused_; }

 private:
  StaticProviderOptions options_;
  NodeSource nodes_;
  const Clock& clock_;
  // Node name -> when this provider first saw it: metering starts then, not at the Node's
  // creation, so a machine that has run for a year is not billed a year on fitscale's first day.
  std::map<std::string, Time, std::less<>> first_seen_;
  std::vector<Instance> last_;
  std::vector<std::string> refused_;
};

// The instance that stands for owned Node `n` (exposed for the simulator and tests).
Instance owned_instance(const Node& n, const StaticProviderOptions& options, Time metered_from);

}  // namespace fitscale
