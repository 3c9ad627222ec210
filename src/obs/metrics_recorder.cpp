#include "obs/metrics_recorder.h"

#include <algorithm>
#include <cstdlib>

#include "model/node.h"
#include "obs/opencost_split.h"
#include "planner/plan.h"

namespace fitscale::obs {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Loop phases of a healthy controller take milliseconds; a slow API server or a huge backlog
// pushes them to seconds. Buckets cover 1 ms .. 60 s.
const std::vector<double> kLoopBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                          0.5,   1,      2.5,   5,    10,    30,   60};

std::string field_or(const ActionRecord& r, const char* key, const std::string& fallback) {
  auto it = r.fields.find(key);
  return it == r.fields.end() || it->second.empty() ? fallback : it->second;
}

double count_field(const ActionRecord& r) {
  auto it = r.fields.find("count");
  if (it == r.fields.end()) return 1;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  return end != it->second.c_str() && v >= 0 ? v : 1;
}

std::string label_or(const Labels& labels, std::string_view key, const std::string& fallback) {
  auto it = labels.find(key);
  return it == labels.end() || it->second.empty() ? fallback : it->second;
}

std::string node_capacity_type(const Node& n) {
  if (n.managed) return to_string(n.capacity_type);
  std::string v = label_or(n.labels, label::kCapacityType, "");
  if (v.empty()) v = label_or(n.labels, label::kKarpenterCapacityType, "unknown");
  return v;
}

std::string node_instance_type(const Node& n) {
  if (!n.instance_type.empty()) return n.instance_type;
  std::string v = label_or(n.labels, label::kInstanceType, "");
  return v.empty() ? label_or(n.labels, label::kBetaInstanceType, "unknown") : v;
}

std::string node_region(const Node& n, const std::string& fallback) {
  std::string v = label_or(n.labels, label::kRegion, "");
  if (!v.empty()) return v;
  std::string zone = n.zone.empty() ? label_or(n.labels, label::kZone, "") : n.zone;
  // us-east-1a -> us-east-1
  if (zone.size() > 1 && std::isalpha(static_cast<unsigned char>(zone.back())) &&
      std::isdigit(static_cast<unsigned char>(zone[zone.size() - 2]))) {
    return zone.substr(0, zone.size() - 1);
  }
  return fallback;
}

// Pick the first of `known` that the reason text starts with or contains as a word.
std::string classify(const std::string& text, std::initializer_list<const char*> known) {
  for (const char* k : known) {
    if (text.find(k) != std::string::npos) return k;
  }
  return "other";
}

}  // namespace

std::string removal_reason_label(const ActionRecord& r) {
  std::string kind = field_or(r, "kind", "");
  if (kind.empty()) kind = field_or(r, "removal", "");
  if (!kind.empty()) return kind;
  return classify(r.reason, {"never-registered", "interrupted", "empty"});
}

std::string refusal_reason_label(const ActionRecord& r) {
  std::string cap = field_or(r, "cap", "");
  if (!cap.empty()) return cap;
  return field_or(r, "kind", "budget");
}

