#pragma once
// A simulated cloud: instances appear at once in state "pending" and the cluster side (simulator
// or virtual cluster) registers them as Nodes after their boot delay. Used by `fitscale simulate`
// (virtual clock) and by `fitscale cluster` (wall clock). Capacity failures can be injected.
#include <cstdint>
#include <map>
#include <string>
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

  // The next `count` launches of `offering_key` fail with `code` (e.g. InsufficientInstanceCapacity).
  void inject_failure(const std::string& offering_key, const std::string& code, int count);
  // Spot reclamation: marks the instance (interruption_notice) or removes it.
  void mark_interruption(const std::string& instance_id);
  Seconds boot_delay(const std::string& instance_type) const;
  const Instance* find(const std::string& instance_id) const;
  const SimCloudOptions& options() const { return options_; }

 private:
  const Catalog& catalog_;
  const Clock& clock_;
  SimCloudOptions options_;
  std::uint64_t next_id_ = 1;
  std::map<std::string, Instance> instances_;  // ordered by id: deterministic listing
  std::map<std::string, std::pair<std::string, int>> injected_;  // offering -> (code, remaining)
  std::map<std::string, std::vector<std::string>> tokens_;       // client token -> instance ids
};

}  // namespace fitscale
