#!/usr/bin/env bash
# Builds another revision's gateway for a side-by-side benchmark and prints the
# binary's path: its sources checked out in .build-baseline-src/, built once into
# .build-baseline/ (release), so that the next run with the same revision is quick.
#
#   bench/build-baseline.sh <git revision>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
revision="${1:?usage: bench/build-baseline.sh <git revision>}"
source_dir="$root/.build-baseline-src"
rm -rf "$source_dir"
git -C "$root" archive "$revision" | (mkdir -p "$source_dir" && tar -x -C "$source_dir")
swift build --package-path "$source_dir" --scratch-path "$root/.build-baseline" -c release --product pushgate \
    >/dev/null 2>&1 || { echo "the release build of $revision failed" >&2; exit 1; }
echo "$root/.build-baseline/release/pushgate"
