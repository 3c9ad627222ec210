#include "vcluster/garbage_collector.h"

#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "model/time.h"
#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"
#include "vcluster/rest_api.h"

namespace fitscale::vcluster {
namespace {

// A metadata list field, read in place (every pass looks at every object: copying their
// metadata made the collector the cluster's hottest loop at 50,000 pods).
const nlohmann::json& metadata_list(const nlohmann::json& obj, const char* field) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return kEmpty;
  auto it = md->find(field);
  return it != md->end() && it->is_array() ? *it : kEmpty;
}

const nlohmann::json& owner_references(const nlohmann::json& obj) {
  return metadata_list(obj, "ownerReferences");
}

bool has_finalizer(const nlohmann::json& obj, const std::string& finalizer) {
  for (const auto& f : metadata_list(obj, "finalizers")) {
    if (f.is_string() && f.get_ref<const std::string&>() == finalizer) return true;
  }
  return false;
}

// Whether this server serves the owner's kind, built in or from an established
// CustomResourceDefinition. An owner of a kind it does not serve (a ReplicaSet, a custom kind
// whose definition is gone) cannot be looked up, so, as kube's collector does with an owner it
// cannot map, it is never taken for gone.
bool verifiable(const nlohmann::json& ref, const std::vector<const ResourceInfo*>& served) {
  const std::string api_version = ref.value("apiVersion", "");
  const std::string kind = ref.value("kind", "");
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  for (const auto* r : served) {
    if (r->group == group && r->version == version && r->kind == kind) return true;
  }
  return false;
}

// Each store key once (events and events.k8s.io events, the versions of one custom resource
// share their objects).
std::vector<const ResourceInfo*> distinct_storage(const std::vector<const ResourceInfo*>& served) {
  std::vector<const ResourceInfo*> out;
  std::set<std::string> keys;
  for (const auto* r : served) {
    if (keys.insert(r->store_key()).second) out.push_back(r);
  }
  return out;
}

struct Located {
  const ResourceInfo* resource;
  StoredObject obj;
};

}  // namespace

