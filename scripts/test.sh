#!/usr/bin/env bash
# Vets and tests every Go module in the repository, with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi
status=0
for mod in $(find . -name go.mod -not -path '*/testdata/*' -exec dirname {} \; | sort); do
  echo "== $mod"
  (cd "$mod" && go vet ./... && go test -race -count=1 ./...) || status=1
done
exit $status
