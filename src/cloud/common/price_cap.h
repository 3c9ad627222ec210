#pragma once
// The budgets' $/h cap for a cloud with no launch-wide price cap (EC2 Fleet has MaxTotalPrice;
// Azure and Compute Engine have none): the provider launches only as many nodes as the cap allows
// and reports the rest as a MaxTotalPriceExceeded failure (not a capacity error).
#include "controller/interfaces.h"

namespace fitscale::cloud {

// How many of `request.count` the cap allows; adds the failure for the rest to `out`.
int count_within_price_cap(const LaunchRequest& request, LaunchResult& out);

}  // namespace fitscale::cloud