MetricsRecorder::MetricsRecorder(MetricsRegistry& reg, MetricsOptions options)
    : options_(std::move(options)),
      loop_duration_(reg.histogram("fitscale_loop_duration_seconds",
                                   "Duration of one reconcile loop, skipped ones included.", {},
                                   kLoopBuckets)),
      loop_phase_duration_(reg.histogram(
          "fitscale_loop_phase_duration_seconds",
          "Duration of one phase (observe, plan, act, record) of a reconcile loop; a skipped loop "
          "only observes.",
          {"phase"}, kLoopBuckets, 4)),
      loops_(reg.counter(
          "fitscale_loops_total",
          "Reconcile loops run; result=skipped when nothing changed and no plan was made.",
          {"result"}, 2)),
      last_loop_(reg.gauge("fitscale_last_loop_timestamp_seconds",
                           "Unix time at which the last reconcile loop finished.")),
      pending_(reg.gauge("fitscale_pending_pods",
                         "Pending pods (unbound and marked Unschedulable by the scheduler; "
                         "docs/planner.md) at the last plan.")),
      unschedulable_(reg.gauge("fitscale_unschedulable_pods",
                               "Pending pods the last plan could not serve, by reason.", {"reason"},
                               16)),
      plan_launches_(
          reg.gauge("fitscale_plan_launches", "Instances the last plan decided to launch.")),
      plan_usd_(reg.gauge("fitscale_plan_usd_per_hour",
                          "Hourly price of the instances the last plan launched.")),
      nodes_(reg.gauge(
          "fitscale_nodes",
          "Nodes (and in-flight instances) by lifecycle state, pool, type, capacity type.",
          {"state", "pool", "instance_type", "capacity_type"})),
      launches_(reg.counter("fitscale_launches_total", "Instances launched.")),
      launch_failures_(reg.counter("fitscale_launch_failures_total",
                                   "Launch requests the cloud refused, by cloud error code.",
                                   {"code"}, 50)),
      removals_(
          reg.counter("fitscale_removals_total", "Nodes removed, by reason.", {"reason"}, 16)),
      interruptions_(
          reg.counter("fitscale_interruptions_total", "Spot instances taken back by the cloud.")),
      never_registered_(reg.counter("fitscale_never_registered_total",
                                    "Instances removed because they never registered as nodes.")),
      evictions_(reg.counter("fitscale_evictions_total", "Pod evictions requested, by result.",
                             {"result"}, 4)),
      committed_(reg.gauge(
          "fitscale_committed_usd_per_hour",
          "Hourly price of running and in-flight instances, by owning namespace and capacity type.",
          {"namespace", "capacity_type"})),
      spend_(reg.counter("fitscale_spend_usd_total",
                         "Dollars spent, as metered by the ledger, by namespace.", {"namespace"})),
      budget_used_(reg.gauge(
          "fitscale_budget_used_usd",
          "Budget use by namespace and period: hour = committed $/h, day and month = spend "
          "since the UTC day/month began.",
          {"namespace", "period"})),
      budget_cap_(reg.gauge("fitscale_budget_cap_usd",
                            "Budget cap that applies now, by namespace and period (only periods "
                            "with a cap; Budget objects over the config file).",
                            {"namespace", "period"})),
      budget_remaining_(
          reg.gauge("fitscale_budget_remaining_usd",
                    "Budget cap minus use, by namespace and period (only periods with a cap).",
                    {"namespace", "period"})),
      refusals_(reg.counter("fitscale_refusals_total",
                            "Pods refused by a budget or limit, by reason.", {"reason"}, 32)),
      oc_total_(reg.compat_gauge("node_total_hourly_cost",
                                 "Total node cost per hour (OpenCost name).",
                                 {"node", "instance_type", "region"}, 5000)),
      oc_cpu_(reg.compat_gauge("node_cpu_hourly_cost",
                               "Cost per vCPU-hour of the node (OpenCost name).",
                               {"node", "instance_type", "region"}, 5000)),
      oc_ram_(reg.compat_gauge("node_ram_hourly_cost",
                               "Cost per GiB-hour of memory of the node (OpenCost name).",
                               {"node", "instance_type", "region"}, 5000)),
      oc_gpu_(reg.compat_gauge("node_gpu_hourly_cost",
                               "Cost per GPU-hour of the node (OpenCost name).",
                               {"node", "instance_type", "region"}, 5000)),
      oc_gpu_count_(reg.compat_gauge("node_gpu_count", "GPUs on the node (OpenCost name).",
                                     {"node", "instance_type", "region"}, 5000)),
      oc_is_spot_(reg.compat_gauge("kubecost_node_is_spot",
                                   "1 when the node is a spot instance (Kubecost name).",
                                   {"node", "instance_type", "region"}, 5000)) {
  for (auto k : {UnschedulableKind::NoOffering, UnschedulableKind::BudgetWait,
                 UnschedulableKind::BudgetRefused, UnschedulableKind::CapacityBackoff,
                 UnschedulableKind::GangIncomplete}) {
    unschedulable_.set({to_string(k)}, 0);
  }
}

