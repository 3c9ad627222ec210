#include "planner/admission.h"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/dominant_share.h"
#include "planner/reasons.h"

namespace fitscale::planner {
namespace {

constexpr Seconds kDay = 86400;

Micros cap_micros(double usd) { return dollars_to_micros(usd); }

std::string count(std::int64_t n) { return format_count(n); }

}  // namespace

BudgetBook::BudgetBook(const Snapshot& snapshot, const Policy& policy, Time now)
    : snapshot_(snapshot),
      policy_(policy),
      day_left_(utc_day_start(now) + kDay - now),
      month_len_(utc_next_month_start(now) - utc_month_start(now)),
      month_left_(utc_next_month_start(now) - now) {
  // Committed spend is counted from the instances fitscale runs (the snapshot is the freshest
  // view: it includes what was launched since the ledger's last write) and from the ledger;
  // both describe the same instances, so take the larger, never the sum. Either way it is by
  // use: each node's price split as the ledger splits its cost, the bound pods' dominant shares
  // to their namespaces and the idle rest to the namespace that launched it.
  std::unordered_map<std::string_view, std::uint32_t> managed;
  for (std::uint32_t i = 0; i < snapshot.nodes.size(); ++i) {
    const Node& n = snapshot.nodes[i];
    if (!n.managed) continue;
    managed.emplace(n.name, i);
    cluster_committed_per_hour_ += n.price_micros_per_hour;
    if (n.state == NodeState::Deleting) continue;  // going away: no longer counts against caps
    ++cluster_nodes_;
    cluster_gpus_ += n.allocatable.gpus;
  }
  struct Use {
    std::uint32_t node;
    std::string_view ns;
    std::int64_t weight;
  };
  std::vector<Use> uses;
  if (!managed.empty()) {
    for (const Pod& p : snapshot.pods) {
      if (p.node_name.empty() || p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed ||
          p.is_daemon() || p.is_mirror())
        continue;
      auto it = managed.find(p.node_name);
      if (it == managed.end()) continue;
      const Node& n = snapshot.nodes[it->second];
      const std::int64_t w = fitscale::dominant_share(p.requests, n.allocatable);
      if (w <= 0) continue;
      uses.push_back({it->second, p.ns, w});
    }
  }
  // What the ledger may charge each namespace before the next plan, not only what it charges
  // now: when other teams' pods leave a node, their part goes back to the node's idle, i.e. to
  // the namespace that launched it, with no admission in between (issue 12: a team $2.80/h over
  // its cap in a replay that way). So the launcher is committed for the whole node, and every
  // other namespace for its pods' full dominant share (which grows back to that when an
  // over-committed node's other pods leave).
  for (const Use& u : uses) {
    const Node& n = snapshot.nodes[u.node];
    if (u.ns != n.owner_namespace)
      charge(u.ns, share_of(n.price_micros_per_hour, u.weight, kWholeNode));
  }
  for (const Node& n : snapshot.nodes) {
    if (n.managed) charge(n.owner_namespace, n.price_micros_per_hour);
  }
  for (const auto& [ns, spend] : snapshot.spend) {
    const Micros from_nodes = node_price(ns);
    if (spend.committed_micros_per_hour > from_nodes)
      cluster_committed_per_hour_ += spend.committed_micros_per_hour - from_nodes;
  }
}

// Few namespaces use many nodes: a short list searched from the last hit costs less per node
// than a map keyed by string.
void BudgetBook::charge(std::string_view ns, Micros micros_per_hour) {
  if (last_ >= node_prices_.size() || node_prices_[last_].first != ns) {
    auto it = std::find_if(node_prices_.begin(), node_prices_.end(),
                           [ns](const auto& e) { return e.first == ns; });
    if (it == node_prices_.end()) it = node_prices_.emplace(node_prices_.end(), ns, 0);
    last_ = static_cast<std::size_t>(it - node_prices_.begin());
  }
  node_prices_[last_].second += micros_per_hour;
}

Micros BudgetBook::node_price(std::string_view ns) const {
  auto it = std::find_if(node_prices_.begin(), node_prices_.end(),
                         [ns](const auto& e) { return e.first == ns; });
  return it == node_prices_.end() ? 0 : it->second;
}

// A namespace's entry is made when its first job asks: the ledger may list many namespaces,
// and a plan usually prices jobs of few of them.
BudgetBook::NamespaceUse& BudgetBook::use(std::string_view ns) {
  auto it = namespaces_.find(ns);
  if (it != namespaces_.end()) return it->second;
  it = namespaces_.emplace(std::string(ns), NamespaceUse{}).first;
  NamespaceUse& u = it->second;
  u.budget = policy_.budgets.for_namespace(it->first);
  u.committed_per_hour = node_price(ns);
  auto spend = snapshot_.spend.find(ns);
  if (spend != snapshot_.spend.end()) {
    u.spend = spend->second;
    u.committed_per_hour = std::max(u.committed_per_hour, spend->second.committed_micros_per_hour);
  }
  return u;
}

// The words of every refusal are stable from loop to loop while the job and the caps stay the
// same: they name the cap and what the job needs, never what happens to be committed right now,
// so the controller says it once and Kubernetes aggregates the events (issue 20).
std::optional<Refusal> BudgetBook::admit(const JobAsk& ask) {
  // Nothing to charge (free room on nodes nobody pays for, or the unused tail of a node already
  // granted): no cap can be broken by it.
  if (ask.micros_per_hour == 0 && ask.existing_micros_per_hour == 0 && ask.gpus == 0 &&
      ask.nodes == 0) {
    // A lone job riding on what earlier jobs' new nodes leave free: its share of them is known
    // only after packing, and checked then (after_packing) against its runtime.
    if (ask.counts_after_packing) {
      const NamespaceUse& u = use(ask.ns);
      lone_grants_[std::string(ask.ns) + "/" + std::string(ask.job)] =
          LoneGrant{0, 0, ask.declared_runtime ? ask.declared_runtime : u.budget.max_runtime};
    }
    return std::nullopt;
  }
  NamespaceUse& u = use(ask.ns);
  const NamespaceBudget& b = u.budget;
  const ClusterBudget& cb = policy_.budgets.cluster;
  // Built only for a refusal: most jobs are admitted.
  const auto who = [&] { return "namespace " + std::string(ask.ns) + ": "; };
  const std::optional<Seconds> runtime =
      ask.declared_runtime ? ask.declared_runtime : b.max_runtime;
  auto refused = [](std::string r) {
    return Refusal{UnschedulableKind::BudgetRefused, std::move(r)};
  };
  auto wait = [](std::string r) { return Refusal{UnschedulableKind::BudgetWait, std::move(r)}; };
  // What the namespace is charged for: new instances and its share of existing ones. What the
  // cluster adds: only the new instances (existing ones are in its totals already).
  const Micros hourly = ask.micros_per_hour + ask.existing_micros_per_hour;
  const Micros launched = ask.micros_per_hour;
  auto over = [](Micros need, Micros cap) {
    return " (" + format_usd_micros(need - cap) + " over)";
  };
  auto over_h = [](Micros need, Micros cap) { return " (" + usd_per_hour(need - cap) + " over)"; };

  // --- Caps the job breaks on its own: it can never fit, refused for good. ---
  if (b.usd_per_job) {
    const Micros cap = cap_micros(*b.usd_per_job);
    if (!runtime) {
      return refused(who() + "job declares no runtime (activeDeadlineSeconds or " +
                     std::string(annotation::kMaxRuntime) +
                     ") and the namespace has no maxRuntime, so usdPerJob " +
                     format_usd_micros(cap) + " cannot be checked");
    }
    const Micros worst = cost_for(hourly, *runtime);
    if (worst > cap) {
      return refused(who() + "job needs " + usd_per_hour(hourly) + " × " +
                     short_duration(*runtime) + " = " + format_usd_micros(worst) +
                     " worst case; usdPerJob is " + format_usd_micros(cap) + over(worst, cap));
    }
  }
  if (b.usd_per_hour && hourly > cap_micros(*b.usd_per_hour)) {
    const Micros cap = cap_micros(*b.usd_per_hour);
    return refused(who() + "job needs " + usd_per_hour(hourly) + "; usdPerHour is " +
                   usd_per_hour(cap) + over_h(hourly, cap));
  }
  if (cb.usd_per_hour && launched > cap_micros(*cb.usd_per_hour)) {
    const Micros cap = cap_micros(*cb.usd_per_hour);
    return refused("cluster: job needs " + usd_per_hour(launched) +
                   "; the cluster's usdPerHour is " + usd_per_hour(cap) + over_h(launched, cap));
  }
  if (cb.gpus && ask.gpus > *cb.gpus) {
    return refused("cluster: job needs " + count(ask.gpus) + " GPUs; the cluster's gpus cap is " +
                   count(*cb.gpus) + " (" + count(ask.gpus - *cb.gpus) + " over)");
  }
  if (cb.nodes && ask.nodes > *cb.nodes) {
    return refused("cluster: job needs " + count(ask.nodes) +
                   " nodes; the cluster's nodes cap is " + count(*cb.nodes) + " (" +
                   count(ask.nodes - *cb.nodes) + " over)");
  }
  // A period cap the job breaks even when it starts at the period's beginning with nothing spent.
  const Seconds day_left = day_left_;
  const Seconds month_len = month_len_;
  const Seconds month_left = month_left_;
  auto within = [&](Seconds period) { return runtime ? std::min(*runtime, period) : period; };
  if (b.usd_per_day) {
    const Micros cap = cap_micros(*b.usd_per_day);
    const Micros full = cost_for(hourly, within(kDay));
    if (full > cap) {
      return refused(who() + "job needs " + usd_per_hour(hourly) + " × " +
                     short_duration(within(kDay)) + " = " + format_usd_micros(full) +
                     " in one day; usdPerDay is " + format_usd_micros(cap) + over(full, cap));
    }
  }
  if (b.usd_per_month) {
    const Micros cap = cap_micros(*b.usd_per_month);
    const Micros full = cost_for(hourly, within(month_len));
    if (full > cap) {
      return refused(who() + "job needs " + usd_per_hour(hourly) + " × " +
                     short_duration(within(month_len)) + " = " + format_usd_micros(full) +
                     " in one month; usdPerMonth is " + format_usd_micros(cap) + over(full, cap));
    }
  }

  // --- Caps the job breaks together with what is committed: it waits and is reconsidered. ---
  // Each says what must change for the job to start: that much of the cap must free up.
  if (b.usd_per_hour) {
    const Micros cap = cap_micros(*b.usd_per_hour);
    const Micros have = u.committed_per_hour + u.added_per_hour;
    if (have + hourly > cap) {
      return wait(who() + "job needs " + usd_per_hour(hourly) + "; it waits for " +
                  usd_per_hour(hourly) + " of the namespace's usdPerHour cap of " +
                  usd_per_hour(cap) + " to free up");
    }
  }
  if (cb.usd_per_hour) {
    const Micros cap = cap_micros(*cb.usd_per_hour);
    const Micros have = cluster_committed_per_hour_ + cluster_added_per_hour_;
    if (have + launched > cap) {
      return wait("cluster: job needs " + usd_per_hour(launched) +
                  " of new instances; it waits for " + usd_per_hour(launched) +
                  " of the cluster's usdPerHour cap of " + usd_per_hour(cap) + " to free up");
    }
  }
  if (cb.gpus && !ask.counts_after_packing && cluster_gpus_ + ask.gpus > *cb.gpus) {
    return wait("cluster: job needs " + count(ask.gpus) + " new GPUs; it waits for " +
                count(ask.gpus) + " of the cluster's gpus cap of " + count(*cb.gpus) +
                " to free up");
  }
  if (cb.nodes && !ask.counts_after_packing && cluster_nodes_ + ask.nodes > *cb.nodes) {
    return wait("cluster: job needs " + count(ask.nodes) + " new nodes; it waits for " +
                count(ask.nodes) + " of the cluster's nodes cap of " + count(*cb.nodes) +
                " to free up");
  }
  // Within the current calendar period the job can cost at most its rate until the period ends.
  const Micros job_today = cost_for(hourly, within(day_left));
  const Micros job_month = cost_for(hourly, within(month_left));
  const NamespaceSpend& spend = u.spend;
  if (b.usd_per_day) {
    const Micros cap = cap_micros(*b.usd_per_day);
    const Micros total = spend.spent_today + spend.committed_worst_case + u.added_today + job_today;
    if (total > cap) {
      return wait(who() + "job needs " + usd_per_hour(hourly) + " for up to " +
                  short_duration(within(kDay)) +
                  "; today's spend and committed worst case leave no room for it under usdPerDay " +
                  format_usd_micros(cap) +
                  "; it waits for committed work to end or the UTC day "
                  "to turn");
    }
  }
  if (b.usd_per_month) {
    const Micros cap = cap_micros(*b.usd_per_month);
    const Micros total =
        spend.spent_this_month + spend.committed_worst_case + u.added_this_month + job_month;
    if (total > cap) {
      return wait(who() + "job needs " + usd_per_hour(hourly) + " for up to " +
                  short_duration(within(month_len)) +
                  "; this month's spend and committed worst case leave no room for it under "
                  "usdPerMonth " +
                  format_usd_micros(cap) +
                  "; it waits for committed work to end or the UTC "
                  "month to turn");
    }
  }

  u.added_per_hour += hourly;
  u.added_existing_per_hour += ask.existing_micros_per_hour;
  u.added_today += job_today;
  u.added_this_month += job_month;
  cluster_added_per_hour_ += launched;
  if (ask.counts_after_packing) {
    u.lone_new_per_hour += ask.micros_per_hour;
    if (runtime)
      u.longest_lone_runtime = std::max(u.longest_lone_runtime, *runtime);
    else
      u.lone_runtime_unknown = true;
    lone_grants_[std::string(ask.ns) + "/" + std::string(ask.job)] =
        LoneGrant{ask.micros_per_hour, ask.existing_micros_per_hour, runtime};
  }
  if (!ask.counts_after_packing) {
    cluster_gpus_ += ask.gpus;
    cluster_nodes_ += ask.nodes;
  }
  return std::nullopt;
}

std::optional<std::int64_t> BudgetBook::nodes_left() const {
  const auto& cap = policy_.budgets.cluster.nodes;
  if (!cap) return std::nullopt;
  return std::max<std::int64_t>(0, *cap - cluster_nodes_);
}

std::optional<std::int64_t> BudgetBook::gpus_left() const {
  const auto& cap = policy_.budgets.cluster.gpus;
  if (!cap) return std::nullopt;
  return std::max<std::int64_t>(0, *cap - cluster_gpus_);
}

std::optional<Micros> BudgetBook::cluster_new_room_per_hour() const {
  const auto& cap = policy_.budgets.cluster.usd_per_hour;
  if (!cap) return std::nullopt;
  return std::max<Micros>(0, cap_micros(*cap) - cluster_committed_per_hour_);
}

std::optional<Micros> BudgetBook::new_room_per_hour(std::string_view ns) const {
  auto it = namespaces_.find(ns);
  if (it == namespaces_.end() || !it->second.budget.usd_per_hour) return std::nullopt;
  const NamespaceUse& u = it->second;
  return std::max<Micros>(
      0, cap_micros(*u.budget.usd_per_hour) - u.committed_per_hour - u.added_existing_per_hour);
}

}  // namespace fitscale::planner

