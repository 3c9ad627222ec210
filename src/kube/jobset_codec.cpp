#include "kube/jobset_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kube/json_list_page.h"
#include "kube/pod_group_codec.h"
#include "model/error.h"

namespace fitscale {

using json = nlohmann::json;

namespace {

// A whole number >= 0 at `o[key]`, `fallback` when absent; `where` names the field.
std::int64_t count_at(const json& o, const char* key, std::int64_t fallback,
                      const std::string& where) {
  if (!o.contains(key) || o[key].is_null()) return fallback;
  const json& v = o[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    throw InputError(where + "." + key + ": expected a whole number >= 0, got " + v.dump());
  return v.get<std::int64_t>();
}

const json& object_at(const json& o, const char* key, const std::string& where) {
  static const json kEmpty = json::object();
  if (!o.contains(key) || o[key].is_null()) return kEmpty;
  if (!o[key].is_object()) throw InputError(where + "." + key + ": expected an object");
  return o[key];
}

PodGroupView read_jobset(const json& o) {
  if (!o.is_object()) throw InputError("expected a JobSet object");
  PodGroupView g;
  g.kind = GangSizer::JobSet;
  const json& meta = object_at(o, "metadata", "");
  if (!meta.contains("name") || !meta["name"].is_string() ||
      meta["name"].get<std::string>().empty())
    throw InputError("metadata.name: missing");
  g.name = meta["name"].get<std::string>();
  g.ns = meta.value("namespace", std::string("default"));
  const json& spec = object_at(o, "spec", "");
  const json& startup = object_at(spec, "startupPolicy", "spec");
  bool in_turn = startup.value("startupPolicyOrder", std::string()) == "InOrder";
  std::int64_t pods = 0;
  if (spec.contains("replicatedJobs")) {
    const json& jobs = spec["replicatedJobs"];
    if (!jobs.is_array()) throw InputError("spec.replicatedJobs: expected an array");
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const std::string where = "spec.replicatedJobs[" + std::to_string(i) + "]";
      const json& rj = jobs[i];
      if (!rj.is_object()) throw InputError(where + ": expected an object");
      if (rj.contains("dependsOn") && rj["dependsOn"].is_array() && !rj["dependsOn"].empty())
        in_turn = true;
      const std::int64_t replicas = count_at(rj, "replicas", 1, where);
      const json& job_spec =
          object_at(object_at(rj, "template", where), "spec", where + ".template");
      const std::string jwhere = where + ".template.spec";
      std::int64_t per_job = count_at(job_spec, "parallelism", 1, jwhere);
      if (job_spec.contains("completions") && !job_spec["completions"].is_null())
        per_job = std::min(per_job, count_at(job_spec, "completions", per_job, jwhere));
      // Bounded: a JobSet of more than a million pods is no gang anyone launches at once.
      pods =
          std::min<std::int64_t>(1'000'000, pods + std::min<std::int64_t>(1'000'000, replicas) *
                                                       std::min<std::int64_t>(1'000'000, per_job));
    }
  }
  g.min_member = in_turn ? 1 : std::max<std::int64_t>(1, pods);
  return g;
}

}  // namespace

PodGroupView decode_jobset(const json& o) {
  try {
    return read_jobset(o);
  } catch (const json::exception& e) {
    throw InputError(std::string("JobSet: unreadable field: ") + e.what());
  }
}

ResourceCodec<PodGroupView> jobset_codec() {
  ResourceCodec<PodGroupView> c;
  c.resource = "jobsets";
  c.path = "/apis/jobset.x-k8s.io/v1alpha2/jobsets";
  c.decode_list = [](std::string_view page,
                     std::vector<std::pair<std::string, PodGroupView>>& items,
                     std::vector<std::pair<std::string, std::string>>& bad) {
    decode_list_page(page, "jobsets", decode_jobset, items, bad);
  };
  c.decode_object = [](std::string_view object_json) {
    return decode_jobset(parse_api_json(object_json));
  };
  return c;
}

}  // namespace fitscale
