// The client-matrix runner (test/clients/README.md): starts one tkafka broker and one Apache Kafka
// 4.4.0 broker, runs every family's program for every scenario against each (one run at a time, the
// two brokers alternately), prints family (version) × scenario → tkafka | Kafka 4.4.0, and writes
// the results JSON.
//
//   node dist/test/clients/run.js [--family a,b] [--scenario x,y] [--broker tkafka|kafka|both]
//                                 [--json path] [--timeout seconds] [--allow-missing]
//
// Exit status: 1 when a scenario passes on Kafka and does not pass on tkafka, or when a selected
// family could not be set up (unless --allow-missing); with a single broker, 1 when any run fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { boundPorts, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { FAMILIES, SCENARIO_FAMILIES, SCENARIOS, type Family, type Scenario } from './families.js';
import { makeCerts, type TestCerts } from '../helpers/certs.js';
import {
  createScramUsers,
  SASL_SERVER_CONFIG,
  SECURED_LISTENERS,
  SECURITY_SCENARIOS,
  securityEnv,
  tlsServerConfig,
} from './security.js';

/** The oracle's version: the runner always runs this one, whatever TKAFKA_KAFKA_VERSION says. */
export const ORACLE_VERSION = '4.4.0';

/** Broker settings both brokers run with, so tkafka and Kafka see the same configuration. */
export const BROKER_OVERRIDES: Record<string, string> = {
  'group.initial.rebalance.delay.ms': '0',
  // KIP-848 members heartbeat every second (Kafka's default of 5 s makes a reconciliation step take seconds)
  'group.consumer.heartbeat.interval.ms': '1000',
  'group.consumer.min.heartbeat.interval.ms': '1000',
  'auto.create.topics.enable': 'true',
  'num.partitions': '1',
  'offsets.topic.replication.factor': '1',
  'transaction.state.log.replication.factor': '1',
  'transaction.state.log.min.isr': '1',
};

export type BrokerName = 'tkafka' | 'kafka';
export type Status = 'pass' | 'fail' | 'n/a' | 'setup missing';

export interface Row {
  family: string;
  version: string;
  scenario: string;
  broker: BrokerName;
  status: Status;
  detail: string;
  ms: number;
  /** tkafka only, on a failure: the broker's WARN/ERROR lines logged during the run. */
  brokerLog?: string;
}

export interface FamilyResult {
  family: string;
  label: string;
  version: string;
  /** null when the family ran; else why it could not be set up. */
  missing: string | null;
}

export interface Difference {
  family: string;
  version: string;
  scenario: string;
  tkafka: Status;
  kafka: Status;
  detail: string;
}

export interface MatrixOptions {
  families?: string[];
  scenarios?: string[];
  brokers?: BrokerName[];
  jsonPath?: string;
  timeoutMs?: number;
  allowMissing?: boolean;
  /** Where progress lines go (default stderr). */
  log?: (line: string) => void;
}

export interface MatrixResult {
  rows: Row[];
  families: FamilyResult[];
  brokers: BrokerName[];
  /** Passes on Kafka, does not pass on tkafka: each one fails the run. */
  tkafkaOnlyFailures: Difference[];
  /** Passes on tkafka, fails on Kafka (interesting, does not fail the run). */
  kafkaOnlyFailures: Difference[];
  /** Fails on both (usually the program or the client library). */
  bothFail: Difference[];
  /** One row per family × scenario, a column per broker (markdown). */
  table: string;
  /** Per family: the security mechanisms that passed on each broker (markdown). */
  security: string;
  /** The same, compact: one row per family, one column per scenario, cells `tkafka / Kafka` (markdown). */
  grid: string;
  summary: string;
  exitCode: number;
  jsonPath: string;
}

export const DEFAULT_TIMEOUT_MS = 90_000;
/** Scenarios allowed longer than the default (txn-v2 runs 1,000 transactions). */
export const SCENARIO_TIMEOUT_MS: Readonly<Record<string, number>> = { 'txn-v2': 300_000 };
const DEFAULT_JSON = join(REPO_ROOT, '.cache', 'clients', 'results.json');

interface ProgramResult {
  status: Exclude<Status, 'setup missing'>;
  detail: string;
  stdout: string;
  ms: number;
}

function tail(text: string, lines: number, max = 300): string {
  const ls = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  return ls
    .slice(-lines)
    .map((l) => (l.length > max ? `${l.slice(0, max)}…` : l))
    .join('\n');
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is already gone
  }
}

