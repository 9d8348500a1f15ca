#!/usr/bin/env bash
# The java family's program (test/clients/README.md): kafka-clients 4.4.0 compiled by setup.sh.
#
#   bash test/clients/java/run.sh <scenario> <bootstrap>
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="$repo/.cache/clients/java"
classes="${TKAFKA_JAVA_CLASSES:-$cache/classes}"
if [ ! -f "$classes/.stamp" ] || [ ! -f "$cache/.complete" ]; then
  echo "java client is not set up: run bash test/clients/java/setup.sh" >&2
  exit 1
fi
exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -Xmx256m -Djava.awt.headless=true \
  -cp "$classes:$cache/lib/*" MatrixClient "$@"
