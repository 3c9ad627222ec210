#include "controller/multi_cloud.h"

#include <map>
#include <set>
#include <stdexcept>

namespace fitscale {

MultiCloud::MultiCloud(std::vector<NamedProvider> providers, std::string default_provider)
    : providers_(std::move(providers)), default_(std::move(default_provider)) {
  if (providers_.empty()) throw std::invalid_argument("MultiCloud: no providers");
  std::set<std::string> names;
  for (const auto& p : providers_) {
    if (p.cloud == nullptr || !names.insert(p.name).second)
      throw std::invalid_argument("MultiCloud: provider \"" + p.name + "\" missing or repeated");
  }
  if (names.count(default_) == 0)
    throw std::invalid_argument("MultiCloud: default provider \"" + default_ + "\" not listed");
}

const NamedProvider* MultiCloud::find(const std::string& name) const {
  const std::string& want = name.empty() ? default_ : name;
  for (const auto& p : providers_) {
    if (p.name == want) return &p;
  }
  return nullptr;
}

LaunchResult MultiCloud::launch(const LaunchRequest& request) {
  const NamedProvider* p = find(request.provider);
  if (p == nullptr) {
    // A catalog row naming a provider that is not configured: `fitscale run` refuses such a
    // catalog at start, so this is a bug above, reported rather than launched anywhere else.
    LaunchResult out;
    out.failures.push_back(
        {request.instance_type + "/" + request.zone + "/" + to_string(request.capacity_type),
         request.count, "UnknownProvider",
         "no provider named \"" + request.provider + "\" is configured", false});
    return out;
  }
  LaunchResult r = p->cloud->launch(request);
  const auto index = static_cast<std::size_t>(p - providers_.data());
  for (auto& inst : r.launched) {
    inst.provider = p->name;
    owner_[inst.id] = index;
  }
  return r;
}

void MultiCloud::terminate(const std::vector<std::string>& instance_ids) {
  auto group = [&](std::vector<std::string>& unknown) {
    std::map<std::size_t, std::vector<std::string>> by_owner;
    for (const auto& id : instance_ids) {
      auto it = owner_.find(id);
      if (it == owner_.end()) {
        unknown.push_back(id);
      } else {
        by_owner[it->second].push_back(id);
      }
    }
    return by_owner;
  };
  std::vector<std::string> unknown;
  auto by_owner = group(unknown);
  if (!unknown.empty()) {
    // Not seen since a restart: ask every provider once, then route what they own.
    list_instances();
    unknown.clear();
    by_owner = group(unknown);
  }
  // Ids no provider lists are gone already: there is nothing to terminate.
  for (const auto& [index, ids] : by_owner) providers_[index].cloud->terminate(ids);
}

std::vector<Instance> MultiCloud::list_instances() {
  std::vector<Instance> out;
  std::unordered_map<std::string, std::size_t> owner;
  for (std::size_t i = 0; i < providers_.size(); ++i) {
    std::vector<Instance> listed = providers_[i].cloud->list_instances();
    out.reserve(out.size() + listed.size());
    for (auto& inst : listed) {
      auto [it, fresh] = owner.emplace(inst.id, i);
      if (!fresh) {
        // The controller and the ledger know an instance by its id alone.
        throw std::runtime_error("instance id " + inst.id + " is listed by providers \"" +
                                 providers_[it->second].name + "\" and \"" + providers_[i].name +
                                 "\"");
      }
      inst.provider = providers_[i].name;
      out.push_back(std::move(inst));
    }
  }
  owner_ = std::move(owner);
  return out;
}

std::optional<std::uint64_t> MultiCloud::generation() const {
  // Mixed so that any one provider's change changes the whole (FNV-1a over the parts).
  std::uint64_t g = 14695981039346656037ULL;
  for (const auto& p : providers_) {
    const std::optional<std::uint64_t> part = p.cloud->generation();
    if (!part) return std::nullopt;
    g = (g ^ *part) * 1099511628211ULL;
  }
  return g;
}

std::string MultiCloud::owner_of(const std::string& instance_id) const {
  auto it = owner_.find(instance_id);
  return it == owner_.end() ? std::string() : providers_[it->second].name;
}

}  // namespace fitscale
