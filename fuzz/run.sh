#!/bin/sh
# Runs one libFuzzer target (docs/CONTRIBUTING.md, "Fuzzing") on seeds from the project's real
# files: fuzz/run.sh TARGET [SECONDS]. Needs the clang build:
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz-clang -G Ninja -DFITSCALE_FUZZ=ON \
#     -DFITSCALE_TESTS=OFF -DFITSCALE_BENCH=OFF && ninja -C build-fuzz-clang TARGET
# The corpus grows in BUILD/fuzz-corpus/TARGET; crashes, leaks and timeouts are written to
# BUILD/fuzz-artifacts/TARGET/ and reproduce with `BUILD/fuzz/TARGET FILE`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz-clang}
target=$1
seconds=${2:-180}
seeds=$build/fuzz-seeds/$target
corpus=$build/fuzz-corpus/$target
artifacts=$build/fuzz-artifacts/$target
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$artifacts"

case $target in
  trace_fuzz)
    head -n 300 "$root/data/traces/philly-week.csv" > "$seeds/philly-300.csv"
    cp "$root"/tests/data/traces/three_jobs.csv "$root"/tests/data/traces/spot_sample.csv \
       "$root"/tests/data/traces/malformed.csv "$seeds/" ;;
  catalog_fuzz)
    # The header, the first CPU types and every GPU type: all columns, a file a mutation can cover.
    { head -n 100 "$root/data/aws-us-east-1.csv"; grep -E '^(p3|g4dn|g5)\.' "$root/data/aws-us-east-1.csv"; } \
      > "$seeds/aws-us-east-1-part.csv"
    cp "$root/tests/data/traces/one_gpu_catalog.csv" "$seeds/" ;;
  config_fuzz)
    cp "$root/examples/config.yaml" "$root"/fuzz/seeds/config/*.yaml "$seeds/" ;;
  kube_objects_fuzz)
    cp "$root"/tests/data/*.json "$root/tests/data/manifests.yaml" "$root/examples/cluster.json" "$seeds/" ;;
  kube_api_fuzz)
    cp "$root"/tests/data/*.json "$seeds/" ;;
  kubeconfig_fuzz)
    cp "$root"/fuzz/seeds/kubeconfig/* "$seeds/" ;;
  aws_xml_fuzz)
    cp "$root"/fuzz/seeds/aws_xml/* "$seeds/" ;;
  redact_fuzz)
    cp "$root"/fuzz/seeds/redact/* "$seeds/" ;;
  manifests_fuzz)
    cp "$root"/fuzz/seeds/manifests/* "$seeds/" ;;
  *)
    echo "unknown target $target" >&2
    exit 2 ;;
esac

# -jobs=1 runs the fuzzer in a child that logs to fuzz-0.log in the current directory.
cd "$artifacts"
exec "$build/fuzz/$target" -max_total_time="$seconds" -jobs=1 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict="$root/fuzz/values.dict" -artifact_prefix="$artifacts/" "$corpus" "$seeds"
