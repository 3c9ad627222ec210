#include "model/budget_object.h"

#include <algorithm>
#include <map>

namespace fitscale {

namespace {

// The keys `top` sets replace those of `base`; the others stay: a Budget that sets only
// usdPerDay keeps the file's usdPerHour (a cap nobody meant to lift stays).
template <typename T>
void overlay(std::optional<T>& base, const std::optional<T>& top) {
  if (top) base = top;
}

void overlay(NamespaceBudget& base, const NamespaceBudget& top) {
  overlay(base.usd_per_hour, top.usd_per_hour);
  overlay(base.usd_per_day, top.usd_per_day);
  overlay(base.usd_per_month, top.usd_per_month);
  overlay(base.usd_per_job, top.usd_per_job);
  overlay(base.max_runtime, top.max_runtime);
  overlay(base.max_runtime_action, top.max_runtime_action);
}

void overlay(ClusterBudget& base, const ClusterBudget& top) {
  overlay(base.usd_per_hour, top.usd_per_hour);
  overlay(base.gpus, top.gpus);
  overlay(base.nodes, top.nodes);
}

}  // namespace

BudgetScope budget_scope(std::string_view ns, std::string_view name, std::string_view own_ns) {
  if (ns != own_ns) return BudgetScope::Namespace;
  if (name == kClusterBudgetName) return BudgetScope::Cluster;
  if (name == kDefaultBudgetName) return BudgetScope::Default;
  return BudgetScope::Namespace;
}

MergedBudgets merge_budget_objects(const Budgets& base, const std::vector<BudgetObject>& objects) {
  MergedBudgets out;
  out.budgets = base;
  // Ordered by namespace and name, so which of two Budgets in a namespace wins does not depend
  // on the order the API listed them in.
  std::vector<const BudgetObject*> sorted;
  sorted.reserve(objects.size());
  for (const auto& o : objects) sorted.push_back(&o);
  std::sort(sorted.begin(), sorted.end(), [](const BudgetObject* a, const BudgetObject* b) {
    return std::tie(a->ns, a->name) < std::tie(b->ns, b->name);
  });
  std::map<std::string, const BudgetObject*, std::less<>> used;
  for (const BudgetObject* o : sorted) {
    switch (o->scope) {
      case BudgetScope::Cluster:
        overlay(out.budgets.cluster, o->cluster_caps);
        break;
      case BudgetScope::Default:
        overlay(out.budgets.defaults, o->caps);
        break;
      case BudgetScope::Namespace: {
        auto [it, fresh] = used.emplace(o->ns, o);
        if (!fresh) {
          out.problems.push_back({o->key(), "namespace " + o->ns + " already has Budget " +
                                                it->second->name +
                                                " (the first by name is used); this one is "
                                                "ignored: keep one Budget per namespace"});
          break;
        }
        // Over the file's entry for the namespace; keys neither sets come from `default`.
        overlay(out.budgets.namespaces[o->ns], o->caps);
        break;
      }
    }
  }
  for (const auto& [ns, o] : used) out.namespace_objects.push_back(o);
  return out;
}

std::string utc_day_name(Time t) { return format_rfc3339(utc_day_start(t)).substr(0, 10); }
std::string utc_month_name(Time t) { return format_rfc3339(utc_month_start(t)).substr(0, 7); }

}  // namespace fitscale
