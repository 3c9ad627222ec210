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
#include "vcluster/priority_class.h"

namespace fitscale::vcluster {
namespace {

std::string owner_job_uid(const nlohmann::json& pod) {
  // Read in place: every pass looks at every pod.
  auto md = pod.find("metadata");
  if (md == pod.end() || !md->is_object()) return "";
  auto refs = md->find("ownerReferences");
  if (refs == md->end() || !refs->is_array()) return "";
  for (const auto& ref : *refs) {
    if (ref.is_object() && ref.value("kind", "") == "Job") return ref.value("uid", "");
  }
  return "";
}

constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

bool indexed(const nlohmann::json& job) {
  return job["spec"].value("completionMode", "NonIndexed") == "Indexed";
}

// The completion index of a pod of an Indexed Job; -1 when it has none (or not a number).
std::int64_t completion_index(const nlohmann::json& pod) {
  const std::string v = annotation_of(pod, kCompletionIndex);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
    return -1;
  return std::stoll(v);
}

// "0-2,4,6-7": the form of status.completedIndexes.
std::string compress_indexes(const std::set<std::int64_t>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    std::int64_t first = *it, last = *it;
    for (++it; it != indexes.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ",";
    out += first == last ? std::to_string(first) : fmt::format("{}-{}", first, last);
  }
  return out;
}

// index < 0: a NonIndexed Job's pod. With an index, as the Job controller does for Indexed
// Jobs: the annotation and label, the JOB_COMPLETION_INDEX environment variable (from the
// annotation) in every container, and hostname JOB-INDEX.
nlohmann::json pod_from_template(const nlohmann::json& job, std::int64_t index) {
  const auto& tmpl = job["spec"]["template"];
  nlohmann::json md = tmpl.value("metadata", nlohmann::json::object());
  md.erase("name");
  md.erase("namespace");
  md["generateName"] = name_of(job) + "-" + (index >= 0 ? std::to_string(index) + "-" : "");
  if (index >= 0) {
    md["annotations"][kCompletionIndex] = std::to_string(index);
    md["labels"][kCompletionIndex] = std::to_string(index);
  }
  md["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                            {"kind", "Job"},
                            {"name", name_of(job)},
                            {"uid", uid_of(job)},
                            {"controller", true},
                            {"blockOwnerDeletion", true}}};
  nlohmann::json spec = tmpl["spec"];
  if (index >= 0) {
    const nlohmann::json env = {
        {"name", "JOB_COMPLETION_INDEX"},
        {"valueFrom",
         {{"fieldRef",
           {{"fieldPath", std::string("metadata.annotations['") + kCompletionIndex + "']"}}}}}};
    for (const char* list : {"initContainers", "containers"}) {
      if (!spec.contains(list) || !spec[list].is_array()) continue;
      for (auto& c : spec[list]) {
        if (c.is_object()) c["env"].push_back(env);
      }
    }
    if (!spec.contains("hostname")) spec["hostname"] = name_of(job) + "-" + std::to_string(index);
  }
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

JobPass run_job_controller(ObjectStore& store, const Clock& clock, const PodAdmission& admit) {
  JobPass pass;
  const std::string now = format_rfc3339(clock.now());
  auto jobs = store.list("jobs").items;
  const auto pods = store.list_shared("pods").items;                  // read only: not copied
  std::map<std::string, std::vector<const nlohmann::json*>> pods_of;  // job uid -> pods
  for (const auto& p : pods) {
    const std::string uid = owner_job_uid(*p);
    if (!uid.empty()) pods_of[uid].push_back(p.get());
  }
  for (const auto& job : jobs) {
    // Being deleted (foreground): its pods are the garbage collector's; none are replaced.
    if (is_terminating(job)) continue;
    const std::string ns = namespace_of(job);
    const std::string name = name_of(job);
    const auto& spec = job["spec"];
    std::int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    std::set<std::int64_t> succeeded_indexes, busy_indexes;  // Indexed Jobs
    for (const auto* p : pods_of[uid_of(job)]) {
      const std::string phase = pod_phase(*p);
      if (phase == "Succeeded") {
        ++succeeded;
        succeeded_indexes.insert(completion_index(*p));
      } else if (phase == "Failed") {
        ++failed;
      } else if (!is_terminating(*p)) {
        ++active;
        busy_indexes.insert(completion_index(*p));
        if (phase == "Running") ++ready;
      }
    }
    const std::int64_t parallelism = spec.value("parallelism", 1);
    const std::int64_t completions = spec.value("completions", parallelism);
    const std::int64_t backoff_limit = spec.value("backoffLimit", 6);
    const bool is_indexed = indexed(job);
    succeeded_indexes.erase(-1);
    // An Indexed Job completes when every index in [0, completions) has succeeded once.
    const std::int64_t done =
        is_indexed ? static_cast<std::int64_t>(succeeded_indexes.size()) : succeeded;
    const bool finished = has_condition(job, "Complete") || has_condition(job, "Failed");
    nlohmann::json new_condition;
    std::int64_t to_create = 0;
    if (!finished) {
      if (failed > backoff_limit) {
        new_condition = condition("Failed", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit", now);
      } else if (done >= completions) {
        new_condition = condition("Complete", "", "", now);
      } else if (!spec.value("suspend", false)) {
        to_create = std::max<std::int64_t>(0, std::min(parallelism, completions - done) - active);
      }
    }
    // The indexes the new pods take: the lowest ones neither succeeded nor running.
    std::vector<std::int64_t> next_indexes;
    for (std::int64_t i = 0; is_indexed && i < completions &&
                             static_cast<std::int64_t>(next_indexes.size()) < to_create;
         ++i) {
      if (!succeeded_indexes.count(i) && !busy_indexes.count(i)) next_indexes.push_back(i);
    }
    if (is_indexed) to_create = static_cast<std::int64_t>(next_indexes.size());
    for (std::int64_t i = 0; i < to_create; ++i) {
      nlohmann::json pod =
          pod_from_template(job, is_indexed ? next_indexes[static_cast<std::size_t>(i)] : -1);
      try {
        admit_create(resource_by_plural("pods"), pod);
        resolve_pod_priority(store, pod);
        if (admit) pod = admit(ns, std::move(pod));
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
        if (is_indexed) st["completedIndexes"] = compress_indexes(succeeded_indexes);
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