/**
 * The process groups of the programs running now, killed when this process exits or is ended by
 * SIGINT, SIGTERM or SIGHUP (the signal is then re-raised when no one else handles it).
 */
const liveGroups = new Set<number>();
let hooksInstalled = false;
function trackGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  liveGroups.add(pid);
  if (hooksInstalled) return;
  hooksInstalled = true;
  const killAll = (): void => {
    for (const g of liveGroups) killGroup(g);
    liveGroups.clear();
  };
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAll();
      process.removeListener(sig, onSignal);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/**
 * Runs `<argv> <scenario> <bootstrap>` from the repo root in its own process group; kills the
 * group at the time-out (and after the program exits, so no helper process it left outlives it).
 */
export function runProgram(
  argv: string[],
  scenario: string,
  bootstrap: string,
  timeoutMs: number,
  extraEnv: Record<string, string> = {},
): Promise<ProgramResult> {
  const cmd = argv[0] === 'node' ? process.execPath : argv[0];
  const t0 = Date.now();
  return new Promise((resolvePromise) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const child = spawn(cmd, [...argv.slice(1), scenario, bootstrap], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TKAFKA_KAFKA_VERSION: ORACLE_VERSION, ...extraEnv },
    });
    const cap = (s: string, d: Buffer): string => {
      const t = s + d.toString();
      return t.length > 200_000 ? t.slice(-100_000) : t;
    };
    child.stdout.on('data', (d: Buffer) => (stdout = cap(stdout, d)));
    child.stderr.on('data', (d: Buffer) => (stderr = cap(stderr, d)));
    trackGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    const finish = (code: number | null, signal: string | null, spawnError?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      const ms = Date.now() - t0;
      let status: ProgramResult['status'];
      let detail: string;
      if (spawnError) {
        status = 'fail';
        detail = `cannot start ${cmd}: ${spawnError.message}`;
      } else if (timedOut) {
        status = 'fail';
        detail = `timeout (killed after ${Math.round(timeoutMs / 1000)} s)`;
        const t = tail(stderr, 3) || tail(stdout, 3);
        if (t) detail += `\n${t}`;
      } else if (code === 0) {
        status = 'pass';
        // a passing program's `report:` lines (figures it measured) are kept
        detail = stdout
          .split('\n')
          .filter((l) => l.startsWith('report: '))
          .join('\n');
      } else if (code === 3) {
        status = 'n/a';
        detail = tail(stdout, 2) || tail(stderr, 2);
      } else {
        status = 'fail';
        detail = `exit ${code ?? signal}`;
        const t = tail(stderr, 6) || tail(stdout, 6);
        if (t) detail += `\n${t}`;
      }
      resolvePromise({ status, detail, stdout, ms });
    };
    child.once('error', (e) => finish(null, null, e));
    // 'close' waits for the pipes: after 'exit', kill the group so a left-over child cannot hold them.
    child.once('exit', () => killGroup(child.pid));
    child.once('close', (code, signal) => finish(code, signal));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      s.destroy();
      res(false);
    }, 2000);
    s.once('connect', () => {
      clearTimeout(timer);
      s.destroy();
      res(true);
    });
    s.once('error', () => {
      clearTimeout(timer);
      res(false);
    });
  });
}

interface RunningBroker {
  name: BrokerName;
  bootstrap: string;
  port: number;
  /** `127.0.0.1:<port>` of each secured listener, by name (the security scenarios' bootstrap). */
  secured: () => Record<string, string>;
  /** Text the broker logged since `mark` (tkafka only). */
  logSince?: (mark: number) => string;
  logMark?: () => number;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * TKAFKA_MATRIX_REQUEST_LOG=1: tkafka runs with `tkafka.request.log=true` and each tkafka row's
 * detail lists the versions of the transaction APIs the scenario's client sent (e.g. whether a
 * client used transactions V2: EndTxn v5, Produce v12+).
 */
const REQUEST_LOG = process.env.TKAFKA_MATRIX_REQUEST_LOG === '1';
const TXN_APIS = new Set([
  'Produce',
  'InitProducerId',
  'AddPartitionsToTxn',
  'AddOffsetsToTxn',
  'EndTxn',
  'TxnOffsetCommit',
]);

/** "EndTxn v5 x1000, Produce v12 x1002, ..." from request-log lines. */
export function transactionApiSummary(log: string): string {
  const counts = new Map<string, number>();
  for (const m of log.matchAll(/\[request\] client=.*? api=(\w+) v(\d+) /g)) {
    if (!TXN_APIS.has(m[1]!)) continue;
    const k = `${m[1]} v${m[2]}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} x${n}`).join(', ');
}

