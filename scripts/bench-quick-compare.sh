#!/usr/bin/env bash
# Runs `go run . -quick` of the bench module at an earlier commit and at the work tree,
# alternating the two builds ROUNDS times so both see the same machine load, and prints one
# table of the Store and tool columns of tables 3a, 3b and 5 before and after (medians of
# the rounds). Usage: scripts/bench-quick-compare.sh [BASE_COMMIT] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-55c8287}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base/bench" && GOWORK=off go build -o "$tmp/old" .)
(cd bench && go build -o "$tmp/new" .)
for i in $(seq "$rounds"); do
  for which in old new; do
    (cd "$tmp" && "./$which" -quick 2>/dev/null) > "$tmp/$which.$i.md"
  done
done
awk '
  function num(s,   v) {  # "10.4 µs" -> nanoseconds
    v = s; gsub(/[ ,]/, "", v)
    if (v ~ /ns$/) return v + 0
    if (v ~ /µs$/) return (v + 0) * 1e3
    if (v ~ /ms$/) return (v + 0) * 1e6
    if (v ~ /s$/) return (v + 0) * 1e9
    return -1
  }
  FNR == 1 { which = (FILENAME ~ /old/) ? "old" : "new"; section = "" }
  /^### 3a/ { section = "Memory" } /^### 3b/ { section = "Local" } /^### 5\./ { section = "BeforeAgent" }
  /^### [^35]/ && !/^### 3[ab]/ { section = "" }
  section != "" && /^\| *[0-9,]+ *\|/ {
    split($0, c, "|")
    for (k in c) gsub(/^ +| +$/, "", c[k])
    if (section == "BeforeAgent") { key = "BeforeAgent " c[2] " " c[3] " plans"; add(which, key " (plan)", num(c[4])); next }
    add(which, section " " c[2] " " c[3] " (Store)", num(c[4]))
    add(which, section " " c[2] " " c[3] " (tool)", num(c[5]))
  }
  function add(w, k, v) { if (v < 0) return; n = ++cnt[w, k]; val[w, k, n] = v; if (!(k in seen)) { seen[k] = ++order; keys[order] = k } }
  function median(w, k,   n, i, j, t, a) {
    n = cnt[w, k]; for (i = 1; i <= n; i++) a[i] = val[w, k, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? a[int((n + 1) / 2)] : 0
  }
  function show(ns) { if (ns >= 1e6) return sprintf("%.2f ms", ns / 1e6); if (ns >= 1e3) return sprintf("%.1f µs", ns / 1e3); return sprintf("%.0f ns", ns) }
  END {
    print "| Operation | before | after | after ÷ before |"
    print "| --- | ---: | ---: | ---: |"
    for (i = 1; i <= order; i++) {
      k = keys[i]; o = median("old", k); w = median("new", k)
      if (o > 0 && w > 0) printf "| %s | %s | %s | %.2f× |\n", k, show(o), show(w), w / o
    }
  }' "$tmp"/old.*.md "$tmp"/new.*.md
