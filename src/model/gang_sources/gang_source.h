#pragma once
// One gang source per framework (docs/frameworks.md): each reads the labels and annotations its
// framework writes on pods and says whether the pod belongs to a gang of that framework. The one
// place that asks them in turn is gang_of (gang_of.h).
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "model/labels.h"
#include "model/pod.h"

namespace fitscale {

// A field a source could not read: the pod is bad input (an event names the field).
struct GangProblem {
  std::string field;  // "metadata.annotations.leaderworkerset.sigs.k8s.io/size"
  std::string message;
};

// What a source found on a pod of its framework: a gang, or no gang (the framework's pods that
// are not gangs, e.g. a JobSet whose JobSets are not read), or a problem.
struct GangReading {
  std::optional<Gang> gang;
  std::optional<GangProblem> problem;
};

// nullopt: not a pod of this source's framework; the next source is asked.
using GangSource = std::optional<GangReading> (*)(const Labels& labels,
                                                  const Annotations& annotations);

// The first of `keys` found as a label, else as an annotation, read as a whole number >= 1.
// nullopt when none is there; a value that is no such number sets `problem`.
std::optional<std::int64_t> read_gang_size(const Labels& labels, const Annotations& annotations,
                                           std::initializer_list<std::string_view> keys,
                                           std::optional<GangProblem>& problem);

}  // namespace fitscale
