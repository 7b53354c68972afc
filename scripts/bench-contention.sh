#!/usr/bin/env bash
# Compares table 4 (contention on guarded writes) of an earlier commit (default: the last one
# before per-plan locks) with the work tree, running the same bench program on both builds of
# the library in turn (old first in odd rounds, new first in even ones), so both see the same
# machine load. Each cell is the median of ROUNDS.
# Usage: scripts/bench-contention.sh [BASE_COMMIT] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-a9a23a4}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
rm -rf "$tmp/base/bench"
cp -r bench "$tmp/base/bench"
(cd bench && go build -o "$tmp/new" .)
(cd "$tmp/base/bench" && go build -o "$tmp/old" .)
for i in $(seq "$rounds"); do
  order="old new"
  if ((i % 2 == 0)); then order="new old"; fi
  for which in $order; do
    "$tmp/$which" -contention | sed "s/^/$which\t/"
  done
done | awk -F'\t' -v base="$base" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    key = $2 "\t" $3 "\t" $4
    if (!(key in seen)) { seen[key] = 1; order[++keys] = key }
    rate[$1, key] = rate[$1, key] " " $5
    conflicts[$1, key] = conflicts[$1, key] " " $6
    lost[$1, key] += $7
  }
  END {
    print "Table 4 on the work tree (medians):"
    print ""
    print "| Backend | Target | Goroutines | Writes/s | Conflicts per attempt | Lost updates |"
    print "| --- | --- | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= keys; i++) {
      k = order[i]; split(k, f, "\t")
      printf "| %s | %s | %s | %d | %.1f%% | %d |\n", f[1], f[2], f[3], median(rate["new", k]), median(conflicts["new", k]), lost["new", k]
    }
    print ""
    print "Before (" base ") and after:"
    print ""
    print "| Backend | Target | Goroutines | Before writes/s | After writes/s | After/before | Lost updates (before, after) |"
    print "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= keys; i++) {
      k = order[i]; split(k, f, "\t")
      o = median(rate["old", k]); w = median(rate["new", k])
      printf "| %s | %s | %s | %d | %d | %.2f | %d, %d |\n", f[1], f[2], f[3], o, w, (o > 0 ? w / o : 0), lost["old", k], lost["new", k]
    }
  }'
