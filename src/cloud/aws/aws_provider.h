#pragma once
// fitscale's CloudProvider for AWS. Mode fleet (default): one CreateFleet (instant) per launch
// decision, instances found again by tag. Mode asg: the user's Auto Scaling groups, found by tag.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloud/aws/asg_groups.h"
#include "cloud/aws/aws_options.h"
#include "cloud/aws/interruption_queue.h"
#include "cloud/aws/node_launch_template.h"
#include "cloud/aws/query_client.h"
#include "controller/interfaces.h"
#include "model/catalog.h"

namespace fitscale::aws {

// What one read of the interruption queue found, for the log.
struct InterruptionReport {
  std::vector<InterruptionEvent> marked;   // events for this cluster's instances
  std::vector<InterruptionEvent> foreign;  // events for instances this cluster does not own
  int ignored = 0;                         // messages that were no event fitscale acts on
  std::string error;                       // the queue could not be read (listing went on)
  std::string tag_error;  // a notice could not be tagged on its instance (it holds in memory)
};

class AwsProvider final : public CloudProvider {
 public:
  // `autoscaling` is needed in mode asg only; `catalog` (may be null) prices listed instances;
  // `interruptions` (may be null) is read on every list_instances().
  AwsProvider(QueryClient& ec2, QueryClient* autoscaling, const Catalog* catalog,
              const Clock& clock, AwsProviderOptions options,
              InterruptionQueue* interruptions = nullptr);

  std::string name() const override { return "aws"; }
  // Never throws for an API error: it comes back as a LaunchFailure with the AWS code.
  LaunchResult launch(const LaunchRequest& request) override;
  // Throws AwsError: an instance that could not be terminated must not be forgotten.
  void terminate(const std::vector<std::string>& instance_ids) override;
  // Throws AwsError: the controller must not act on a view it could not get. Instances with an
  // interruption notice (from the queue, or tagged by an earlier read) are marked.
  std::vector<Instance> list_instances() override;

  // Prices listed instances from this catalog from now on (after a catalog refresh).
  void set_prices(const Catalog& catalog);
  // Called after a read of the interruption queue that found something or failed.
  void on_interruptions(std::function<void(const InterruptionReport&)> f) {
    on_interruptions_ = std::move(f);
  }

  // Mode asg: the cluster's groups as the API reports them now.
  std::vector<AutoScalingGroup> groups();
  const AwsProviderOptions& options() const { return options_; }

 private:
  LaunchResult launch_fleet(const LaunchRequest& request);
  LaunchResult launch_asg(const LaunchRequest& request);
  std::vector<Instance> list_asg();
  // Ids of each group's oldest MinSize live members among `listed` (by last_groups_).
  std::set<std::string> min_size_members(const std::vector<Instance>& listed) const;
  void terminate_ec2(const std::vector<std::string>& ids);
  std::string resolve_template_type(const AutoScalingGroup& g);
  Micros price(const std::string& type, const std::string& zone, CapacityType c) const;
  Instance member_instance(const AutoScalingGroup& g, const AsgMember& m) const;
  void mark_interruptions(std::vector<Instance>& instances);

  QueryClient& ec2_;
  QueryClient* autoscaling_;
  const Clock& clock_;
  AwsProviderOptions options_;
  std::map<std::string, Micros, std::less<>> prices_;  // offering key -> micro-dollars per hour
  std::map<std::string, std::string> template_types_;  // launch template id:version -> type
  NodeLaunchTemplates node_templates_;  // versions that pass pool labels and taints (mode fleet)
  InterruptionQueue* interruptions_;
  std::set<std::string> noticed_;  // instance ids with a notice (kept while they are listed)
  // Auto Scaling lists members without a launch time; EC2 knows it. Asked once per instance,
  // kept while the instance is listed.
  std::map<std::string, Time> launch_times_;
  std::vector<AutoScalingGroup> last_groups_;  // of the last list_asg()
  void fill_launch_times(std::vector<Instance>& instances);
  std::function<void(const InterruptionReport&)> on_interruptions_;
};

}  // namespace fitscale::aws
