#pragma once
// Reasons a person can act on, with the numbers: which constraint no offering meets, which
// offerings are backed off, and how to write money and durations in them.
#include <cstdint>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/money.h"
#include "planner/offering_choice.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

// Why no offering among `candidates` (already zone-filtered) can ever hold a pod of `c`:
// "requests example.com/fpga 1: no offering has it", "node selector disktype=ssd matches no
// offering", "needs 8 GPUs of model H100; the largest matching offering p5.48xlarge has 8 GPUs
// but 1,952 of 2,048 GiB memory allocatable".
std::string no_offering_reason(const PodClass& c, const Catalog& catalog,
                               const std::vector<std::uint32_t>& candidates);

// "all 3 offerings that fit are backed off after launch failures (p3.8xlarge/us-east-1a/spot, ...)"
std::string backoff_reason(const OfferingChoice& choice, const Catalog& catalog);

// "72h", "90m", "1h30m", "45s": short, for money sentences.
std::string short_duration(std::int64_t seconds);
// "$1,152/h"
std::string usd_per_hour(Micros micros_per_hour);

}  // namespace fitscale::planner
