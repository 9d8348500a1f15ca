#!/usr/bin/env bash
# Client matrix program for kcat (Debian's kcat and librdkafka): `client.sh <scenario> <bootstrap>`.
# See test/clients/README.md for the scenarios and the exit codes (0 pass, 3 n/a, other fail).
#
# kcat has no admin API: topics are auto-created by producing, except where a partition count is
# part of the scenario (metadata-named: 3, group-classic: 4); those are created with
# `bin/tkafka topics --create`, which speaks the same CreateTopics to either broker.
# kcat -P cannot set a record's timestamp: the timestamps checked are the producer's CreateTime.
set -uo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: client.sh <scenario> <bootstrap>" >&2
  exit 2
fi
SCENARIO=$1
BOOTSTRAP=${2:-}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/m-kcat.XXXXXX")"
PIDS=()
START=$SECONDS
LIMIT=55 # seconds for the whole scenario

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "$SCENARIO: $*" >&2
  exit 1
}

na() {
  echo "n/a: $*"
  exit 3
}

left() {
  echo $((LIMIT - (SECONDS - START)))
}

# `id [extra]`: m-kcat-<scenario>-<random>[-extra]
id() {
  local r
  r="$(tr -dc 'a-z0-9' </dev/urandom | head -c 10)"
  echo "m-kcat-$SCENARIO-$r${1:+-$1}"
}

# kcat against the bootstrap; every call bounded
k() {
  local t
  t=$(left)
  if ((t < 1)); then
    fail "out of time"
  fi
  timeout "$t" kcat -b "$BOOTSTRAP" -X broker.address.family=v4 -m 10 "$@"
}

now_ms() {
  date +%s%3N
}

create_topic() {
  "$ROOT/bin/tkafka" topics --bootstrap-server "$BOOTSTRAP" --create --topic "$1" --partitions "$2" \
    --replication-factor 1 >"$WORK/create.out" 2>&1 || fail "creating $1: $(cat "$WORK/create.out")"
}

# `wait_partitions topic n`: until kcat -L -t topic shows n partitions, each with a leader
wait_partitions() {
  local i out led
  for ((i = 0; i < 200; i++)); do
    out="$(k -L -t "$1" 2>/dev/null)"
    led=$(grep -cE '^ +partition [0-9]+, leader [0-9]+,' <<<"$out")
    if [[ "$led" == "$2" ]] && grep -q "topic \"$1\" with $2 partitions" <<<"$out"; then
      return 0
    fi
    if (($(left) < 2)); then
      break
    fi
    sleep 0.1
  done
  fail "topic $1 never showed $2 led partitions: $out"
}

# `consume topic partition fmt`: from the beginning to the end of the partition
consume() {
  k -C -t "$1" -p "$2" -o beginning -e -q -f "$3" || fail "consuming $1 [$2] failed (exit $?)"
}

# --- scenarios ---------------------------------------------------------------------------------

s_version() {
  local v
  v="$(kcat -V 2>&1 | grep -m1 '^Version')"
  [[ "$v" =~ ^Version\ ([^ ]+)\ .*librdkafka\ ([^ ]+) ]] || fail "cannot parse: $v"
  echo "kcat ${BASH_REMATCH[1]} (librdkafka ${BASH_REMATCH[2]})"
}

s_metadata_named() {
  local t out p
  t=$(id)
  create_topic "$t" 3
  wait_partitions "$t" 3
  out="$(k -L -t "$t")" || fail "kcat -L -t failed"
  local brokers
  brokers=$(grep -oE '^ +broker [0-9]+ at ' <<<"$out" | awk '{print $2}')
  [[ -n "$brokers" ]] || fail "no brokers listed: $out"
  for p in 0 1 2; do
    local line leader
    line=$(grep -E "^ +partition $p, leader " <<<"$out") || fail "partition $p missing: $out"
    leader=$(sed -E 's/.*leader ([0-9-]+),.*/\1/' <<<"$line")
    grep -qx "$leader" <<<"$brokers" || fail "partition $p leader $leader not among brokers: $out"
    grep -qE "replicas: ([0-9]+,)*$leader(,|$| )" <<<"$line" || fail "partition $p leader not a replica: $line"
  done
  [[ $(grep -cE '^ +partition [0-9]+,' <<<"$out") == 3 ]] || fail "expected 3 partitions: $out"
}