async function startTkafka(certs: TestCerts): Promise<RunningBroker> {
  const overrides = REQUEST_LOG ? { ...BROKER_OVERRIDES, 'tkafka.request.log': 'true' } : BROKER_OVERRIDES;
  const secNames = Object.keys(SECURED_LISTENERS);
  const names = ['PLAINTEXT', 'CONTROLLER', ...secNames];
  const b: BrokerProcess = await startBroker({
    overrides: {
      ...overrides,
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': ['PLAINTEXT', ...secNames].map((n) => `${n}://127.0.0.1:0`).join(','),
      'listener.security.protocol.map': [
        'PLAINTEXT:PLAINTEXT',
        'CONTROLLER:PLAINTEXT',
        ...Object.entries(SECURED_LISTENERS).map(([n, p]) => `${n}:${p}`),
      ].join(','),
      ...SASL_SERVER_CONFIG,
      ...tlsServerConfig(certs),
    },
  });
  try {
    await createScramUsers(b.bootstrap);
  } catch (e) {
    await b.stop();
    b.cleanup();
    throw e;
  }
  // the ports of the last start (a restart may move them)
  const secured = (): Record<string, string> => {
    const out = b.output();
    const lines = [...out.matchAll(/Awaiting socket connections on/g)];
    const from = lines.length >= names.length ? lines[lines.length - names.length]!.index : 0;
    const ports = boundPorts(out.slice(from), names);
    return ports ? Object.fromEntries(secNames.map((n) => [n, `127.0.0.1:${ports.get(n)}`])) : {};
  };
  return {
    name: 'tkafka',
    bootstrap: b.bootstrap,
    port: b.port,
    secured,
    logMark: () => b.output().length,
    logSince: (mark) => b.output().slice(mark),
    restart: () => b.restart(),
    close: async () => {
      await b.stop();
      b.cleanup();
    },
  };
}

async function startKafka(certs: TestCerts): Promise<RunningBroker> {
  // apache-kafka.ts reads TKAFKA_KAFKA_VERSION when it loads: set it first, then import.
  process.env.TKAFKA_KAFKA_VERSION = ORACLE_VERSION;
  const mod = await import('../interop/helpers/apache-kafka.js');
  if (mod.KAFKA_VERSION !== ORACLE_VERSION) {
    throw new Error(`the interop helper was loaded for Kafka ${mod.KAFKA_VERSION}, the matrix needs ${ORACLE_VERSION}`);
  }
  const k = await mod.startApacheKafka({
    overrides: { ...BROKER_OVERRIDES, ...SASL_SERVER_CONFIG, ...tlsServerConfig(certs) },
    extraListeners: SECURED_LISTENERS,
  });
  try {
    await createScramUsers(k.bootstrap);
  } catch (e) {
    await k.cleanup();
    throw e;
  }
  return {
    name: 'kafka',
    bootstrap: k.bootstrap,
    port: k.port,
    secured: () =>
      Object.fromEntries(Object.keys(SECURED_LISTENERS).map((n) => [n, `127.0.0.1:${k.listenerPorts[n]}`])),
    restart: () => k.restart(),
    close: () => k.cleanup(),
  };
}