Propagation deletion_propagation(const ResourceInfo& r, const std::string& query_policy,
                                 const nlohmann::json& delete_options) {
  std::string policy = query_policy;
  if (policy.empty() && delete_options.is_object()) {
    if (auto it = delete_options.find("propagationPolicy");
        it != delete_options.end() && it->is_string()) {
      policy = it->get<std::string>();
    } else if (auto o = delete_options.find("orphanDependents");
               o != delete_options.end() && o->is_boolean()) {
      policy = o->get<bool>() ? "Orphan" : "Background";
    }
  }
  if (policy.empty()) {
    // kube-apiserver keeps batch/v1's historical default: a Job deleted without a policy leaves
    // its pods (kubectl always sends one, Background unless --cascade says otherwise).
    return r.plural == "jobs" ? Propagation::kOrphan : Propagation::kBackground;
  }
  if (policy == "Background") return Propagation::kBackground;
  if (policy == "Foreground") return Propagation::kForeground;
  if (policy == "Orphan") return Propagation::kOrphan;
  throw ApiError(422, "Invalid",
                 "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
                 "\"" +
                     policy + "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
}

void orphan_dependents(ObjectStore& store, const ResourceRegistry& registry,
                       const std::string& owner_uid) {
  if (owner_uid.empty()) return;
  for (const auto* r : distinct_storage(registry.all())) {
    for (const auto& shared : store.list_shared(r->store_key()).items) {
      const nlohmann::json& obj = *shared;
      const auto& refs = owner_references(obj);
      bool refers = false;
      for (const auto& ref : refs) refers |= ref.value("uid", "") == owner_uid;
      if (!refers) continue;
      try {
        store.mutate(r->store_key(), namespace_of(obj), name_of(obj), [&](nlohmann::json& o) {
          nlohmann::json kept = nlohmann::json::array();
          for (const auto& ref : owner_references(o)) {
            if (ref.value("uid", "") != owner_uid) kept.push_back(ref);
          }
          if (kept.empty())
            o["metadata"].erase("ownerReferences");
          else
            o["metadata"]["ownerReferences"] = kept;
        });
      } catch (const ApiError&) {
        // Deleted meanwhile: nothing left to orphan.
      }
    }
  }
}

nlohmann::json begin_foreground_deletion(ObjectStore& store, const ResourceInfo& r,
                                         const std::string& ns, const std::string& name,
                                         const Clock& clock) {
  return store.mutate(r.store_key(), ns, name, [&](nlohmann::json& o) {
    if (is_terminating(o)) return;
    auto& md = o["metadata"];
    md["deletionTimestamp"] = format_rfc3339(clock.now());
    md["deletionGracePeriodSeconds"] = 0;
    if (!has_finalizer(o, kForegroundFinalizer)) md["finalizers"].push_back(kForegroundFinalizer);
  });
}

GcPass run_garbage_collector(ObjectStore& store, RestApi& api) {
  GcPass pass;
  // Every pass looks at every object (50,000 pods at scale), so it allocates only for owners:
  // first the dependents and the uids they name, then which of those uids are live.
  std::set<std::string, std::less<>> owners;  // uids some ownerReference names
  std::set<std::string, std::less<>> live;    // of those, objects not being deleted in foreground
  std::map<std::string, Located> foreground;  // uid -> owner waiting for its dependents
  std::vector<Located> dependents;            // objects with owner references
  const auto served = api.registry().all();
  std::vector<std::pair<const ResourceInfo*, std::vector<StoredObject>>> all;
  for (const auto* r : distinct_storage(served)) {
    all.emplace_back(r, store.list_shared(r->store_key()).items);
    for (const auto& shared : all.back().second) {
      const auto& refs = owner_references(*shared);
      if (refs.empty()) continue;
      dependents.push_back({r, shared});
      for (const auto& ref : refs) {
        auto uid = ref.find("uid");
        if (uid != ref.end() && uid->is_string()) owners.insert(uid->get<std::string>());
      }
    }
  }
  for (const auto& [r, objects] : all) {
    for (const auto& shared : objects) {
      const nlohmann::json& obj = *shared;
      if (is_terminating(obj) && has_finalizer(obj, kForegroundFinalizer)) {
        foreground.emplace(uid_of(obj), Located{r, shared});
        continue;
      }
      auto md = obj.find("metadata");
      if (md == obj.end() || !md->is_object()) continue;
      auto uid = md->find("uid");
      if (uid == md->end() || !uid->is_string()) continue;
      const auto& text = uid->get_ref<const std::string&>();
      if (owners.count(std::string_view(text))) live.insert(text);
    }
  }
  std::set<std::string> still_referenced;
  for (const auto& [r, shared] : dependents) {
    const nlohmann::json& obj = *shared;
    std::set<std::string> dangling;
    bool has_live_owner = false;
    for (const auto& ref : owner_references(obj)) {
      const std::string uid = ref.value("uid", "");
      still_referenced.insert(uid);
      if (live.count(uid) || !verifiable(ref, served))
        has_live_owner = true;
      else if (!foreground.count(uid))
        dangling.insert(uid);
    }
    if (has_live_owner && dangling.empty()) continue;  // the common case: nothing to do
    const std::string ns = namespace_of(obj);
    const std::string name = name_of(obj);
    if (!has_live_owner) {
      if (is_terminating(obj)) continue;  // already on its way out
      ApiRequest del;
      del.method = "DELETE";
      del.path.resource = r;
      del.path.ns = ns;
      del.path.name = name;
      del.body = R"({"propagationPolicy":"Background"})";
      if (api.handle(del).status < 300) ++pass.dependents_deleted;
    } else if (!dangling.empty()) {
      try {
        store.mutate(r->store_key(), ns, name, [&](nlohmann::json& o) {
          nlohmann::json kept = nlohmann::json::array();
          for (const auto& ref : owner_references(o)) {
            if (!dangling.count(ref.value("uid", ""))) kept.push_back(ref);
          }
          o["metadata"]["ownerReferences"] = kept;
        });
        ++pass.references_removed;
      } catch (const ApiError&) {
        // Deleted meanwhile.
      }
    }
  }
  for (const auto& [uid, owner] : foreground) {
    if (still_referenced.count(uid)) continue;  // dependents remain (some still terminating)
    const std::string ns = namespace_of(*owner.obj);
    const std::string name = name_of(*owner.obj);
    try {
      auto after = store.mutate(owner.resource->store_key(), ns, name, [](nlohmann::json& o) {
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& f : o["metadata"].value("finalizers", nlohmann::json::array())) {
          if (f != kForegroundFinalizer) kept.push_back(f);
        }
        if (kept.empty())
          o["metadata"].erase("finalizers");
        else
          o["metadata"]["finalizers"] = kept;
      });
      // Other finalizers keep the object until their controllers remove them.
      if (!after["metadata"].contains("finalizers"))
        store.remove(owner.resource->store_key(), ns, name);
      ++pass.owners_finished;
    } catch (const ApiError&) {
      // Gone meanwhile.
    }
  }
  return pass;
}

}  // namespace fitscale::vcluster