s_metadata_all() {
  local t out
  t=$(id)
  echo "x" | k -P -t "$t" || fail "producing to $t (auto-creation) failed"
  out="$(k -L)" || fail "kcat -L failed"
  grep -q "topic \"$t\" with 1 partitions" <<<"$out" || fail "$t not listed: $out"
  grep -qE '^ +broker [0-9]+ at ' <<<"$out" || fail "no brokers listed"
}

s_produce_consume() {
  local codec t i base
  for codec in none gzip snappy lz4 zstd; do
    t=$(id "$codec")
    : >"$WORK/in"
    : >"$WORK/want"
    for ((i = 0; i < 100; i++)); do
      local v
      v="$codec-value-$(printf %03d $i)-abcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefgh"
      echo "key-$i:$v" >>"$WORK/in"
      echo "$i|key-$i|$v|h1=one,h2=two-$codec" >>"$WORK/want"
    done
    local before after
    before=$(now_ms)
    k -P -t "$t" -p 0 -z "$codec" -K : -H h1=one -H "h2=two-$codec" -X acks=all -X linger.ms=20 -l "$WORK/in" \
      2>"$WORK/perr" || fail "$codec: produce failed: $(cat "$WORK/perr")"
    after=$(now_ms)
    consume "$t" 0 '%o|%k|%s|%h|%T\n' >"$WORK/got"
    cut -d'|' -f1-4 "$WORK/got" >"$WORK/got4"
    diff -q "$WORK/want" "$WORK/got4" >/dev/null ||
      fail "$codec: records differ: $(diff "$WORK/want" "$WORK/got4" | head -5)"
    awk -F'|' -v lo="$before" -v hi="$after" '$5 < lo || $5 > hi { bad++ } END { exit bad > 0 }' "$WORK/got" ||
      fail "$codec: timestamps outside the produce window [$before, $after]: $(head -2 "$WORK/got")"
    local create
    create=$(k -C -t "$t" -p 0 -o beginning -e -q -J | grep -c '"tstype":"create"')
    [[ "$create" == 100 ]] || fail "$codec: $create of 100 records have CreateTime"
  done
  echo "note: kcat -P cannot set timestamps; checked the producer's CreateTime"
}

s_idempotent() {
  local t
  t=$(id)
  seq 0 999 >"$WORK/in"
  k -P -t "$t" -p 0 -X enable.idempotence=true -X acks=all -X linger.ms=5 -X batch.num.messages=50 \
    -l "$WORK/in" 2>"$WORK/perr" || fail "produce failed: $(cat "$WORK/perr")"
  consume "$t" 0 '%o %s\n' >"$WORK/got"
  paste -d' ' <(seq 0 999) <(seq 0 999) >"$WORK/want"
  diff -q "$WORK/want" "$WORK/got" >/dev/null ||
    fail "read back differs ($(wc -l <"$WORK/got") records): $(diff "$WORK/want" "$WORK/got" | head -5)"
}

# the partitions a kcat -G member holds now, from its last "rebalanced" line (empty when revoked)
held() {
  local last
  last=$(grep -E '^% Group .* rebalanced ' "$1" | tail -1)
  if [[ "$last" == *"assigned:"* ]]; then
    grep -oE '\[[0-9]+\]' <<<"${last#*assigned:}" | tr -d '[]' | sort -n | tr '\n' ' '
  fi
}

