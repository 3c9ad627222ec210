#include "cloud/aws/aws_provider.h"

#include <algorithm>
#include <set>

#include "cloud/aws/ec2_instances.h"
#include "cloud/aws/fleet_request.h"
#include "cloud/aws/node_launch_template.h"
#include "model/error.h"

namespace fitscale::aws {

AwsProvider::AwsProvider(QueryClient& ec2, QueryClient* autoscaling, const Catalog* catalog,
                         const Clock& clock, AwsProviderOptions options,
                         InterruptionQueue* interruptions)
    : ec2_(ec2),
      autoscaling_(autoscaling),
      clock_(clock),
      options_(std::move(options)),
      interruptions_(interruptions) {
  if (catalog) set_prices(*catalog);
  if (options_.mode == AwsMode::Asg && !autoscaling_) {
    throw InputError("aws.mode asg needs an Auto Scaling endpoint");
  }
}

void AwsProvider::set_prices(const Catalog& catalog) {
  prices_.clear();
  for (const auto& o : catalog.offerings) {
    prices_[offering_key(o.instance_type, o.zone, o.capacity_type)] = o.micros_per_hour;
  }
}

Micros AwsProvider::price(const std::string& type, const std::string& zone, CapacityType c) const {
  auto it = prices_.find(offering_key(type, zone, c));
  return it == prices_.end() ? 0 : it->second;
}

LaunchResult AwsProvider::launch(const LaunchRequest& request) {
  if (request.count <= 0) return {};
  try {
    return options_.mode == AwsMode::Asg ? launch_asg(request) : launch_fleet(request);
  } catch (const AwsError& e) {
    LaunchResult out;
    out.failures.push_back(
        {offering_key(request.instance_type, request.zone, request.capacity_type), request.count,
         e.code(), e.what(), is_capacity_error(e.code())});
    return out;
  } catch (const InputError& e) {
    // A config that cannot launch (no launch template): say so on every attempt, never as a
    // capacity problem.
    LaunchResult out;
    out.failures.push_back(
        {offering_key(request.instance_type, request.zone, request.capacity_type), request.count,
         "InvalidConfig", e.what(), false});
    return out;
  }
}

LaunchResult AwsProvider::launch_fleet(const LaunchRequest& request) {
  LaunchTemplateRef boot_from = launch_template_of(request, options_);
  if (options_.nodeadm_bootstrap)
    boot_from =
        node_templates_.version_for(ec2_, boot_from, request.node_labels, request.node_taints);
  auto doc = ec2_.call("CreateFleet", create_fleet_params(request, options_, boot_from));
  FleetAnswer answer = parse_create_fleet(doc->document_element(), request, clock_.now());
  if (!answer.to_terminate.empty()) {
    try {
      terminate(answer.to_terminate);
    } catch (const AwsError& e) {
      // Still tagged with the cluster: the next listing finds them, and scale-down removes them
      // as nodes that never registered.
      answer.failures.back().message += " (terminate failed: " + std::string(e.what()) + ")";
    }
  }
  return LaunchResult{std::move(answer.launched), std::move(answer.failures)};
}

std::vector<Instance> AwsProvider::list_instances() {
  std::vector<Instance> out;
  if (options_.mode == AwsMode::Asg) {
    out = list_asg();
  } else {
    auto lookup = [this](const std::string& t, const std::string& z, CapacityType c) {
      return price(t, z, c);
    };
    ec2_.call_paginated(
        "DescribeInstances", describe_cluster_instances_params(options_.cluster_name),
        [&](const pugi::xml_node& root) { parse_describe_instances(root, lookup, out); });
    std::sort(out.begin(), out.end(),
              [](const Instance& a, const Instance& b) { return a.id < b.id; });
  }
  mark_interruptions(out);
  return out;
}

void AwsProvider::mark_interruptions(std::vector<Instance>& instances) {
  std::set<std::string> listed;
  for (const auto& i : instances) listed.insert(i.id);
  // A notice matters while its instance is listed; after that the id is never seen again.
  for (auto it = noticed_.begin(); it != noticed_.end();) {
    it = listed.count(*it) ? std::next(it) : noticed_.erase(it);
  }
  if (interruptions_) {
    InterruptionReport report;
    try {
      auto got = interruptions_->receive();
      report.ignored = got.ignored;
      for (auto& e : got.events) {
        if (!listed.count(e.instance_id)) {
          report.foreign.push_back(std::move(e));
          continue;
        }
        if (options_.consume_interruptions) {
          // The tag is the durable copy: written before the message is deleted.
          try {
            ec2_.call("CreateTags",
                      {{"ResourceId.1", e.instance_id},
                       {"Tag.1.Key", kTagInterruption},
                       {"Tag.1.Value", std::string(to_string(e.kind)) + "," + e.time}});
          } catch (const AwsError& tag_error) {
            // Gone already, or no permission: the notice still holds for this process.
            report.tag_error = tag_error.what();
          }
        }
        noticed_.insert(e.instance_id);
        report.marked.push_back(std::move(e));
      }
      if (options_.consume_interruptions) interruptions_->acknowledge(got.receipt_handles);
    } catch (const AwsError& e) {
      // Without the queue fitscale still scales; it only learns of interruptions later.
      report.error = e.what();
    }
    if (on_interruptions_ && (!report.marked.empty() || !report.foreign.empty() ||
                              report.ignored > 0 || !report.error.empty())) {
      on_interruptions_(report);
    }
  }
  for (auto& i : instances) {
    if (noticed_.count(i.id) || i.tags.count(kTagInterruption)) i.interruption_notice = true;
  }
}

void AwsProvider::terminate_ec2(const std::vector<std::string>& ids) {
  for (size_t start = 0; start < ids.size(); start += 500) {
    NameValues p;
    const size_t end = std::min(ids.size(), start + 500);
    for (size_t i = start; i < end; ++i) {
      p.emplace_back("InstanceId." + std::to_string(i - start + 1), ids[i]);
    }
    try {
      ec2_.call("TerminateInstances", p);
    } catch (const AwsError& e) {
      // One id already gone fails the whole batch: terminate the others one by one.
      if (e.code() != "InvalidInstanceID.NotFound") throw;
      for (size_t i = start; i < end; ++i) {
        try {
          ec2_.call("TerminateInstances", {{"InstanceId.1", ids[i]}});
        } catch (const AwsError& one) {
          if (one.code() != "InvalidInstanceID.NotFound") throw;
        }
      }
    }
  }
}

void AwsProvider::terminate(const std::vector<std::string>& instance_ids) {
  if (instance_ids.empty()) return;
  if (options_.mode != AwsMode::Asg) {
    terminate_ec2(instance_ids);
    return;
  }
  std::map<std::string, std::string> group_of;  // member id -> group name
  std::map<std::string, int> removable;         // group name -> desired - MinSize
  for (const auto& g : groups()) {
    removable[g.name] = std::max(0, g.desired - g.min_size);
    for (const auto& m : g.members) group_of[m.id] = g.name;
  }
  // The floor the last listing held back is never asked for, whatever order the ids come in.
  std::set<std::string> floor;
  {
    std::vector<Instance> known;
    for (const auto& g : last_groups_) {
      for (const auto& m : g.members) {
        if (!member_is_live(m)) continue;
        Instance i = member_instance(g, m);
        auto t = launch_times_.find(m.id);
        i.launched_at = t == launch_times_.end() ? 0 : t->second;
        known.push_back(std::move(i));
      }
    }
    floor = min_size_members(known);
  }
  std::vector<std::string> loose;
  for (const auto& id : instance_ids) {
    auto g = group_of.find(id);
    if (g == group_of.end()) {
      loose.push_back(id);
      continue;
    }
    // Never below MinSize (the listing keeps the floor out of reach; this holds if the group
    // changed in between): Auto Scaling would refuse the call anyway.
    if (floor.count(id) != 0 || removable[g->second] <= 0) continue;
    --removable[g->second];
    // Decrementing desired capacity keeps the group from replacing the instance.
    autoscaling_->call("TerminateInstanceInAutoScalingGroup",
                       {{"InstanceId", id}, {"ShouldDecrementDesiredCapacity", "true"}});
  }
  terminate_ec2(loose);
}

std::string AwsProvider::resolve_template_type(const AutoScalingGroup& g) {
  if (g.launch_template_id.empty() && g.launch_template_name.empty()) return "";
  const std::string version =
      g.launch_template_version.empty() ? "$Default" : g.launch_template_version;
  const std::string key = g.launch_template_id + "|" + g.launch_template_name + "|" + version;
  if (auto it = template_types_.find(key); it != template_types_.end()) return it->second;
  NameValues p;
  if (!g.launch_template_id.empty()) {
    p.emplace_back("LaunchTemplateId", g.launch_template_id);
  } else {
    p.emplace_back("LaunchTemplateName", g.launch_template_name);
  }
  p.emplace_back("LaunchTemplateVersion.1", version);
  auto doc = ec2_.call("DescribeLaunchTemplateVersions", p);
  std::string type = doc->document_element()
                         .child("launchTemplateVersionSet")
                         .child("item")
                         .child("launchTemplateData")
                         .child_value("instanceType");
  // "$Latest" may move: cache only fixed versions.
  if (version[0] != '$') template_types_[key] = type;
  return type;
}

std::vector<AutoScalingGroup> AwsProvider::groups() {
  std::vector<AutoScalingGroup> out;
  autoscaling_->call_paginated("DescribeAutoScalingGroups",
                               describe_groups_params(options_.asg_tag),
                               [&](const pugi::xml_node& root) {
                                 parse_groups(root, options_.asg_tag, options_.cluster_name, out);
                               });
  for (auto& g : out) {
    if (g.instance_type.empty()) g.instance_type = resolve_template_type(g);
  }
  std::sort(out.begin(), out.end(),
            [](const AutoScalingGroup& a, const AutoScalingGroup& b) { return a.name < b.name; });
  return out;
}

Instance AwsProvider::member_instance(const AutoScalingGroup& g, const AsgMember& m) const {
  Instance i;
  i.id = m.id;
  i.instance_type = m.instance_type.empty() ? g.instance_type : m.instance_type;
  i.zone = m.zone;
  i.capacity_type = g.capacity_type;
  i.state = m.lifecycle_state.rfind("Pending", 0) == 0 ? "pending" : "running";
  i.provider_id = provider_id(m.zone, m.id);
  i.price_micros_per_hour = price(i.instance_type, i.zone, i.capacity_type);
  i.tags = g.tags;
  i.tags["aws:autoscaling:groupName"] = g.name;
  if (auto t = g.tags.find(kTagPool); t != g.tags.end()) i.pool = t->second;
  return i;
}

std::vector<Instance> AwsProvider::list_asg() {
  std::vector<Instance> out;
  last_groups_ = groups();
  for (const auto& g : last_groups_) {
    for (const auto& m : g.members) {
      if (member_is_live(m)) out.push_back(member_instance(g, m));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Instance& a, const Instance& b) { return a.id < b.id; });
  fill_launch_times(out);
  // A group's MinSize members are the group's floor, not fitscale's to remove: the oldest
  // MinSize live members of each group are left out of the listing, so the planner sees their
  // nodes as capacity it did not launch (used, never removed, not metered), and fitscale never
  // asks Auto Scaling to go below MinSize (which it would refuse, leaving a drained node behind).
  std::set<std::string> floor = min_size_members(out);
  std::erase_if(out, [&](const Instance& i) { return floor.count(i.id) != 0; });
  return out;
}

std::set<std::string> AwsProvider::min_size_members(const std::vector<Instance>& listed) const {
  std::map<std::string, std::vector<const Instance*>> by_group;
  for (const auto& i : listed) {
    if (auto g = i.tags.find("aws:autoscaling:groupName"); g != i.tags.end())
      by_group[g->second].push_back(&i);
  }
  std::set<std::string> out;
  for (const auto& g : last_groups_) {
    auto it = by_group.find(g.name);
    if (it == by_group.end() || g.min_size <= 0) continue;
    auto members = it->second;
    std::sort(members.begin(), members.end(), [](const Instance* a, const Instance* b) {
      return a->launched_at != b->launched_at ? a->launched_at < b->launched_at : a->id < b->id;
    });
    const auto keep = std::min<std::size_t>(members.size(), static_cast<std::size_t>(g.min_size));
    for (std::size_t k = 0; k < keep; ++k) out.insert(members[k]->id);
  }
  return out;
}

void AwsProvider::fill_launch_times(std::vector<Instance>& instances) {
  std::set<std::string> listed;
  std::vector<std::string> unknown;
  for (const auto& i : instances) {
    listed.insert(i.id);
    if (!launch_times_.count(i.id)) unknown.push_back(i.id);
  }
  std::erase_if(launch_times_, [&](const auto& kv) { return !listed.count(kv.first); });
  // Without a launch time an in-flight member would look launched in 1970 and be terminated
  // as never registered on the next loop.
  for (std::size_t start = 0; start < unknown.size(); start += 200) {
    NameValues p;
    const std::size_t end = std::min(unknown.size(), start + 200);
    for (std::size_t k = start; k < end; ++k) {
      p.emplace_back("InstanceId." + std::to_string(k - start + 1), unknown[k]);
    }
    std::vector<Instance> described;
    try {
      auto doc = ec2_.call("DescribeInstances", p);
      parse_describe_instances(doc->document_element(), nullptr, described);
    } catch (const AwsError&) {
      // Not visible to EC2 yet (eventual consistency): first seen now, asked again never.
    }
    for (const auto& d : described) {
      if (d.launched_at != 0) launch_times_[d.id] = d.launched_at;
    }
    for (std::size_t k = start; k < end; ++k) launch_times_.emplace(unknown[k], clock_.now());
  }
  for (auto& i : instances) i.launched_at = launch_times_.at(i.id);
}

LaunchResult AwsProvider::launch_asg(const LaunchRequest& r) {
  LaunchResult out;
  const std::string key = offering_key(r.instance_type, r.zone, r.capacity_type);
  auto all = groups();
  const AutoScalingGroup* best = nullptr;
  bool matched = false;
  for (const auto& g : all) {
    if (g.instance_type != r.instance_type || !g.in_zone(r.zone) ||
        g.capacity_type != r.capacity_type) {
      continue;
    }
    matched = true;
    if (g.desired >= g.max_size) continue;
    if (!best || g.max_size - g.desired > best->max_size - best->desired) best = &g;
  }
  if (!best) {
    out.failures.push_back(
        {key, r.count, matched ? "AutoScalingGroupAtMaxSize" : "NoMatchingAutoScalingGroup",
         matched ? "every Auto Scaling group for " + key + " is at its MaxSize"
                 : "no Auto Scaling group tagged " + options_.asg_tag + "=" +
                       options_.cluster_name + " launches " + key,
         // Either way this offering cannot be had now: back it off so the plan moves on.
         true});
    return out;
  }
  const int desired = best->grown_desired(r.count);
  std::set<std::string> before;
  for (const auto& m : best->members) before.insert(m.id);
  // An absolute desired capacity: repeating the call after a crash cannot add twice.
  autoscaling_->call("SetDesiredCapacity", {{"AutoScalingGroupName", best->name},
                                            {"DesiredCapacity", std::to_string(desired)},
                                            {"HonorCooldown", "false"}});
  const std::string group_name = best->name;
  for (const auto& g : groups()) {
    if (g.name != group_name) continue;
    for (const auto& m : g.members) {
      if (before.count(m.id) || !member_is_live(m)) continue;
      Instance i = member_instance(g, m);
      i.state = "pending";
      i.launched_at = clock_.now();
      launch_times_.emplace(i.id, i.launched_at);
      i.owner_namespace = r.owner_namespace;
      i.job = r.job;
      if (i.price_micros_per_hour == 0) i.price_micros_per_hour = r.price_micros_per_hour;
      out.launched.push_back(std::move(i));
    }
  }
  const int added = desired - best->desired;
  if (added < r.count) {
    out.failures.push_back(
        {key, r.count - added, "AutoScalingGroupAtMaxSize",
         "group " + group_name + " reached MaxSize " + std::to_string(best->max_size), true});
  }
  return out;
}

}  // namespace fitscale::aws
