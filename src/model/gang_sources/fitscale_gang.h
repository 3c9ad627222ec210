#pragma once
// fitscale's own gang labels: fitscale.io/gang: NAME with fitscale.io/gang-size: N (label or
// annotation). The size is required: a named gang without one is bad input.
#include "model/gang_sources/gang_source.h"

namespace fitscale {

std::optional<GangReading> fitscale_gang(const Labels& labels, const Annotations& annotations);

}  // namespace fitscale