namespace fitscale::planner {

std::string BudgetBook::after_packing(
    const std::map<std::string, Micros, std::less<>>& by_ns,
    const std::map<std::string, Micros, std::less<>>& by_job) const {
  // Only what the packing adds over what admission granted can break a cap: admission checked
  // every cap with the grants.
  for (const auto& entry : by_ns) {
    const std::string& ns = entry.first;  // named, not bound: lambdas below capture it
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end()) continue;
    const NamespaceUse& u = it->second;
    const Micros extra = entry.second - u.lone_new_per_hour;
    if (extra <= 0) continue;
    const NamespaceBudget& b = u.budget;
    const auto who = [&] { return "namespace " + ns + ": "; };
    const Micros hourly_then = u.committed_per_hour + u.added_per_hour + extra;
    if (b.usd_per_hour && hourly_then > cap_micros(*b.usd_per_hour)) {
      return who() + "the plan's new nodes, packed, would commit it past its usdPerHour cap of " +
             usd_per_hour(cap_micros(*b.usd_per_hour)) + "; the job waits for it to free up";
    }
    auto within = [&](Seconds period) {
      return u.lone_runtime_unknown ? period : std::min(u.longest_lone_runtime, period);
    };
    if (b.usd_per_day) {
      const Micros total = u.spend.spent_today + u.spend.committed_worst_case + u.added_today +
                           cost_for(extra, within(day_left_));
      if (total > cap_micros(*b.usd_per_day))
        return who() + "the plan's new nodes, packed, leave no room under usdPerDay " +
               format_usd_micros(cap_micros(*b.usd_per_day)) +
               "; the job waits for committed work to end or the UTC day to turn";
    }
    if (b.usd_per_month) {
      const Micros total = u.spend.spent_this_month + u.spend.committed_worst_case +
                           u.added_this_month + cost_for(extra, within(month_left_));
      if (total > cap_micros(*b.usd_per_month))
        return who() + "the plan's new nodes, packed, leave no room under usdPerMonth " +
               format_usd_micros(cap_micros(*b.usd_per_month)) +
               "; the job waits for committed work to end or the UTC month to turn";
    }
  }
  for (const auto& [job, actual] : by_job) {
    auto g = lone_grants_.find(job);
    if (g == lone_grants_.end() || actual <= g->second.new_per_hour) continue;
    const std::string ns = job.substr(0, job.find('/'));
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end() || !it->second.budget.usd_per_job || !g->second.runtime) continue;
    const Micros cap = cap_micros(*it->second.budget.usd_per_job);
    const Micros worst = cost_for(actual + g->second.existing_per_hour, *g->second.runtime);
    if (worst > cap)
      return "namespace " + ns + ": the plan's new nodes, packed, make job " + job + " cost " +
             format_usd_micros(worst) + " worst case; usdPerJob is " + format_usd_micros(cap) +
             "; the job waits for other jobs' nodes to take it";
  }
  return {};
}

}  // namespace fitscale::planner
