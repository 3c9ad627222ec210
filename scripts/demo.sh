#!/usr/bin/env bash
# The main job: set up, build, and replay a bundled week of a real research cluster
# (Microsoft Philly, days 42-48) through fitscale's controller in the simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
mkdir -p out
exec build/src/fitscale simulate --trace data/traces/philly-week.csv \
  --report-json out/report.json --report-html out/report.html "$@"
