#!/usr/bin/env bash
# clang-format and clang-tidy over the C++ sources (the configuration is .clang-format and
# .clang-tidy at the top). Usage: scripts/lint.sh [BUILD_DIR]   (default build/; it needs that
# folder's compile_commands.json, so build first). Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

mapfile -t all < <(git ls-files '*.cpp' '*.h')
echo "lint: clang-format on ${#all[@]} files" >&2
clang-format --dry-run --Werror "${all[@]}"

# clang-tidy on every translation unit of src/ (headers are checked through them by the
# HeaderFilterRegex); tests, benchmarks and fuzz targets are checked by clang-format only.
mapfile -t units < <(git ls-files 'src/*.cpp')
echo "lint: clang-tidy on ${#units[@]} files" >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%s\n' "${units[@]}" |
  xargs -P"$(nproc)" -n4 clang-tidy -p "$BUILD_DIR" --quiet --warnings-as-errors='*' >"$out" 2>&1 ||
  { grep -E "(warning|error):" "$out" | sort -u; echo "lint: clang-tidy found the above" >&2; exit 1; }
echo "lint: clean" >&2
