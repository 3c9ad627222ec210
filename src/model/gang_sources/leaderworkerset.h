#pragma once
// LeaderWorkerSet (kubernetes-sigs/lws): every pod of group I of the LeaderWorkerSet NAME is
// labelled leaderworkerset.sigs.k8s.io/name: NAME and leaderworkerset.sigs.k8s.io/group-index: I,
// and annotated leaderworkerset.sigs.k8s.io/size: N (the group's leader and workers together).
// One group is one gang, named NAME-I (the leader pod's name, which LWS calls the group's name).
//
// With startupPolicy LeaderReady the workers are created only once the leader is Ready, and
// nothing on the pods says which policy applies; so a group still incomplete after
// kLeaderWorkerSetPartialAfter is planned with the pods it has (the leader alone), and the
// workers, once created, as one gang with it. With LeaderCreated (the default) the workers come
// within seconds of the leader and the group is launched whole.
#include "model/gang_sources/gang_source.h"

namespace fitscale {

inline constexpr Seconds kLeaderWorkerSetPartialAfter = 120;

std::optional<GangReading> leaderworkerset_gang(const Labels& labels,
                                                const Annotations& annotations);

}  // namespace fitscale
