#!/usr/bin/env bash
# Builds the Go families of the client matrix (test/clients/README.md) with the machine's Go:
# franz-go (+ kadm) into .cache/clients/bin/franz-client and sarama into
# .cache/clients/bin/sarama-client. Modules come from the Go module proxy into
# .cache/clients/go/mod; the build is skipped when neither the sources nor Go changed.
# TKAFKA_GO_BIN=<dir> builds them into <dir> instead of .cache/clients/bin (a worktree sharing .cache
# with another checkout; the runner's families.ts reads the same variable).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="$root/.cache/clients"
bin="${TKAFKA_GO_BIN:-$cache/bin}"
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
mkdir -p "$bin" "$cache/go"

if ! command -v go >/dev/null 2>&1; then
  echo "go/setup.sh: no go on PATH" >&2
  exit 1
fi

export GOMODCACHE="$cache/go/mod"
export GOCACHE="$cache/go/build"
# go.sum is committed: the build neither edits go.mod nor trusts a module it does not list.
export GOFLAGS="-mod=readonly -modcacherw"
export CGO_ENABLED=0

stamp="$bin/go-clients.stamp"
want="$(
  cd "$here"
  go version
  find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs sha256sum
)"
if [[ -x "$bin/franz-client" && -x "$bin/sarama-client" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "go clients: up to date ($bin)"
  exit 0
fi

cd "$here"
go build -trimpath -o "$bin/franz-client.new" ./franz
go build -trimpath -o "$bin/sarama-client.new" ./sarama
mv -f "$bin/franz-client.new" "$bin/franz-client"
mv -f "$bin/sarama-client.new" "$bin/sarama-client"
printf '%s' "$want" >"$stamp"
echo "go clients: $("$bin/franz-client" version); $("$bin/sarama-client" version)"
