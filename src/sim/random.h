#pragma once
// Randomness that gives the same numbers on every platform for a given seed: std::mt19937_64 is
// specified bit for bit, but the standard distributions are not, so we draw our own.
#include <cmath>
#include <cstdint>
#include <random>

namespace fitscale {

class SimRandom {
 public:
  explicit SimRandom(std::uint64_t seed) : engine_(seed) {}

  // Uniform in (0, 1]: 53 random bits, never zero (the exponential below takes its log).
  double uniform() { return (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53; }

  // Time to the next event of a Poisson process with `rate` per second; +inf for rate 0.
  double exponential(double rate) {
    if (rate <= 0) return INFINITY;
    return -std::log(uniform()) / rate;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace fitscale