function parseList(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const COLUMN: Record<BrokerName, string> = { tkafka: 'tkafka', kafka: `Kafka ${ORACLE_VERSION}` };

function cell(s: Status | undefined): string {
  if (s === undefined) return '-';
  if (s === 'fail') return 'FAIL';
  return s;
}

function renderTable(families: FamilyResult[], scenarios: string[], brokers: BrokerName[], rows: Row[]): string {
  const lines: string[] = [];
  lines.push(`| family (version) | scenario | ${brokers.map((b) => COLUMN[b]).join(' | ')} |`);
  lines.push(`|---|---|${brokers.map(() => '---').join('|')}|`);
  for (const f of families) {
    if (f.missing !== null) {
      lines.push(`| ${f.family} | (all) | ${brokers.map(() => 'setup missing').join(' | ')} |`);
      continue;
    }
    for (const s of scenarios) {
      const st = brokers.map((b) =>
        cell(rows.find((r) => r.family === f.family && r.scenario === s && r.broker === b)?.status),
      );
      lines.push(`| ${f.family} (${f.version}) | ${s} | ${st.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

function renderGrid(families: FamilyResult[], scenarios: string[], brokers: BrokerName[], rows: Row[]): string {
  const lines: string[] = [];
  lines.push(`| family (version) | ${scenarios.join(' | ')} |`);
  lines.push(`|---|${scenarios.map(() => '---').join('|')}|`);
  for (const f of families) {
    if (f.missing !== null) {
      lines.push(`| ${f.family} | ${scenarios.map(() => 'setup missing').join(' | ')} |`);
      continue;
    }
    const cells = scenarios.map((s) => {
      const st = brokers.map((b) =>
        cell(rows.find((r) => r.family === f.family && r.scenario === s && r.broker === b)?.status),
      );
      return st.every((x) => x === st[0]) && st[0] === 'n/a' ? 'n/a' : st.join(' / ');
    });
    lines.push(`| ${f.family} (${f.version}) | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The security column: per family and broker, the labels of the security scenarios that passed. */
function renderSecurity(families: FamilyResult[], scenarios: string[], brokers: BrokerName[], rows: Row[]): string {
  const sec = scenarios.filter((s) => SECURITY_SCENARIOS[s]);
  if (sec.length === 0) return '';
  const lines: string[] = [];
  lines.push(`| family (version) | ${brokers.map((b) => `security on ${COLUMN[b]}`).join(' | ')} |`);
  lines.push(`|---|${brokers.map(() => '---').join('|')}|`);
  for (const f of families) {
    const cells = brokers.map((b) => {
      if (f.missing !== null) return 'setup missing';
      const parts = sec.map((s) => {
        const st = rows.find((r) => r.family === f.family && r.scenario === s && r.broker === b)?.status;
        const label = SECURITY_SCENARIOS[s]!.label;
        return st === 'pass' ? label : st === 'n/a' ? `(${label} n/a)` : `${label} ${cell(st)}`;
      });
      return parts.join(' ');
    });
    lines.push(`| ${f.family} (${f.version}) | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}

/** Runs the matrix; never throws for a failing program (only when a broker cannot start). */
export async function runMatrix(opts: MatrixOptions = {}): Promise<MatrixResult> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const brokersWanted: BrokerName[] = opts.brokers ?? ['tkafka', 'kafka'];
  const unknownFamilies = (opts.families ?? []).filter((n) => !FAMILIES.some((f) => f.name === n));
  if (unknownFamilies.length > 0) {
    throw new Error(`unknown family ${unknownFamilies.join(', ')} (known: ${FAMILIES.map((f) => f.name).join(', ')})`);
  }
  const unknownScenarios = (opts.scenarios ?? []).filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknownScenarios.length > 0) {
    throw new Error(`unknown scenario ${unknownScenarios.join(', ')} (known: ${SCENARIOS.join(', ')})`);
  }
  const families: Family[] = opts.families ? FAMILIES.filter((f) => opts.families!.includes(f.name)) : FAMILIES;
  const scenarios: string[] = opts.scenarios ? SCENARIOS.filter((s) => opts.scenarios!.includes(s)) : [...SCENARIOS];
  const jsonPath = opts.jsonPath ? resolve(opts.jsonPath) : DEFAULT_JSON;

  // Which families can run, and their versions (the `version` scenario needs no broker).
  const famResults: FamilyResult[] = [];
  for (const f of families) {
    const absent = f.needs.filter((p) => !existsSync(isAbsolute(p) ? p : join(REPO_ROOT, p)));
    if (absent.length > 0) {
      famResults.push({
        family: f.name,
        label: f.label,
        version: '',
        missing: `${absent.join(', ')} absent (run ${f.setup})`,
      });
      continue;
    }
    const v = await runProgram(f.argv, 'version', '127.0.0.1:9', timeoutMs);
    const version = tail(v.stdout, 1, 120);
    if (v.status !== 'pass' || version === '') {
      const why = v.status === 'pass' ? 'printed no version' : `${v.status}: ${v.detail}`;
      famResults.push({ family: f.name, label: f.label, version: '', missing: `\`version\` ${why} (run ${f.setup})` });
    } else {
      famResults.push({ family: f.name, label: f.label, version, missing: null });
    }
  }
  for (const f of famResults) {
    log(f.missing === null ? `family ${f.family}: ${f.version}` : `family ${f.family}: SETUP MISSING: ${f.missing}`);
  }

  const rows: Row[] = [];
  const runnable = famResults.filter((f) => f.missing === null);
  const brokers: RunningBroker[] = [];
  // the TLS listeners' certificates and the clients' CA / certificate / key files, made now (nothing committed)
  const certs = makeCerts();
  if (runnable.length > 0) {
    try {
      const started = await Promise.all(
        brokersWanted.map((b) => (b === 'tkafka' ? startTkafka(certs) : startKafka(certs))),
      );
      brokers.push(...started);
    } catch (e) {
      await Promise.all(brokers.map((b) => b.close().catch(() => undefined)));
      certs.cleanup();
      throw e;
    }
    for (const b of brokers) log(`${COLUMN[b.name]} serving on ${b.bootstrap}`);
  }
  try {
    for (const f of runnable) {
      const fam = families.find((x) => x.name === f.family)!;
      for (const s of scenarios) {
        const only = SCENARIO_FAMILIES[s as Scenario];
        if (only && !only.includes(f.family)) {
          for (const b of brokers) {
            const detail = `scenario run by ${only.join(', ')} only`;
            rows.push({
              family: f.family,
              version: f.version,
              scenario: s,
              broker: b.name,
              status: 'n/a',
              detail,
              ms: 0,
            });
          }
          continue;
        }
        for (const b of brokers) {
          const mark = b.logMark?.() ?? 0;
          const sec = SECURITY_SCENARIOS[s];
          const bootstrap = sec ? b.secured()[sec.listener] : b.bootstrap;
          const r = bootstrap
            ? await runProgram(
                fam.argv,
                s,
                bootstrap,
                Math.max(timeoutMs, SCENARIO_TIMEOUT_MS[s] ?? 0),
                sec ? securityEnv(sec, certs) : {},
              )
            : { status: 'fail' as const, detail: `no ${sec?.listener} listener port found`, stdout: '', ms: 0 };
          const row: Row = {
            family: f.family,
            version: f.version,
            scenario: s,
            broker: b.name,
            status: r.status,
            detail: r.detail,
            ms: r.ms,
          };
          if (REQUEST_LOG && b.logSince) {
            const summary = transactionApiSummary(b.logSince(mark));
            if (summary) row.detail += `${row.detail ? '\n' : ''}[requests] ${summary}`;
          }
          if (r.status === 'fail' && b.logSince) {
            const problems = b
              .logSince(mark)
              .split('\n')
              .filter((l) => /\b(ERROR|WARN|FATAL)\b|Error:|exception/i.test(l));
            if (problems.length > 0) row.brokerLog = tail(problems.join('\n'), 8, 400);
          }
          if (!(await portOpen(b.port))) {
            const note = `[${COLUMN[b.name]} broker stopped serving during this run; restarted]`;
            row.detail += `${row.detail ? '\n' : ''}${note}`;
            if (row.status === 'pass') row.status = 'fail';
            await b.restart();
          }
          rows.push(row);
          const more = row.detail ? `\n${indent(row.detail)}` : '';
          log(`${f.family} ${s} ${COLUMN[b.name]}: ${cell(row.status)} (${r.ms} ms)${more}`);
        }
      }
    }
  } finally {
    await Promise.all(brokers.map((b) => b.close().catch((e: Error) => log(`stopping ${b.name}: ${e.message}`))));
    certs.cleanup();
  }

  for (const f of famResults) {
    if (f.missing === null) continue;
    for (const s of scenarios) {
      for (const b of brokersWanted) {
        rows.push({
          family: f.family,
          version: '',
          scenario: s,
          broker: b,
          status: 'setup missing',
          detail: f.missing,
          ms: 0,
        });
      }
    }
  }

  const tkafkaOnlyFailures: Difference[] = [];
  const kafkaOnlyFailures: Difference[] = [];
  const bothFail: Difference[] = [];
  for (const f of runnable) {
    for (const s of scenarios) {
      const t = rows.find((r) => r.family === f.family && r.scenario === s && r.broker === 'tkafka');
      const k = rows.find((r) => r.family === f.family && r.scenario === s && r.broker === 'kafka');
      if (!t || !k) continue;
      const d = (detail: string): Difference => ({
        family: f.family,
        version: f.version,
        scenario: s,
        tkafka: t.status,
        kafka: k.status,
        detail,
      });
      if (k.status === 'pass' && t.status !== 'pass') {
        tkafkaOnlyFailures.push(d(t.detail + (t.brokerLog ? `\nbroker log:\n${t.brokerLog}` : '')));
      } else if (t.status === 'pass' && k.status === 'fail') {
        kafkaOnlyFailures.push(d(k.detail));
      } else if (t.status === 'fail' && k.status === 'fail') {
        bothFail.push(d(`tkafka: ${t.detail}\nKafka: ${k.detail}`));
      }
    }
  }

  const missing = famResults.filter((f) => f.missing !== null);
  const single = brokersWanted.length === 1;
  const singleFailures = single ? rows.filter((r) => r.status === 'fail') : [];
  const failed =
    tkafkaOnlyFailures.length > 0 || singleFailures.length > 0 || (missing.length > 0 && !opts.allowMissing);

  const table = renderTable(famResults, scenarios, brokersWanted, rows);
  const grid = renderGrid(famResults, scenarios, brokersWanted, rows);
  const security = renderSecurity(famResults, scenarios, brokersWanted, rows);
  const out: string[] = [];
  const listDiffs = (title: string, ds: Difference[]): void => {
    if (ds.length === 0) return;
    out.push('', title);
    for (const x of ds) out.push(`  ${x.family} (${x.version}) ${x.scenario}:`, indent(x.detail || '(no detail)'));
  };
  listDiffs('Passes on Kafka, not on tkafka (fails the run):', tkafkaOnlyFailures);
  listDiffs('Passes on tkafka, fails on Kafka (does not fail the run):', kafkaOnlyFailures);
  listDiffs('Fails on both brokers:', bothFail);
  if (single && singleFailures.length > 0) {
    out.push('', `Failures on ${COLUMN[brokersWanted[0]]} (a single broker: every failure fails the run):`);
    for (const r of singleFailures)
      out.push(`  ${r.family} (${r.version}) ${r.scenario}:`, indent(r.detail || '(no detail)'));
  }
  if (missing.length > 0) {
    out.push('', `Families that could not be set up${opts.allowMissing ? ' (--allow-missing: not counted)' : ''}:`);
    for (const m of missing) out.push(`  ${m.family}: ${m.missing}`);
  }
  const counts = (b: BrokerName): string => {
    const rs = rows.filter((r) => r.broker === b && r.status !== 'setup missing');
    const n = (st: Status): number => rs.filter((r) => r.status === st).length;
    return `${COLUMN[b]}: ${n('pass')} pass, ${n('fail')} FAIL, ${n('n/a')} n/a`;
  };
  out.push('', `${brokersWanted.map(counts).join('; ')}; ${missing.length} families not set up.`);
  out.push(failed ? 'client matrix: FAILED' : 'client matrix: ok');
  const summary = out.join('\n').replace(/^\n/, '');

  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(rows, null, 2)}\n`);

  return {
    rows,
    families: famResults,
    brokers: brokersWanted,
    tkafkaOnlyFailures,
    kafkaOnlyFailures,
    bothFail,
    table,
    grid,
    security,
    summary,
    exitCode: failed ? 1 : 0,
    jsonPath,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      family: { type: 'string' },
      scenario: { type: 'string' },
      broker: { type: 'string', default: 'both' },
      json: { type: 'string' },
      timeout: { type: 'string' },
      'allow-missing': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: node dist/test/clients/run.js [--family a,b] [--scenario x,y] [--broker tkafka|kafka|both]\n' +
        '                                     [--json path] [--timeout seconds] [--allow-missing]\n' +
        `families: ${FAMILIES.map((f) => f.name).join(', ')}\nscenarios: ${SCENARIOS.join(', ')}\n`,
    );
    return;
  }
  const broker = values.broker ?? 'both';
  if (!['tkafka', 'kafka', 'both'].includes(broker))
    throw new Error(`--broker must be tkafka, kafka or both, not ${broker}`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) throw new Error(`--timeout must be a positive number of seconds`);
  const r = await runMatrix({
    families: parseList(values.family),
    scenarios: parseList(values.scenario),
    brokers: broker === 'both' ? ['tkafka', 'kafka'] : [broker as BrokerName],
    jsonPath: values.json,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    allowMissing: values['allow-missing'],
  });
  const cols = r.brokers.map((b) => COLUMN[b]).join(' / ');
  process.stdout.write(
    `\n${r.table}\n\nThe same, cells ${cols}:\n\n${r.grid}\n\n` +
      (r.security ? `Security (mechanisms that passed):\n\n${r.security}\n\n` : '') +
      `${r.summary}\nresults: ${r.jsonPath}\n`,
  );
  process.exitCode = r.exitCode;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: Error) => {
    process.stderr.write(`client matrix: ${e.message}\n`);
    process.exitCode = 2;
  });
}
