#include "planner/admission.h"

#include <algorithm>
#include <utility>
#include <vector>

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
      now_(now),
      day_left_(utc_day_start(now) + kDay - now),
      month_len_(utc_next_month_start(now) - utc_month_start(now)),
      month_left_(utc_next_month_start(now) - now) {
  // Committed spend is counted from the instances fitscale runs (the snapshot is the freshest
  // view: it includes what was launched since the ledger's last write) and from the ledger;
  // both describe the same instances, so take the larger, never the sum.
  // Few namespaces own many nodes: a short list searched from the last hit (consecutive nodes
  // often share an owner) costs less per node than a map keyed by string.
  std::size_t last = 0;
  for (const Node& n : snapshot.nodes) {
    if (!n.managed) continue;
    const std::string_view ns = n.owner_namespace;
    if (last >= node_prices_.size() || node_prices_[last].first != ns) {
      auto it = std::find_if(node_prices_.begin(), node_prices_.end(),
                             [ns](const auto& e) { return e.first == ns; });
      if (it == node_prices_.end()) it = node_prices_.emplace(node_prices_.end(), ns, 0);
      last = static_cast<std::size_t>(it - node_prices_.begin());
    }
    node_prices_[last].second += n.price_micros_per_hour;
    cluster_committed_per_hour_ += n.price_micros_per_hour;
    if (n.state == NodeState::Deleting) continue;  // going away: no longer counts against caps
    ++cluster_nodes_;
    cluster_gpus_ += n.allocatable.gpus;
  }
  for (const auto& [ns, spend] : snapshot.spend) {
    const Micros from_nodes = node_price(ns);
    if (spend.committed_micros_per_hour > from_nodes)
      cluster_committed_per_hour_ += spend.committed_micros_per_hour - from_nodes;
  }
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

std::optional<Refusal> BudgetBook::admit(const JobAsk& ask) {
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
  const Micros hourly = ask.micros_per_hour;

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
                     " worst case; usdPerJob is " + format_usd_micros(cap));
    }
  }
  if (b.usd_per_hour && hourly > cap_micros(*b.usd_per_hour)) {
    return refused(who() + "job needs " + usd_per_hour(hourly) + "; usdPerHour is " +
                   usd_per_hour(cap_micros(*b.usd_per_hour)));
  }
  if (cb.usd_per_hour && hourly > cap_micros(*cb.usd_per_hour)) {
    return refused("cluster: job needs " + usd_per_hour(hourly) + "; the cluster's usdPerHour is " +
                   usd_per_hour(cap_micros(*cb.usd_per_hour)));
  }
  if (cb.gpus && ask.gpus > *cb.gpus) {
    return refused("cluster: job needs " + count(ask.gpus) + " GPUs; the cluster's gpus cap is " +
                   count(*cb.gpus));
  }
  if (cb.nodes && ask.nodes > *cb.nodes) {
    return refused("cluster: job needs " + count(ask.nodes) +
                   " nodes; the cluster's nodes cap is " + count(*cb.nodes));
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
                     " in one day; usdPerDay is " + format_usd_micros(cap));
    }
  }
  if (b.usd_per_month) {
    const Micros cap = cap_micros(*b.usd_per_month);
    const Micros full = cost_for(hourly, within(month_len));
    if (full > cap) {
      return refused(who() + "job needs " + usd_per_hour(hourly) + " × " +
                     short_duration(within(month_len)) + " = " + format_usd_micros(full) +
                     " in one month; usdPerMonth is " + format_usd_micros(cap));
    }
  }

  // --- Caps the job breaks together with what is committed: it waits and is reconsidered. ---
  if (b.usd_per_hour) {
    const Micros cap = cap_micros(*b.usd_per_hour);
    const Micros have = u.committed_per_hour + u.added_per_hour;
    if (have + hourly > cap) {
      return wait(who() + "job needs " + usd_per_hour(hourly) + " but " + usd_per_hour(have) +
                  " is already committed; usdPerHour is " + usd_per_hour(cap));
    }
  }
  if (cb.usd_per_hour) {
    const Micros cap = cap_micros(*cb.usd_per_hour);
    const Micros have = cluster_committed_per_hour_ + cluster_added_per_hour_;
    if (have + hourly > cap) {
      return wait("cluster: job needs " + usd_per_hour(hourly) + " but " + usd_per_hour(have) +
                  " is already committed; the cluster's usdPerHour is " + usd_per_hour(cap));
    }
  }
  if (cb.gpus && cluster_gpus_ + ask.gpus > *cb.gpus) {
    return wait("cluster: job needs " + count(ask.gpus) + " GPUs but " + count(cluster_gpus_) +
                " are in use; the cluster's gpus cap is " + count(*cb.gpus));
  }
  if (cb.nodes && cluster_nodes_ + ask.nodes > *cb.nodes) {
    return wait("cluster: job needs " + count(ask.nodes) + " nodes but " + count(cluster_nodes_) +
                " exist; the cluster's nodes cap is " + count(*cb.nodes));
  }
  // Within the current calendar period the job can cost at most its rate until the period ends.
  const Micros job_today = cost_for(hourly, within(day_left));
  const Micros job_month = cost_for(hourly, within(month_left));
  const NamespaceSpend& spend = u.spend;
  if (b.usd_per_day) {
    const Micros cap = cap_micros(*b.usd_per_day);
    const Micros total = spend.spent_today + spend.committed_worst_case + u.added_today + job_today;
    if (total > cap) {
      return wait(who() + format_usd_micros(spend.spent_today) + " spent today + " +
                  format_usd_micros(spend.committed_worst_case + u.added_today) +
                  " committed worst case + job's " + format_usd_micros(job_today) +
                  " before midnight UTC = " + format_usd_micros(total) + "; usdPerDay is " +
                  format_usd_micros(cap));
    }
  }
  if (b.usd_per_month) {
    const Micros cap = cap_micros(*b.usd_per_month);
    const Micros total =
        spend.spent_this_month + spend.committed_worst_case + u.added_this_month + job_month;
    if (total > cap) {
      return wait(who() + format_usd_micros(spend.spent_this_month) + " spent this month + " +
                  format_usd_micros(spend.committed_worst_case + u.added_this_month) +
                  " committed worst case + job's " + format_usd_micros(job_month) +
                  " before the month ends = " + format_usd_micros(total) + "; usdPerMonth is " +
                  format_usd_micros(cap));
    }
  }

  u.added_per_hour += hourly;
  u.added_today += job_today;
  u.added_this_month += job_month;
  cluster_added_per_hour_ += hourly;
  cluster_gpus_ += ask.gpus;
  cluster_nodes_ += ask.nodes;
  return std::nullopt;
}

}  // namespace fitscale::planner
