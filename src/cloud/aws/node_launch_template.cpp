#include "cloud/aws/node_launch_template.h"

#include "cloud/aws/node_bootstrap.h"
#include "model/base64.h"
#include "model/error.h"

namespace fitscale::aws {

NameValues create_node_version_params(const std::string& base_id, const std::string& base_version,
                                      const std::string& image_id, const std::string& user_data) {
  NameValues p = {
      {"LaunchTemplateId", base_id},
      {"SourceVersion", base_version},
      // No spaces: moto re-encodes a form body (a space as "+") to check its
      // signature, and would refuse the request.
      {"VersionDescription", "fitscale-node-labels-and-taints-from-version-" + base_version},
      {"LaunchTemplateData.UserData", base64_encode(user_data)}};
  if (!image_id.empty()) p.emplace_back("LaunchTemplateData.ImageId", image_id);
  return p;
}

LaunchTemplateRef NodeLaunchTemplates::version_for(QueryClient& ec2, const LaunchTemplateRef& base,
                                                   const Labels& labels,
                                                   const std::vector<Taint>& taints) {
  const std::string node_config = nodeadm_kubelet_flags(labels, taints);
  if (node_config.empty()) return base;
  NameValues describe;
  if (!base.id.empty()) {
    describe.emplace_back("LaunchTemplateId", base.id);
  } else {
    describe.emplace_back("LaunchTemplateName", base.name);
  }
  const std::string wanted = base.version.empty() ? "$Default" : base.version;
  // A fixed version number is resolved once; $Default and $Latest may move, so they are asked
  // for on every launch (one call) and the version made is reused while they stay.
  const std::string fixed_key = base.id + "|" + base.name + "|" + wanted + "|" + node_config;
  if (wanted[0] != '$') {
    if (auto it = made_.find(fixed_key); it != made_.end()) return it->second;
  }
  describe.emplace_back("LaunchTemplateVersion.1", wanted);
  auto doc = ec2.call("DescribeLaunchTemplateVersions", describe);
  const pugi::xml_node v = doc->document_element().child("launchTemplateVersionSet").child("item");
  const std::string id = text(v, "launchTemplateId");
  const std::string number = text(v, "versionNumber");
  if (id.empty() || number.empty())
    throw InputError("launch template " + (base.id.empty() ? base.name : base.id) + " version " +
                     wanted + ": not found");
  const std::string resolved_key = id + "|" + number + "|" + node_config;
  if (auto it = made_.find(resolved_key); it != made_.end()) return it->second;
  const pugi::xml_node data = v.child("launchTemplateData");
  const std::string base_user_data = base64_decode(
      text(data, "userData"), "launch template " + id + " version " + number + ": userData");
  auto made =
      ec2.call("CreateLaunchTemplateVersion",
               create_node_version_params(id, number, text(data, "imageId"),
                                          user_data_with_node_config(base_user_data, node_config)));
  const std::string version =
      text(made->document_element().child("launchTemplateVersion"), "versionNumber");
  if (version.empty())
    throw InputError("CreateLaunchTemplateVersion on " + id + ": no versionNumber in the answer");
  LaunchTemplateRef out{"", id, version};
  made_[resolved_key] = out;
  if (wanted[0] != '$') made_[fixed_key] = out;
  return out;
}

}  // namespace fitscale::aws
