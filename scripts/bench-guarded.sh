#!/usr/bin/env bash
# Compares BenchmarkGuardedWrite at HEAD with an earlier commit (default: the one before the
# storage-identity work), alternating the two builds so both see the same machine load.
# Usage: scripts/bench-guarded.sh [BASE_COMMIT] [ROUNDS] [FILTER] [BENCHTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e0b6a86}
rounds=${2:-6}
filter=${3:-.}
benchtime=${4:-2000x}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
cp store_bench_test.go "$tmp/base/"
go test -c -o "$tmp/new.test" . >/dev/null
(cd "$tmp/base" && go test -c -o "$tmp/old.test" . >/dev/null)
for i in $(seq "$rounds"); do
  for which in old new; do
    "$tmp/$which.test" -test.run '^$' -test.bench "^BenchmarkGuardedWrite\$/$filter" -test.benchtime "$benchtime" -test.benchmem |
      grep '^Benchmark' | sed "s/^/$which /"
  done
done | awk '
  { key=$2; ns[$1" "key]+=$4; n[$1" "key]++; keys[key]=1 }
  END {
    printf "%-36s %12s %12s %8s\n", "benchmark", "before ns/op", "after ns/op", "after/before"
    for (k in keys) {
      o=ns["old "k]/n["old "k]; w=ns["new "k]/n["new "k]
      printf "%-36s %12.0f %12.0f %8.2f\n", k, o, w, w/o
    }
  }'
