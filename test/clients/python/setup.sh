#!/usr/bin/env bash
# Client matrix: the Python families (test/clients/README.md). Idempotent; everything lives in
# .cache/clients/venv. confluent-kafka's manylinux wheel bundles librdkafka; kafka-python's
# optional codecs (snappy, lz4, zstd) come from their PyPI packages so every codec can be tested.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
VENV="$ROOT/.cache/clients/venv"
STAMP="$VENV/.tkafka-requirements"
REQS=(
  'confluent-kafka>=2.15,<2.16'
  'kafka-python>=3.0,<3.1'
  'python-snappy>=0.7'
  'lz4>=4'
  'zstandard>=0.22'
)
WANT="$(printf '%s\n' "${REQS[@]}")"

if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
  exit 0
fi

PY="${PYTHON:-python3}"
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  # Debian's python3 ships venv/ensurepip separately
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
  fi
fi

mkdir -p "$ROOT/.cache/clients"
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade "${REQS[@]}"
"$VENV/bin/python" -c 'import confluent_kafka, kafka, snappy, lz4, zstandard'
printf '%s' "$WANT" >"$STAMP"
