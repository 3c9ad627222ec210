#pragma once
// Several providers behind one CloudProvider (docs/clouds.md): AWS in two regions, Azure, the
// team's own machines, each a named instance. A launch goes to the provider its offering names
// (LaunchRequest::provider, from Offering::provider); listings are merged, each instance marked
// with the provider that listed it; a termination goes to the provider that owns the instance.
// Pure routing: it holds no state a restart would need (ownership is learnt again by listing).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale {

struct NamedProvider {
  std::string name;  // the fitscale.io/provider value of its offerings
  CloudProvider* cloud = nullptr;
};

class MultiCloud final : public CloudProvider {
 public:
  // `default_provider` takes launches that name no provider (an offering of a catalog row with
  // no provider column). Throws std::invalid_argument on an empty list, a repeated name or a
  // default that is not one of them.
  MultiCloud(std::vector<NamedProvider> providers, std::string default_provider);

  std::string name() const override { return "multi"; }
  LaunchResult launch(const LaunchRequest& request) override;
  void terminate(const std::vector<std::string>& instance_ids) override;
  // Every provider's instances. A provider that fails to list fails the whole listing (the
  // controller then acts on nothing this loop): a partial listing would look like instances gone.
  std::vector<Instance> list_instances() override;
  // Known only when every provider's is.
  std::optional<std::uint64_t> generation() const override;

  // The provider an instance belongs to, as last listed or launched; "" when not known.
  std::string owner_of(const std::string& instance_id) const;

 private:
  const NamedProvider* find(const std::string& name) const;
  std::vector<NamedProvider> providers_;
  std::string default_;
  std::unordered_map<std::string, std::size_t> owner_;  // instance id -> index into providers_
};

}  // namespace fitscale
