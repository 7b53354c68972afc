#!/usr/bin/env bash
# Checks and tests every Go module of the repository: gofmt, go vet, staticcheck, and
# go test -race. On a fresh machine it first installs what the tests use (redis-server,
# tmux, postgresql, chromium through apt-get; staticcheck through the Go module proxy) when
# it can; PLAN_TEST_NO_INSTALL=1 turns that off. It ends with the suites that ran, each
# skip with its reason, and one line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# PostgreSQL's binaries live in a versioned folder that is not on PATH.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

if [ "${PLAN_TEST_NO_INSTALL:-}" != "1" ]; then
  missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  { command -v initdb >/dev/null 2>&1 || [ -n "$(pg_bin)" ]; } || missing+=(postgresql)
  { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
    echo "installing ${missing[*]}"
    if $SUDO apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
      :
    else
      echo "could not install ${missing[*]}: the tests that need them skip (or fail under CI=true)"
    fi
  fi
  gobin=$(go env GOPATH)/bin
  if ! command -v staticcheck >/dev/null 2>&1 && [ ! -x "$gobin/staticcheck" ]; then
    echo "installing staticcheck"
    GOFLAGS= go install honnef.co/go/tools/cmd/staticcheck@v0.8.2 >/dev/null 2>&1 || echo "could not install staticcheck"
  fi
  export PATH="$PATH:$gobin"
fi
[ -n "$(pg_bin)" ] && export PATH="$PATH:$(pg_bin)"

status=0
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; status=1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=$work/testsummary state=$work/state
go build -o "$summary" ./scripts/testsummary || exit 1
for mod in $(find . -name go.mod -not -path '*/testdata/*' -exec dirname {} \; | sort); do
  name=${mod#./}
  echo "== $name"
  cd "$root/$mod" || { status=1; continue; }
  go vet ./... || status=1
  if command -v staticcheck >/dev/null 2>&1; then
    staticcheck ./... || status=1
  fi
  go test -race -count=1 -json ./... 2>&1 | "$summary" -module "$name" -state "$state" || status=1
  cd "$root"
done
"$summary" -final -state "$state" || status=1
exit $status
