"""Shared by the Python programs of the client matrix (test/clients/README.md, "The program contract").

A program is run as `<python> <program> <scenario> <bootstrap>`. exit 0: pass; exit 3: n/a (the
reason on stdout); anything else: fail (what went wrong on stderr).
"""

import base64
import json
import os
import random
import string
import sys
import time
import traceback

SCENARIOS = [
    'version',
    'metadata-named',
    'metadata-all',
    'admin-topics',
    'admin-configs',
    'produce-consume',
    'idempotent',
    'group-classic',
    'group-consumer',
    'transactions',
    'txn-v2',
    'list-offsets-time',
    'delete-records',
    'sasl-plain',
    'sasl-scram-256',
    'sasl-scram-512',
    'sasl-ssl-scram-512',
    'ssl-mtls',
    'sasl-oauthbearer',
]


def security():
    """The security settings the runner sets for a security scenario (README, "Security scenarios")."""
    s = {
        'protocol': os.environ.get('TKAFKA_MATRIX_SECURITY_PROTOCOL', ''),
        'mechanism': os.environ.get('TKAFKA_MATRIX_SASL_MECHANISM', ''),
        'username': os.environ.get('TKAFKA_MATRIX_SASL_USERNAME', ''),
        'password': os.environ.get('TKAFKA_MATRIX_SASL_PASSWORD', ''),
        'ca': os.environ.get('TKAFKA_MATRIX_CA_FILE', ''),
        'cert': os.environ.get('TKAFKA_MATRIX_CERT_FILE', ''),
        'key': os.environ.get('TKAFKA_MATRIX_KEY_FILE', ''),
    }
    if s['protocol'] == '':
        raise Fail('TKAFKA_MATRIX_SECURITY_PROTOCOL is not set (the runner sets it for a security scenario)')
    return s


def unsecured_jws(claims):
    """An unsecured JWS (RFC 7515 with alg none, no signature) of `claims`: the OAUTHBEARER token
    Kafka's default validator (OAuthBearerUnsecuredValidatorCallbackHandler) accepts."""
    def b64(o):
        return base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b'=').decode()
    return f'{b64({"alg": "none"})}.{b64(claims)}.'


def expired_jws(sub):
    """An unsecured JWS of `sub` that expired 10 minutes ago (the refused OAUTHBEARER client)."""
    now = int(time.time())
    return unsecured_jws({'sub': sub, 'iat': now - 3600, 'exp': now - 600})


def keyed_records(n=10):
    return [(f'k{i}'.encode(), f'v{i}'.encode()) for i in range(n)]

CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd']


class Fail(Exception):
    """The scenario ran and a check did not hold."""


class NotApplicable(Exception):
    """The family's API cannot express the scenario."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def expect_eq(actual, expected, what):
    if actual != expected:
        raise Fail(f'{what}: expected {expected!r}, got {actual!r}')


def name(family, scenario, extra=''):
    """A topic/group/transactional id: m-<family>-<scenario>-<random>[-extra]."""
    suffix = ''.join(random.choice(string.ascii_lowercase + string.digits) for _ in range(10))
    return f'm-{family}-{scenario}-{suffix}' + (f'-{extra}' if extra else '')


class Deadline:
    """Every wait of a scenario is bounded by one deadline (the contract allows 60 s in all)."""

    def __init__(self, seconds=50.0):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()

    def expired(self):
        return self.left() <= 0

    def wait_for(self, what, probe, interval=0.1, max_seconds=None):
        """Calls probe() until it returns a truthy value (returned); raises Fail when time runs out."""
        end = self.end if max_seconds is None else min(self.end, time.monotonic() + max_seconds)
        last = None
        attempts = 0
        while True:
            attempts += 1
            try:
                v = probe()
                if v:
                    return v
                last = None
            except Fail:
                raise
            except Exception as e:  # noqa: BLE001 - kept for the failure message
                last = e
            if time.monotonic() >= end or attempts > 100000:
                detail = f' (last error: {last!r})' if last is not None else ''
                raise Fail(f'timed out waiting for {what}{detail}')
            time.sleep(interval)


def main(family, scenarios):
    """Runs argv's scenario from `scenarios` ({id: fn(bootstrap, ids)}) and exits per the contract."""
    if len(sys.argv) != 3 and not (len(sys.argv) == 2 and sys.argv[1] == 'version'):
        print(f'usage: {os.path.basename(sys.argv[0])} <scenario> <bootstrap>', file=sys.stderr)
        sys.exit(2)
    scenario = sys.argv[1]
    bootstrap = sys.argv[2] if len(sys.argv) > 2 else ''
    fn = scenarios.get(scenario)
    if fn is None:
        print(f'unknown scenario {scenario!r} (known: {", ".join(SCENARIOS)})', file=sys.stderr)
        sys.exit(2)

    def ids(extra=''):
        return name(family, scenario, extra)

    try:
        fn(bootstrap, ids)
    except NotApplicable as e:
        print(f'n/a: {e}')
        sys.stdout.flush()
        os._exit(3)
    except Fail as e:
        print(f'{scenario}: {e}', file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)
    except BaseException:  # noqa: BLE001 - any error is a failure of the scenario
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit: client threads (librdkafka, kafka-python's IO thread) must not hold the exit up
    os._exit(0)
