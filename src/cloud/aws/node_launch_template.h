#pragma once
// The launch template version a node boots from when fitscale passes its labels and taints
// (node_bootstrap.h): a version of the configured launch template, made with
// CreateLaunchTemplateVersion from the configured version (SourceVersion, so everything else of
// it is kept) with only the user data changed. One version per distinct (template version,
// labels and taints), made once per process and reused; fitscale never changes the template's
// default version.
#include <map>
#include <string>
#include <vector>

#include "cloud/aws/query_client.h"
#include "model/config.h"
#include "model/labels.h"
#include "model/taint.h"

namespace fitscale::aws {

// The parameters of that CreateLaunchTemplateVersion: `base_id` and `base_version` (a number)
// are the resolved template, `image_id` its image (repeated because moto ignores SourceVersion;
// EC2 copies the same image from it), `user_data` the new user data, plain text.
NameValues create_node_version_params(const std::string& base_id, const std::string& base_version,
                                      const std::string& image_id, const std::string& user_data);

class NodeLaunchTemplates {
 public:
  // The template to launch from: `base` itself when there is nothing to pass, else the version
  // for these labels and taints (made on first use). Throws AwsError as the calls do.
  LaunchTemplateRef version_for(QueryClient& ec2, const LaunchTemplateRef& base,
                                const Labels& labels, const std::vector<Taint>& taints);

 private:
  // "id|resolved number|node config", and "id|name|fixed version|node config" -> the version
  // made for it
  std::map<std::string, LaunchTemplateRef> made_;
};

}  // namespace fitscale::aws