s_group_classic() {
  local t g m
  t=$(id)
  g=$(id g)
  create_topic "$t" 4
  wait_partitions "$t" 4
  local opts=(-X auto.offset.reset=earliest -X session.timeout.ms=10000 -X heartbeat.interval.ms=500
    -X partition.assignment.strategy=range -f '%p %o %s\n' -u)
  for m in 0 1; do
    kcat -b "$BOOTSTRAP" -X broker.address.family=v4 -G "$g" "$t" "${opts[@]}" >"$WORK/m$m.out" 2>"$WORK/m$m.err" &
    PIDS+=($!)
  done
  local i h0 h1
  for ((i = 0; ; i++)); do
    h0=$(held "$WORK/m0.err")
    h1=$(held "$WORK/m1.err")
    if [[ -n "$h0" && -n "$h1" && "$(echo $h0 $h1 | tr ' ' '\n' | sort -n | tr '\n' ' ')" == "0 1 2 3 " ]]; then
      break
    fi
    if ((i > 1000 || $(left) < 20)); then
      fail "members never shared the 4 partitions: [$h0] [$h1]; $(tail -3 "$WORK/m0.err" "$WORK/m1.err")"
    fi
    sleep 0.05
  done
  [[ ! -s "$WORK/m0.out" && ! -s "$WORK/m1.out" ]] || fail "records before any were produced"
  local p
  for p in 0 1 2 3; do
    seq -f "p$p-%g" 0 9 | k -P -t "$t" -p "$p" || fail "producing to partition $p failed"
  done
  for ((i = 0; ; i++)); do
    if (($(cat "$WORK/m0.out" "$WORK/m1.out" | wc -l) >= 40)); then
      break
    fi
    if ((i > 1000 || $(left) < 12)); then
      fail "members consumed $(cat "$WORK/m0.out" "$WORK/m1.out" | wc -l) of 40 records"
    fi
    sleep 0.05
  done
  for m in 0 1; do
    local hm
    hm=$(held "$WORK/m$m.err")
    while read -r part off val; do
      [[ " $hm" == *" $part "* ]] || fail "member $m got a record of partition $part, holding [$hm]"
      [[ "$val" == "p$part-$off" ]] || fail "member $m: partition $part offset $off has value $val"
    done <"$WORK/m$m.out"
  done
  cat "$WORK/m0.out" "$WORK/m1.out" | awk '{print $1, $2}' | sort -n -k1,1 -k2,2 >"$WORK/seen"
  for p in 0 1 2 3; do seq -f "$p %g" 0 9; done >"$WORK/want"
  diff -q "$WORK/want" "$WORK/seen" >/dev/null ||
    fail "consumed (partition, offset)s differ: $(diff "$WORK/want" "$WORK/seen" | head -5)"
  # SIGTERM: kcat closes its consumer, which commits the consumed offsets and leaves the group
  kill -TERM "${PIDS[0]}" "${PIDS[1]}"
  for m in 0 1; do
    for ((i = 0; ; i++)); do
      kill -0 "${PIDS[$m]}" 2>/dev/null || break
      if ((i > 300 || $(left) < 8)); then
        fail "member $m did not exit after SIGTERM"
      fi
      sleep 0.05
    done
  done
  for p in 0 1 2 3; do
    seq -f "p$p-%g" 10 11 | k -P -t "$t" -p "$p" || fail "producing to partition $p failed"
  done
  # a new member resumes from the committed offsets: it gets the 8 new records only
  k -G "$g" "$t" "${opts[@]}" -e -q >"$WORK/late.out" 2>"$WORK/late.err" ||
    fail "new member failed: $(tail -3 "$WORK/late.err")"
  awk '{print $1, $2}' "$WORK/late.out" | sort -n -k1,1 -k2,2 >"$WORK/seen"
  for p in 0 1 2 3; do seq -f "$p %g" 10 11; done >"$WORK/want"
  diff -q "$WORK/want" "$WORK/seen" >/dev/null ||
    fail "new member's records differ (re-delivery?): $(diff "$WORK/want" "$WORK/seen" | head -5)"
}

s_group_consumer() {
  if kcat -X list 2>&1 | grep -qE '^group\.protocol +\|'; then
    fail "this librdkafka has group.protocol: the scenario should be written"
  fi
  na "kcat's librdkafka ($(kcat -V 2>&1 | grep -oE 'librdkafka [0-9.]+')) has no KIP-848 consumer (no group.protocol)"
}