void MetricsRecorder::action(const ActionRecord& r) {
  switch (r.kind) {
    case ActionKind::Launch:
      launches_.inc({}, count_field(r));
      break;
    case ActionKind::LaunchFailed:
      launch_failures_.inc({field_or(r, "code", "unknown")});
      break;
    case ActionKind::Refuse:
      refusals_.inc({refusal_reason_label(r)});
      break;
    case ActionKind::Unschedulable:
      break;  // a state, not an event: fitscale_unschedulable_pods
    case ActionKind::Remove: {
      std::string reason = removal_reason_label(r);
      removals_.inc({reason});
      if (reason == "never-registered") never_registered_.inc();
      break;
    }
    case ActionKind::Interrupted:
      interruptions_.inc();
      break;
    case ActionKind::Evict:
      evictions_.inc({"evicted"});
      break;
    case ActionKind::EvictBlocked:
      evictions_.inc({"blocked"});
      break;
    // Keep: logged once per node and reason, the node's cost shows it; MaxRuntimeExceeded:
    // logged and alerted once per job and period; Ungate: the pod is then pending or running
    // like any other; Reclaim: the node's taints show it.
    case ActionKind::Keep:
    case ActionKind::MaxRuntimeExceeded:
    case ActionKind::Ungate:
    case ActionKind::Reclaim:
      break;
  }
}

void MetricsRecorder::planned(const Snapshot& snapshot, const Plan& plan, const LoopStats&) {
  std::int64_t pending = 0;
  for (const auto& p : snapshot.pods) {
    if (p.unschedulable()) ++pending;
  }
  pending_.set(static_cast<double>(pending));

  std::map<std::string, double> by_reason;
  for (auto k : {UnschedulableKind::NoOffering, UnschedulableKind::BudgetWait,
                 UnschedulableKind::BudgetRefused, UnschedulableKind::CapacityBackoff,
                 UnschedulableKind::GangIncomplete}) {
    by_reason[to_string(k)] = 0;
  }
  for (const auto& u : plan.unschedulable) by_reason[to_string(u.kind)] += 1;
  for (const auto& [reason, n] : by_reason) unschedulable_.set({reason}, n);

  double launches = 0;
  for (const auto& l : plan.launch) launches += l.count;
  plan_launches_.set(launches);
  plan_usd_.set(plan.usd_per_hour);

  update_nodes(snapshot);
  update_cost(snapshot);
}

void MetricsRecorder::loop_finished(const LoopStats& stats) {
  loop_duration_.observe({}, stats.total_s);
  loop_phase_duration_.observe({"observe"}, stats.observe_s);
  if (!stats.skipped) {
    loop_phase_duration_.observe({"plan"}, stats.plan_s);
    loop_phase_duration_.observe({"act"}, stats.act_s);
    loop_phase_duration_.observe({"record"}, stats.record_s);
  }
  loops_.inc({stats.skipped ? "skipped" : "planned"});
  last_loop_.set(static_cast<double>(stats.at));
}

