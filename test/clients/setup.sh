#!/usr/bin/env bash
# Sets up the client matrix (test/clients/README.md): Apache Kafka 4.4.0's jars (the oracle broker)
# and every family, by running each test/clients/*/setup.sh that exists. Each is idempotent and
# caches under .cache/, so a second run takes seconds. Every script is run even when an earlier one
# fails; then, if any failed, this exits 1 naming them (the matrix must not run half set up).
#
#   bash test/clients/setup.sh
set -uo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"

failed=()
step() {
  local name="$1"
  shift
  local t0=$SECONDS
  echo "client matrix setup: $name" >&2
  if "$@"; then
    echo "client matrix setup: $name ok ($((SECONDS - t0)) s)" >&2
  else
    echo "client matrix setup: $name FAILED (exit $?)" >&2
    failed+=("$name")
  fi
}

step "Apache Kafka 4.4.0 jars" env TKAFKA_KAFKA_VERSION=4.4.0 bash scripts/kafka-jars.sh
for s in test/clients/*/setup.sh; do
  [ -f "$s" ] || continue
  step "$s" bash "$s"
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "client matrix setup: ERROR: ${#failed[@]} step(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "client matrix setup: done" >&2
