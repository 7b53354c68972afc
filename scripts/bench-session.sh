#!/usr/bin/env bash
# Runs the session benchmark (bench -session) with a build of an earlier commit side by
# side: the session files of this tree are copied into that commit's bench folder, both
# binaries are built, and this build runs both sides in alternating order, printing one
# table.
# Usage: scripts/bench-session.sh [BASE_COMMIT] [ROUNDS] [extra bench flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-a9a23a4}
rounds=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
for f in bench/session*.go; do
  case "$f" in *_test.go) continue ;; esac
  cp "$f" "$tmp/base/bench/"
done
(cd bench && go build -o "$tmp/new" .)
(cd "$tmp/base/bench" && go build -o "$tmp/old" .)
"$tmp/new" -session -session-old "$tmp/old" -session-old-label "previous ($(git rev-parse --short "$base"))" \
  -session-rounds "$rounds" "$@"
