#include "vcluster/job_controller.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "model/labels.h"
#include "model/time.h"
#include "vcluster/admission.h"
#include "vcluster/api_error.h"
#include "vcluster/events.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

std::string owner_job_uid(const nlohmann::json& pod) {
  for (const auto& ref : pod["metadata"].value("ownerReferences", nlohmann::json::array())) {
    if (ref.value("kind", "") == "Job") return ref.value("uid", "");
  }
  return "";
}

nlohmann::json pod_from_template(const nlohmann::json& job) {
  const auto& tmpl = job["spec"]["template"];
  nlohmann::json md = tmpl.value("metadata", nlohmann::json::object());
  md.erase("name");
  md.erase("namespace");
  md["generateName"] = name_of(job) + "-";
  md["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                            {"kind", "Job"},
                            {"name", name_of(job)},
                            {"uid", uid_of(job)},
                            {"controller", true},
                            {"blockOwnerDeletion", true}}};
  nlohmann::json spec = tmpl["spec"];
  if (!spec.contains("activeDeadlineSeconds") && job["spec"].contains("activeDeadlineSeconds")) {
    spec["activeDeadlineSeconds"] = job["spec"]["activeDeadlineSeconds"];
  }
  for (auto key : {annotation::kSimDuration, annotation::kMaxRuntime}) {
    const std::string v = annotation_of(job, std::string(key));
    if (!v.empty() && annotation_of(nlohmann::json{{"metadata", md}}, std::string(key)).empty()) {
      md["annotations"][std::string(key)] = v;
    }
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", md}, {"spec", spec}};
}

bool has_condition(const nlohmann::json& job, const std::string& type) {
  for (const auto& c : job["status"].value("conditions", nlohmann::json::array())) {
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  }
  return false;
}

nlohmann::json condition(const std::string& type, const std::string& reason,
                         const std::string& message, const std::string& now) {
  return {{"type", type},       {"status", "True"},     {"reason", reason},
          {"message", message}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
}

}  // namespace

JobPass run_job_controller(ObjectStore& store, const Clock& clock) {
  JobPass pass;
  const std::string now = format_rfc3339(clock.now());
  auto jobs = store.list("jobs").items;
  auto pods = store.list("pods").items;
  std::map<std::string, std::vector<const nlohmann::json*>> pods_of;  // job uid -> pods
  for (const auto& p : pods) {
    const std::string uid = owner_job_uid(p);
    if (!uid.empty()) pods_of[uid].push_back(&p);
  }
  std::set<std::string> job_uids;
  for (const auto& job : jobs) job_uids.insert(uid_of(job));
  for (const auto& [uid, owned] : pods_of) {
    if (job_uids.count(uid)) continue;
    for (const auto* p : owned) {
      try {
        store.remove("pods", namespace_of(*p), name_of(*p));
        ++pass.pods_collected;
      } catch (const ApiError&) {
      }
    }
  }

  for (const auto& job : jobs) {
    const std::string ns = namespace_of(job);
    const std::string name = name_of(job);
    const auto& spec = job["spec"];
    std::int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    for (const auto* p : pods_of[uid_of(job)]) {
      const std::string phase = pod_phase(*p);
      if (phase == "Succeeded")
        ++succeeded;
      else if (phase == "Failed")
        ++failed;
      else if (!is_terminating(*p)) {
        ++active;
        if (phase == "Running") ++ready;
      }
    }
    const std::int64_t parallelism = spec.value("parallelism", 1);
    const std::int64_t completions = spec.value("completions", parallelism);
    const std::int64_t backoff_limit = spec.value("backoffLimit", 6);
    const bool finished = has_condition(job, "Complete") || has_condition(job, "Failed");
    nlohmann::json new_condition;
    std::int64_t to_create = 0;
    if (!finished) {
      if (failed > backoff_limit) {
        new_condition = condition("Failed", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit", now);
      } else if (succeeded >= completions) {
        new_condition = condition("Complete", "", "", now);
      } else if (!spec.value("suspend", false)) {
        to_create =
            std::max<std::int64_t>(0, std::min(parallelism, completions - succeeded) - active);
      }
    }
    for (std::int64_t i = 0; i < to_create; ++i) {
      nlohmann::json pod = pod_from_template(job);
      try {
        admit_create(resource_by_plural("pods"), pod);
        auto created = store.create("pods", ns, std::move(pod));
        ++active;
        ++pass.pods_created;
        record_event(store, clock, job, "Normal", "SuccessfulCreate",
                     "Created pod: " + name_of(created), "job-controller");
      } catch (const ApiError& e) {
        record_event(store, clock, job, "Warning", "FailedCreate",
                     std::string("Error creating pod: ") + e.what(), "job-controller");
        break;
      }
    }
    if (!new_condition.is_null() && new_condition["type"] == "Failed") {
      for (const auto* p : pods_of[uid_of(job)]) {
        const std::string phase = pod_phase(*p);
        if (phase == "Succeeded" || phase == "Failed") continue;
        try {
          store.mutate("pods", ns, name_of(*p),
                       [&](nlohmann::json& o) { o["metadata"]["deletionTimestamp"] = now; });
        } catch (const ApiError&) {
        }
      }
      active = 0;
    }
    try {
      store.mutate("jobs", ns, name, [&](nlohmann::json& j) {
        auto& st = j["status"];
        if (!st.is_object()) st = nlohmann::json::object();
        if (!st.contains("startTime") && !spec.value("suspend", false)) st["startTime"] = now;
        st["active"] = active;
        st["succeeded"] = succeeded;
        st["failed"] = failed;
        st["ready"] = ready;
        if (!new_condition.is_null()) {
          if (new_condition["type"] == "Complete") {
            st["completionTime"] = now;
            st["conditions"].push_back(condition("SuccessCriteriaMet", "CompletionsReached",
                                                 "Reached expected number of succeeded pods", now));
          } else {
            st["conditions"].push_back(
                condition("FailureTarget", new_condition["reason"], new_condition["message"], now));
          }
          st["conditions"].push_back(new_condition);
        }
        for (const char* k : {"active", "succeeded", "failed"}) {
          if (st[k] == 0) st.erase(k);  // as the real controller omits zero counts
        }
      });
    } catch (const ApiError&) {
      continue;
    }
    if (!new_condition.is_null()) {
      const bool ok = new_condition["type"] == "Complete";
      record_event(
          store, clock, job, ok ? "Normal" : "Warning", ok ? "Completed" : "BackoffLimitExceeded",
          ok ? "Job completed" : "Job has reached the specified backoff limit", "job-controller");
    }
  }
  return pass;
}

}  // namespace fitscale::vcluster
