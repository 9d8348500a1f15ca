#!/usr/bin/env bash
# Provisions everything `npm test` needs on a fresh machine of this kind (Debian, root in CI), and
# is idempotent: a second run checks and returns in seconds (downloads are cached under .cache/).
#
#   bash scripts/provision.sh           # install what is missing (Debian packages only as root)
#   bash scripts/provision.sh --check   # install nothing: report what is missing, exit 1 if anything is
#
# 1. Debian packages the tests run (kcat, librdkafka and kafka-python for Python 3, man/groff for
#    the man pages, script/tmux/zsh/fish for terminal and completion tests, python3-venv for the
#    client matrix's virtualenv, e2fsprogs/mount for the loop-mounted ext4 of the storage-fault
#    tests, prometheus for the metrics endpoint's scrape test) and the toolchains (java + javac, mvn, go). As root, apt-get
#    installs the missing packages; as another user, this names them with the one command that
#    installs them and exits 1 (a test suite that skips what it cannot run is not a passing one).
# 2. As any user, into .cache/: Apache Kafka 4.4.0's jars from Maven Central (scripts/kafka-jars.sh)
#    and the client matrix (test/clients/setup.sh: Python clients in a venv from PyPI, kafka-clients
#    from Maven Central, Go modules, kafkajs/@platformatic/kafka and Node 24 from npm).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

say() { echo "provision: $*" >&2; }

# --- 1. Debian packages and toolchains --------------------------------------------------------
# Each entry: the Debian package, then the shell test that shows it is there.
packages=(
  "kcat|command -v kcat"
  "python3-kafka|/usr/bin/python3 -c 'import kafka'"
  "python3-confluent-kafka|/usr/bin/python3 -c 'import confluent_kafka'"
  "python3-venv|/usr/bin/python3 -c 'import venv, ensurepip'"
  "groff-base|command -v groff"
  "man-db|command -v man"
  "bsdutils|command -v script"
  "tmux|command -v tmux"
  "zsh|command -v zsh"
  "fish|command -v fish"
  "default-jdk-headless|command -v java && command -v javac"
  "maven|command -v mvn"
  # the fault-injection filesystem (test/helpers/fault-fs.ts): a loop-mounted ext4
  "e2fsprogs|command -v mkfs.ext4"
  "mount|command -v mount && command -v losetup"
  # a real Prometheus server scraping the broker's metrics endpoint (test/interop/prometheus-*.test.ts)
  "prometheus|command -v prometheus"
)
missing=()
for entry in "${packages[@]}"; do
  pkg="${entry%%|*}"
  probe="${entry#*|}"
  bash -c "$probe" >/dev/null 2>&1 || missing+=("$pkg")
done

# Go: the client matrix's go.mod needs the Go it names (Debian's golang-go is older), so it is the
# machine's Go (/usr/local/go here) and cannot be installed from Debian.
go_need="$(sed -n 's/^go \([0-9.]*\).*/\1/p' test/clients/go/go.mod)"
go_problem=""
if ! command -v go >/dev/null 2>&1; then
  go_problem="go (>= $go_need) is not on PATH"
else
  go_have="$(go env GOVERSION 2>/dev/null | sed 's/^go//')"
  if [ "$(printf '%s\n%s\n' "$go_need" "$go_have" | sort -V | head -n1)" != "$go_need" ]; then
    go_problem="go $go_have is older than the $go_need that test/clients/go/go.mod needs"
  fi
fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${missing[*]}"
    say "install them with:  sudo apt-get install -y ${missing[*]}"
    [ "$check_only" = 1 ] || say "(then run npm test again; as root, npm test installs them itself)"
    [ -z "$go_problem" ] || say "missing: $go_problem; install Go $go_need or later from go.dev and put it on PATH"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "Debian packages: all present"
fi
if [ -n "$go_problem" ]; then
  say "missing: $go_problem; install Go $go_need or later from go.dev and put it on PATH"
  exit 1
fi

# --- 2. Downloads into .cache/ (any user) -------------------------------------------------------
if [ "$check_only" = 1 ]; then
  problems=0
  if [ -f ".cache/kafka-4.4.0/.complete" ]; then
    say "Apache Kafka 4.4.0 jars: cached"
  else
    say "Apache Kafka 4.4.0 jars: not fetched yet (bash scripts/kafka-jars.sh)"
    problems=1
  fi
  for f in .cache/clients/venv/.tkafka-requirements .cache/clients/java/.complete .cache/clients/bin/go-clients.stamp \
    test/clients/node/node_modules/.tkafka-lock-sha256 .cache/clients/node24/bin/node; do
    if [ -e "$f" ]; then
      say "client matrix: $f present"
    else
      say "client matrix: $f missing (bash test/clients/setup.sh)"
      problems=1
    fi
  done
  [ "$problems" = 0 ] || say "npm test fetches these itself (PyPI, Maven Central, the Go module proxy, npm)"
  exit "$problems"
fi

# The client matrix's setup fetches Kafka's jars first, then every family; each step is cached.
bash test/clients/setup.sh
say "done"
