#!/usr/bin/env bash
# Checks and tests every Go module of the repository: gofmt, go vet, staticcheck, and
# go test -race. On a fresh machine it first installs what the tests use (redis-server,
# tmux, postgresql, chromium through apt-get; staticcheck through the Go module proxy) when
# it can; PLAN_TEST_NO_INSTALL=1 turns that off. It ends with the suites that ran, each
# skip with its reason, and one line "N passed, N failed, N skipped". Meanwhile it prints
# progress: a line when each step or module starts, and each module's result with its
# duration and, when it failed, the test packages that failed.
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
    echo "installing ${missing[*]} (apt-get, a few minutes on a fresh machine)"
    if $SUDO apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
      :
    else
      echo "could not install ${missing[*]}: the tests that need them skip (or fail under CI=true)"
    fi
  fi
  gobin=$(go env GOPATH)/bin
  if ! command -v staticcheck >/dev/null 2>&1 && [ ! -x "$gobin/staticcheck" ]; then
    echo "installing staticcheck (go install)"
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

# check_module vets, lints and tests one module; its output goes to the file $2.
check_module() (
  mod=$1 name=${1#./} st=0
  exec >"$2" 2>&1
  echo "== $name"
  cd "$root/$mod" || exit 1
  go vet ./... || st=1
  if command -v staticcheck >/dev/null 2>&1; then
    staticcheck ./... || st=1
  fi
  go test -race -count=1 -timeout 25m -json ./... 2>&1 | "$summary" -module "$name" -state "$state" || st=1
  exit $st
)

# Modules run PLAN_TEST_JOBS at a time (default 3): most of a module's time is spent
# waiting on servers, processes and timeouts, so two cores keep up with three. The
# longest modules start first; each module's output is printed whole when it ends.
# The race-instrumented dependencies are compiled once, first, so the concurrent
# modules find them in the build cache instead of each compiling them.
started=$(date +%s)
echo "compiling the race-instrumented dependencies once (the longest step on a fresh clone)"
go test -race -count=1 -run '^$' ./... >/dev/null 2>&1
echo "compiled in $(($(date +%s) - started))s"
first=". backends/redis bench board/browsertest compat/einoext backends/postgres cmd/planctl"
modules=$(for m in $first; do [ -f "$m/go.mod" ] && echo "./${m#./}"; done
  find . -name go.mod -not -path '*/testdata/*' -exec dirname {} \; | sort)
modules=$(echo "$modules" | awk '{sub("^\\./\\.$", "."); if (!seen[$0]++) print}')
jobs=${PLAN_TEST_JOBS:-3}
running=0 n=0
for mod in $modules; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  n=$((n + 1))
  flock "$work/print" echo ">> ${mod#./}: started"
  ( start=$(date +%s); check_module "$mod" "$work/log.$n"; rc=$?
    verdict=ok; [ "$rc" = 0 ] || verdict=FAILED
    flock "$work/print" sh -c 'cat "$1"; echo "<< $2: $3 in $4s"' _ "$work/log.$n" "${mod#./}" "$verdict" "$(($(date +%s) - start))"
    echo $rc >"$work/rc.$n" ) &
  running=$((running + 1))
done
wait
for rc in "$work"/rc.*; do
  [ "$(cat "$rc")" = 0 ] || status=1
done
[ "$(ls "$work"/rc.* | wc -l)" -eq "$n" ] || status=1
"$summary" -final -state "$state" || status=1
exit $status
