#!/usr/bin/env bash
# Installs what fitscale needs on a fresh Debian machine (idempotent), fetches the chart library
# from npm, and builds. Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
shift || true

PACKAGES=(build-essential cmake ninja-build ccache pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libssl-dev libsqlite3-dev libsimdjson-dev libyaml-cpp-dev libcli11-dev
  libspdlog-dev libfmt-dev libpugixml-dev libcpp-httplib-dev nlohmann-json3-dev
  nodejs npm prometheus chromium kubectl python3 openssl clang-format clang-tidy
  python3-kubernetes)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# kubectl, python3, node and npm may come from outside Debian's packages on this image: ask apt
# for them only when the command itself is missing.
filtered=()
for p in "${missing[@]}"; do
  case "$p" in
    kubectl|python3|npm) command -v "$p" >/dev/null 2>&1 && continue ;;
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
  esac
  filtered+=("$p")
done
if [ ${#filtered[@]} -gt 0 ]; then
  echo "setup: installing ${filtered[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${filtered[@]}" >/dev/null
fi

if [ ! -f web/node_modules/chart.js/dist/chart.umd.js ]; then
  (cd web && npm install --no-audit --no-fund --silent)
fi
# The official JavaScript Kubernetes client, for the e2e tests of the virtual cluster.
if [ ! -f tests/e2e/js/node_modules/@kubernetes/client-node/package.json ]; then
  (cd tests/e2e/js && npm install --no-audit --no-fund --silent)
fi

# Relative paths in ccache's keys, and the build folder left out of them (it is in the keys of
# -g builds otherwise): a fresh clone or worktree in another folder reuses the objects.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
