// Pool labels and taints in a node's user data, for Amazon Linux 2023's nodeadm (docs/aws.md).
#include <gtest/gtest.h>

#include "cloud/aws/node_bootstrap.h"
#include "cloud/aws/node_launch_template.h"
#include "model/base64.h"

namespace fitscale::aws {
namespace {

TEST(AwsNodeBootstrap, TheKubeletIsGivenOnlyLabelsItMaySetOnItsOwnNode) {
  const Labels l = kubelet_settable_labels({{"fitscale.io/pool", "gpu"},
                                            {"team", "ml"},
                                            {"kubernetes.io/arch", "amd64"},
                                            {"topology.kubernetes.io/zone", "us-east-1a"},
                                            {"node.kubernetes.io/instance-type", "p3.2xlarge"},
                                            {"node-role.kubernetes.io/gpu", ""},
                                            {"node.kubernetes.io/lifecycle", "spot"},
                                            {"example.k8s.io/x", "y"}});
  EXPECT_EQ(l, (Labels{{"fitscale.io/pool", "gpu"},
                       {"node.kubernetes.io/lifecycle", "spot"},
                       {"team", "ml"}}));
}

TEST(AwsNodeBootstrap, LabelsAndTaintsBecomeKubeletFlagsOfANodeConfig) {
  const std::string c =
      nodeadm_kubelet_flags({{"fitscale.io/pool", "gpu"}, {"team", "ml"}},
                            {{"nvidia.com/gpu", "true", TaintEffect::NoSchedule},
                             {"example.com/agent-not-ready", "", TaintEffect::NoExecute}});
  EXPECT_EQ(c,
            "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n"
            "      - \"--node-labels=fitscale.io/pool=gpu,team=ml\"\n"
            "      - \"--register-with-taints=nvidia.com/gpu=true:NoSchedule,"
            "example.com/agent-not-ready:NoExecute\"\n");
  EXPECT_EQ(nodeadm_kubelet_flags({{"kubernetes.io/arch", "amd64"}}, {}), "");
}

// An EKS AL2023 launch template's user data: a MIME multipart with the cluster's NodeConfig.
const char* kEksUserData =
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n"
    "--BOUNDARY\n"
    "Content-Type: application/node.eks.aws\n\n"
    "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n"
    "    name: research\n    apiServerEndpoint: https://example.eks.amazonaws.com\n\n"
    "--BOUNDARY--\n";

TEST(AwsNodeBootstrap, AMultipartUserDataKeepsItsPartsAndGainsTheNodeConfigFirst) {
  const std::string cfg = nodeadm_kubelet_flags({{"team", "ml"}}, {});
  const std::string out = user_data_with_node_config(kEksUserData, cfg);
  const auto ours = out.find("--node-labels=team=ml");
  const auto theirs = out.find("name: research");
  ASSERT_NE(ours, std::string::npos);
  ASSERT_NE(theirs, std::string::npos);
  EXPECT_LT(ours, theirs);
  EXPECT_EQ(out.rfind("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"", 0),
            0u);
  EXPECT_NE(out.find("--BOUNDARY\nContent-Type: application/node.eks.aws\n\napiVersion"),
            std::string::npos);
  EXPECT_NE(out.find("--BOUNDARY--"), std::string::npos);
}

TEST(AwsNodeBootstrap, AScriptUserDataBecomesAShellScriptPartBesideTheNodeConfig) {
  const std::string out =
      user_data_with_node_config("#!/bin/bash\necho hi\n", nodeadm_kubelet_flags({{"a", "b"}}, {}));
  EXPECT_NE(out.find("Content-Type: multipart/mixed; boundary=\"==FITSCALE_NODE_CONFIG==\""),
            std::string::npos);
  EXPECT_NE(
      out.find("Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho hi\n"),
      std::string::npos);
  EXPECT_NE(out.find("==FITSCALE_NODE_CONFIG==--\n"), std::string::npos);
  EXPECT_EQ(user_data_with_node_config("#!/bin/bash\n", ""), "#!/bin/bash\n");
}

TEST(AwsNodeBootstrap, TheNewVersionStartsFromTheTemplatesVersionAndChangesOnlyItsUserData) {
  const NameValues p = create_node_version_params("lt-0abc", "3", "ami-1", "hello");
  EXPECT_EQ(p, (NameValues{{"LaunchTemplateId", "lt-0abc"},
                           {"SourceVersion", "3"},
                           {"VersionDescription", "fitscale-node-labels-and-taints-from-version-3"},
                           {"LaunchTemplateData.UserData", base64_encode("hello")},
                           {"LaunchTemplateData.ImageId", "ami-1"}}));
  EXPECT_EQ(base64_decode(base64_encode("hello"), "x"), "hello");
  EXPECT_EQ(base64_encode("ab"), "YWI=");
  EXPECT_EQ(base64_encode("abc"), "YWJj");
  EXPECT_EQ(base64_encode("a"), "YQ==");
}

}  // namespace
}  // namespace fitscale::aws
