#!/usr/bin/env bash
# Client matrix: kcat from Debian (built on the distribution's librdkafka). Idempotent.
set -euo pipefail
if command -v kcat >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kcat
command -v kcat >/dev/null
