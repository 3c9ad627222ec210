#pragma once
// A simulated cloud: instances appear at once in state "pending" and the cluster side (simulator
// or virtual cluster) registers them as Nodes after their boot delay. Used by `fitscale simulate`
// (virtual clock) and by `fitscale cluster` (wall clock). Capacity failures can be injected.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "controller/interfaces.h"
#include "model/catalog.h"

namespace fitscale {

struct SimCloudOptions {
  Seconds boot_delay_cpu_s = 90;
  Seconds boot_delay_gpu_s = 180;
  std::string region = "us-east-1";
  std::string cluster_name = "fitscale";
};

class SimCloud final : public CloudProvider {
 public:
  SimCloud(const Catalog& catalog, const Clock& clock, SimCloudOptions options);

  std::string name() const override { return "sim"; }
  LaunchResult launch(const LaunchRequest& request) override;
  void terminate(const std::vector<std::string>& instance_ids) override;
  std::vector<Instance> list_instances() override;
  std::optional<std::uint64_t> generation() const override { return generation_; }
  const std::vector<Instance>* lend_instances() const override { return &live_list_; }

  // The next `count` launches of `offering_key` fail with `code` (e.g.
  // InsufficientInstanceCapacity).
  void inject_failure(const std::string& offering_key, const std::string& code, int count);
  // Spot reclamation: marks the instance (interruption_notice) or removes it.
  void mark_interruption(const std::string& instance_id);
  // The instance finished booting (pending -> running); the cluster side registers its Node.
  void mark_running(const std::string& instance_id);
  Seconds boot_delay(const std::string& instance_type) const;
  const Instance* find(const std::string& instance_id) const;
  const SimCloudOptions& options() const { return options_; }

  // Every instance ever launched, terminated ones included (state "terminated"), by id: the
  // simulator meters cost from launch to termination with these.
  const std::map<std::string, Instance>& all_instances() const { return instances_; }
  // When a terminated instance stopped (absent while it lives).
  std::optional<Time> terminated_at(const std::string& instance_id) const;
  // Every termination in the order it happened (id, when): a reader keeps how many it has seen
  // and looks only at the new ones instead of asking about every live instance.
  const std::vector<std::pair<std::string, Time>>& terminations() const { return terminations_; }
  std::size_t live_count() const { return live_.size(); }

 private:
  const Catalog& catalog_;
  const Clock& clock_;
  SimCloudOptions options_;
  std::uint64_t next_id_ = 1;
  std::map<std::string, Instance> instances_;  // ordered by id: deterministic listing
  std::map<std::string, std::pair<std::string, int>> injected_;  // offering -> (code, remaining)
  std::map<std::string, std::vector<std::string>> tokens_;       // client token -> instance ids
  std::set<std::string> live_;                                   // ids not yet terminated
  // The live instances by id (ids are fixed-width, so launch order is id order): what
  // list_instances() returns, kept up to date rather than assembled on every call.
  std::vector<Instance> live_list_;
  Instance* live_entry(const std::string& id);
  // Asked for every live instance on every engine step: hashed, not searched among every
  // instance ever terminated.
  std::unordered_map<std::string, Time> terminated_at_;
  std::vector<std::pair<std::string, Time>> terminations_;
  std::map<std::string, std::size_t, std::less<>> offering_index_;  // Offering::key() -> index
  std::uint64_t generation_ = 1;
};

}  // namespace fitscale