void MetricsRecorder::update_nodes(const Snapshot& snapshot) {
  std::map<LabelValues, double> counts;
  for (const auto& n : snapshot.nodes) {
    counts[{to_string(n.state), label_or(n.labels, label::kPool, n.managed ? "default" : "none"),
            node_instance_type(n), node_capacity_type(n)}] += 1;
  }
  nodes_.replace(counts);

  for (auto* f : {&oc_total_, &oc_cpu_, &oc_ram_, &oc_gpu_, &oc_gpu_count_, &oc_is_spot_})
    f->clear();
  for (const auto& n : snapshot.nodes) {
    if (n.state == NodeState::InFlight) continue;  // no Node object yet: nothing to join on
    const std::string type = node_instance_type(n);
    const InstanceType* it = options_.catalog ? options_.catalog->find_type(type) : nullptr;
    const std::string cap = node_capacity_type(n);
    double price = 0;
    if (n.managed && n.price_micros_per_hour > 0) {
      price = micros_to_dollars(n.price_micros_per_hour);
    } else if (it != nullptr) {
      price = (cap == "spot" && it->spot_usd_per_hour) ? *it->spot_usd_per_hour
                                                       : it->on_demand_usd_per_hour;
    } else {
      continue;  // unknown price: leave it out rather than report a wrong zero
    }
    double vcpus =
        it ? static_cast<double>(it->vcpu) : static_cast<double>(n.allocatable.cpu_milli) / 1000.0;
    double gib = it ? static_cast<double>(it->memory_mib) / 1024.0
                    : static_cast<double>(n.allocatable.memory_bytes) / kGiB;
    std::int64_t gpus = it ? it->gpu : n.allocatable.gpus;
    NodePriceSplit split = split_node_price(price, vcpus, gib, gpus);
    LabelValues l = {n.name, type, node_region(n, options_.region)};
    oc_total_.set(l, price);
    oc_cpu_.set(l, split.cpu_per_vcpu_hour);
    oc_ram_.set(l, split.ram_per_gib_hour);
    oc_gpu_.set(l, split.gpu_per_gpu_hour);
    oc_gpu_count_.set(l, static_cast<double>(gpus));
    oc_is_spot_.set(l, cap == "spot" ? 1 : 0);
  }
}

void MetricsRecorder::update_cost(const Snapshot& snapshot) {
  std::map<LabelValues, double> committed;
  for (const auto& n : snapshot.nodes) {
    if (!n.managed) continue;
    committed[{n.owner_namespace.empty() ? "none" : n.owner_namespace,
               to_string(n.capacity_type)}] += micros_to_dollars(n.price_micros_per_hour);
  }
  committed_.replace(committed);

  // Spend: the counter grows by the increase of month-to-date spend. The first view sets the
  // baseline (spend before this process started is not counted twice after a restart); a
  // namespace first seen later counts from zero.
  for (const auto& [ns, s] : snapshot.spend) {
    auto it = last_month_spend_.find(ns);
    Micros before = 0;
    if (it != last_month_spend_.end())
      before = it->second;
    else if (!spend_baseline_taken_)
      before = s.spent_this_month;
    Micros delta = s.spent_this_month >= before ? s.spent_this_month - before
                                                : s.spent_this_month;  // new month
    spend_.inc({ns}, micros_to_dollars(delta));
    last_month_spend_[ns] = s.spent_this_month;
  }
  spend_baseline_taken_ = true;

  // Budgets: every namespace with spend, plus every namespace the config names.
  std::set<std::string, std::less<>> namespaces;
  for (const auto& [ns, s] : snapshot.spend) namespaces.insert(ns);
  for (const auto& [ns, b] : options_.budgets.namespaces) namespaces.insert(ns);
  std::map<LabelValues, double> used;
  std::map<LabelValues, double> cap;
  std::map<LabelValues, double> remaining;
  for (const auto& ns : namespaces) {
    NamespaceSpend s;
    if (auto it = snapshot.spend.find(ns); it != snapshot.spend.end()) s = it->second;
    NamespaceBudget b = options_.budgets.for_namespace(ns);
    struct Period {
      const char* name;
      double used;
      std::optional<double> cap;
    };
    for (const Period& p :
         {Period{"hour", micros_to_dollars(s.committed_micros_per_hour), b.usd_per_hour},
          Period{"day", micros_to_dollars(s.spent_today), b.usd_per_day},
          Period{"month", micros_to_dollars(s.spent_this_month), b.usd_per_month}}) {
      used[{ns, p.name}] = p.used;
      if (!p.cap) continue;
      cap[{ns, p.name}] = *p.cap;
      remaining[{ns, p.name}] = *p.cap - p.used;
    }
  }
  budget_used_.replace(used);
  budget_cap_.replace(cap);
  budget_remaining_.replace(remaining);
}

}  // namespace fitscale::obs