s_list_offsets_time() {
  local t i
  t=$(id)
  # three records, each produced by its own kcat process: three increasing CreateTimes
  for i in 0 1 2; do
    echo "v$i" | k -P -t "$t" -p 0 -X linger.ms=0 || fail "producing v$i failed"
  done
  consume "$t" 0 '%o %T %s\n' >"$WORK/got"
  local t0 t1 t2
  read -r t0 t1 t2 <<<"$(awk '{print $2}' "$WORK/got" | tr '\n' ' ')"
  [[ "$(awk '{print $1, $3}' "$WORK/got" | tr '\n' ' ')" == "0 v0 1 v1 2 v2 " ]] || fail "records: $(cat "$WORK/got")"
  ((t0 < t1 && t1 < t2)) || fail "timestamps not increasing: $t0 $t1 $t2"
  local out
  out="$(k -Q -t "$t:0:$t1")" || fail "kcat -Q failed"
  [[ "$out" == "$t [0] offset 1" ]] || fail "offset for $t1: $out"
  out="$(k -Q -t "$t:0:$((t0 + 1))")" || fail "kcat -Q failed"
  [[ "$out" == "$t [0] offset 1" ]] || fail "offset for t0+1: $out"
  out="$(k -Q -t "$t:0:-2")" || fail "kcat -Q earliest failed"
  [[ "$out" == "$t [0] offset 0" ]] || fail "earliest: $out"
  out="$(k -Q -t "$t:0:-1")" || fail "kcat -Q latest failed"
  [[ "$out" == "$t [0] offset 3" ]] || fail "latest: $out"
  # the consumer starting at a timestamp
  out="$(k -C -t "$t" -p 0 -o "s@$t1" -e -q -f '%o %s\n')" || fail "consuming from s@$t1 failed"
  [[ "$out" == $'1 v1\n2 v2' ]] || fail "consumed from s@$t1: $out"
  echo "note: kcat -P cannot set timestamps; used the producer's CreateTimes $t0 $t1 $t2"
}

# Security scenarios: the runner's TKAFKA_MATRIX_* settings as librdkafka properties (`-X`).
security_args() {
  [[ -n "${TKAFKA_MATRIX_SECURITY_PROTOCOL:-}" ]] || fail "TKAFKA_MATRIX_SECURITY_PROTOCOL is not set"
  SEC=(-X "security.protocol=$TKAFKA_MATRIX_SECURITY_PROTOCOL")
  if [[ "${TKAFKA_MATRIX_SASL_MECHANISM:-}" == OAUTHBEARER ]]; then
    SEC+=(-X sasl.mechanisms=OAUTHBEARER -X enable.sasl.oauthbearer.unsecure.jwt=true)
  elif [[ -n "${TKAFKA_MATRIX_SASL_MECHANISM:-}" ]]; then
    SEC+=(-X "sasl.mechanisms=$TKAFKA_MATRIX_SASL_MECHANISM" -X "sasl.username=$TKAFKA_MATRIX_SASL_USERNAME")
  fi
  if [[ -n "${TKAFKA_MATRIX_CA_FILE:-}" ]]; then
    SEC+=(-X "ssl.ca.location=$TKAFKA_MATRIX_CA_FILE")
  fi
  # GOOD: the right password, token or the client certificate; BAD: a wrong password, a token
  # without sub or no certificate
  if [[ "${TKAFKA_MATRIX_SASL_MECHANISM:-}" == OAUTHBEARER ]]; then
    # librdkafka's built-in unsecured JWS (sub = the principal, exp in an hour); the refused one
    # puts the principal in another claim (azp), so that its token has no sub
    GOOD=(-X "sasl.oauthbearer.config=principal=$TKAFKA_MATRIX_SASL_USERNAME")
    BAD=(-X "sasl.oauthbearer.config=principalClaimName=azp principal=$TKAFKA_MATRIX_SASL_USERNAME")
    REFUSAL='authentication'
  elif [[ -n "${TKAFKA_MATRIX_SASL_MECHANISM:-}" ]]; then
    GOOD=(-X "sasl.password=$TKAFKA_MATRIX_SASL_PASSWORD")
    BAD=(-X "sasl.password=${TKAFKA_MATRIX_SASL_PASSWORD}-wrong")
    REFUSAL='authentication'
  else
    GOOD=(-X "ssl.certificate.location=$TKAFKA_MATRIX_CERT_FILE" -X "ssl.key.location=$TKAFKA_MATRIX_KEY_FILE")
    BAD=()
    REFUSAL='ssl|certificate|handshake'
  fi
}

