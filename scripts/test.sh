#!/usr/bin/env bash
# Set up, build, lint (clang-format, clang-tidy), and run every test: unit and end-to-end (ctest),
# then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
# clang-format and clang-tidy (.clang-format, .clang-tidy) before the tests: a finding fails the run.
scripts/lint.sh build
(cd build && ctest --output-on-failure -j2 --timeout 300)
if [ "${FITSCALE_SKIP_SANITIZE:-0}" != 1 ]; then
  scripts/setup.sh build-asan -DFITSCALE_SANITIZE=ON -DFITSCALE_BENCH=OFF
  (cd build-asan && ctest --output-on-failure -j2 --timeout 600 -L unit)
fi
