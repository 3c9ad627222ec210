#pragma once
// pods/log: what the simulated container "printed". The virtual cluster runs no processes, so
// a container's log is the story of its simulated life, derived from the pod as stored: where
// and when it started, the environment the Job controller gave it (JOB_COMPLETION_INDEX), how
// long it is meant to run, and how it ended. Lines are stable for a given pod, so a client
// that reads twice sees the first read as a prefix of the second.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fitscale::vcluster {

struct PodLogOptions {
  std::string container;           // empty: the only container (400 when there are several)
  bool timestamps = false;         // prefix each line with its RFC 3339 time
  std::optional<long> tail_lines;  // the last N lines only
};

// The log text (lines ending in "\n"). Throws ApiError 400 as kubelet answers through
// kube-apiserver: a container name the pod does not have, several containers and none named,
// or a container that has not started yet ("is waiting to start").
std::string pod_log_text(const nlohmann::json& pod, const PodLogOptions& options);

}  // namespace fitscale::vcluster