# librdkafka before 2.6.1 repeats the client nonce in its SCRAM client-final message; Kafka 4.x
# compares the nonce strictly (RFC 5802) and refuses it (librdkafka#4895), so a broker of today must
# refuse even the right password from it
rdkafka_version() { kcat -V 2>&1 | grep -oE 'librdkafka version [0-9.]+' | awk '{print $3}'; }
version_lt() { [[ "$1" != "$2" && "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" == "$1" ]]; }

# through the secured listener: 10 keyed records to an auto-created topic and back; a wrong password fails
s_security() {
  local t i out expected v
  security_args
  t=$(id)
  v="$(rdkafka_version)"
  if [[ "${TKAFKA_MATRIX_SASL_MECHANISM:-}" == SCRAM-* ]] && version_lt "$v" 2.6.1; then
    if timeout 30 kcat -b "$BOOTSTRAP" -X broker.address.family=v4 -m 10 "${SEC[@]}" "${GOOD[@]}" \
      -L -t "$t" >"$WORK/old.out" 2>"$WORK/old.err"; then
      fail "librdkafka $v's SCRAM (nonce repeated, librdkafka#4895) was accepted; Kafka 4.x refuses it"
    fi
    grep -qiE authentication "$WORK/old.err" ||
      fail "librdkafka $v's SCRAM failed, but not with an authentication error: $(tail -3 "$WORK/old.err")"
    echo "report: librdkafka $v's SCRAM refused as Kafka 4.x refuses it (nonce repeated, librdkafka#4895)"
    return 0
  fi
  for ((i = 0; i < 10; i++)); do echo "k$i:v$i"; done >"$WORK/in"
  k "${SEC[@]}" "${GOOD[@]}" -P -t "$t" -K : -X acks=all -l "$WORK/in" \
    2>"$WORK/p.err" || fail "producing to $t failed: $(tail -3 "$WORK/p.err")"
  out="$(k "${SEC[@]}" "${GOOD[@]}" -C -t "$t" -p 0 -o beginning -e -q \
    -f '%k:%s\n' 2>"$WORK/c.err")" || fail "consuming $t failed: $(tail -3 "$WORK/c.err")"
  expected="$(cat "$WORK/in")"
  [[ "$out" == "$expected" ]] || fail "read back: $out"
  # a wrong password / a token without sub / no client certificate: the metadata request must fail
  # with librdkafka's error
  if timeout 30 kcat -b "$BOOTSTRAP" -X broker.address.family=v4 -m 10 "${SEC[@]}" "${BAD[@]}" \
    -L -t "$t" >"$WORK/bad.out" 2>"$WORK/bad.err"; then
    fail "the refused client listed the metadata: $(head -3 "$WORK/bad.out")"
  fi
  grep -qiE "$REFUSAL" "$WORK/bad.err" ||
    fail "the refused client failed, but not with an authentication/TLS error: $(tail -3 "$WORK/bad.err")"
  echo "report: refused: $(grep -iE -m1 "$REFUSAL" "$WORK/bad.err" | cut -c1-200)"
}

case "$SCENARIO" in
  version) s_version ;;
  metadata-named) s_metadata_named ;;
  metadata-all) s_metadata_all ;;
  admin-topics) na "kcat has no admin API (no CreateTopics/DescribeConfigs/DeleteTopics)" ;;
  admin-configs) na "kcat has no admin API (no DescribeConfigs/AlterConfigs)" ;;
  produce-consume) s_produce_consume ;;
  idempotent) s_idempotent ;;
  group-classic) s_group_classic ;;
  group-consumer) s_group_consumer ;;
  transactions)
    na "kcat can only produce all its input in one transaction: no consume-transform-produce" \
      "(sendOffsetsToTransaction), no abort"
    ;;
  list-offsets-time) s_list_offsets_time ;;
  delete-records) na "kcat has no admin API (no DeleteRecords)" ;;
  sasl-plain | sasl-scram-256 | sasl-scram-512 | sasl-ssl-scram-512 | ssl-mtls | sasl-oauthbearer) s_security ;;
  *) fail "unknown scenario" ;;
esac
exit 0
