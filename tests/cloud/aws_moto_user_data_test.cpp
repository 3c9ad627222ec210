// Pool labels and taints reach an EC2 node through its user data (docs/aws.md, "Node labels and
// taints"), checked on what moto_server stored for the instance.
#include "aws_moto_fixture.h"
#include "model/base64.h"

namespace fitscale::aws {
namespace {

std::string user_data_of(QueryClient& ec2, const std::string& instance_id) {
  auto doc = ec2.call("DescribeInstanceAttribute",
                      {{"InstanceId", instance_id}, {"Attribute", "userData"}});
  return base64_decode(doc->document_element().child("userData").child_value("value"),
                       "userData of " + instance_id);
}

int template_versions(QueryClient& ec2) {
  auto doc = ec2.call("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "fitscale-nodes"}});
  int n = 0;
  for ([[maybe_unused]] auto v :
       doc->document_element().child("launchTemplateVersionSet").children("item"))
    ++n;
  return n;
}

TEST_F(AwsMoto, APoolsLabelsAndTaintsAreInTheNodesUserDataForNodeadm) {
  Stack s(user, fleet_options("c-userdata"));
  const int versions_before = template_versions(s.ec2);
  LaunchRequest r = request("g4dn.xlarge", "us-east-1a", CapacityType::Spot, 1);
  r.node_labels = {{"fitscale.io/pool", "gpu"},
                   {"team", "ml"},
                   {"kubernetes.io/arch", "amd64"},
                   {"node.kubernetes.io/instance-type", "g4dn.xlarge"}};
  r.node_taints = {{"nvidia.com/gpu", "true", TaintEffect::NoSchedule},
                   {"example.com/agent-not-ready", "", TaintEffect::NoSchedule}};
  auto result = s.provider.launch(r);
  ASSERT_TRUE(result.failures.empty()) << result.failures[0].message;
  ASSERT_EQ(result.launched.size(), 1u);
  const std::string ud = user_data_of(s.ec2, result.launched[0].id);
  EXPECT_NE(ud.find("Content-Type: application/node.eks.aws"), std::string::npos) << ud;
  EXPECT_NE(ud.find("\"--node-labels=fitscale.io/pool=gpu,team=ml\""), std::string::npos) << ud;
  EXPECT_NE(ud.find("\"--register-with-taints=nvidia.com/gpu=true:NoSchedule,"
                    "example.com/agent-not-ready:NoSchedule\""),
            std::string::npos)
      << ud;
  EXPECT_EQ(ud.find("kubernetes.io/arch"), std::string::npos) << ud;
  EXPECT_EQ(template_versions(s.ec2), versions_before + 1);

  // The same labels and taints again: the version made is reused, not made twice.
  r.client_token = "tok-again";
  result = s.provider.launch(r);
  ASSERT_EQ(result.launched.size(), 1u);
  EXPECT_NE(user_data_of(s.ec2, result.launched[0].id).find("--node-labels=fitscale.io/pool=gpu"),
            std::string::npos);
  EXPECT_EQ(template_versions(s.ec2), versions_before + 1);
}

TEST_F(AwsMoto, WithNodeBootstrapNoneTheTemplateIsUsedAsItIs) {
  AwsProviderOptions o = fleet_options("c-userdata-none");
  o.nodeadm_bootstrap = false;
  Stack s(user, o);
  const int versions_before = template_versions(s.ec2);
  LaunchRequest r = request("m5.large", "us-east-1a", CapacityType::OnDemand, 1);
  r.node_labels = {{"team", "ml"}};
  auto result = s.provider.launch(r);
  ASSERT_EQ(result.launched.size(), 1u);
  EXPECT_EQ(user_data_of(s.ec2, result.launched[0].id).find("--node-labels"), std::string::npos);
  EXPECT_EQ(template_versions(s.ec2), versions_before);
}

}  // namespace
}  // namespace fitscale::aws
