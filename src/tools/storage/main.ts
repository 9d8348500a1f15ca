// `tkafka storage`: kafka-storage.sh (kafka.tools.StorageTool): info, format, version-mapping,
// feature-dependencies, random-uuid, with argparse4j parsing and Kafka's messages and exit codes.
import { existsSync } from 'node:fs';
import type { ToolIO } from '../common/io.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import { loadServerConfig, type ServerConfig } from '../../config/load.js';
import { ConfigError } from '../../config/config-def.js';
import { javaStringHash } from '../../config/properties.js';
import {
  LATEST_PRODUCTION,
  LATEST_TESTING,
  bootstrapFeatureRecords,
  formatFeatureLevels,
  isKRaftSupported,
  isProduction,
  MINIMUM_BOOTSTRAP_VERSION,
  MINIMUM_FORMAT_HELP_VERSION,
  PRODUCTION_FEATURES,
  featureDependencyLines,
  featureDefaultLevel,
  metadataVersionFromLevel,
  metadataVersionFromString,
  type MetadataVersionInfo,
} from '../../config/features.js';
import {
  type BootstrapInfo,
  type DynamicVoter,
  type FormatStorageOptions,
  FormatterError,
  formatStorage,
  isDirectory,
} from '../../storage/formatter.js';
import {
  META_PROPERTIES_NAME,
  metaPropertiesSortedString,
  parseJavaInt,
  randomUuid,
  readMetaProperties,
  uuidFromString,
} from '../../storage/meta-properties.js';
import {
  featureLevelRecords,
  writeBootstrapCheckpointFile,
  writeDynamicQuorumSnapshot,
} from '../../storage/snapshot-file.js';
import { parseScramArguments } from '../../storage/scram-parser.js';
import { metadataRecord, RecordType } from '../../protocol/metadata-records.js';

/**
 * Writers that need the metadata record codec. Set them (e.g. from the broker's storage module)
 * before `run` to have `format` write bootstrap.checkpoint and the dynamic-quorum snapshot.
 */
export const storageHooks: Pick<FormatStorageOptions, 'writeBootstrapCheckpoint' | 'writeDynamicQuorumSnapshot'> = {};

/** StorageTool's TerseFailure: message on stderr, exit 1. */
class TerseFailure extends Error {}

/** An exception the JVM would report as uncaught: `Exception in thread "main" <class>: <msg>`. */
class Uncaught extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }
}

export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'kafka-storage',
    description: 'The Kafka storage tool.',
    fromFilePrefix: '@',
  });
  const sub = parser.addSubparsers({ dest: 'command' });
  const config = (p: ArgumentParser): void => {
    p.addArgument({ flags: ['--config', '-c'], required: true, help: 'The Kafka configuration file to use.' });
  };
  config(sub.addParser('info', { help: 'Get information about the Kafka log directories on this node.' }));
  const format = sub.addParser('format', { help: 'Format the Kafka log directories on this node.' });
  config(format);
  format.addArgument({ flags: ['--cluster-id', '-t'], required: true, help: 'The cluster ID to use.' });
  format.addArgument({
    flags: ['--add-scram', '-S'],
    action: 'append',
    help: 'A SCRAM_CREDENTIAL to add to the __cluster_metadata log e.g.\n\'SCRAM-SHA-256=[name=alice,password=alice-secret]\'\n\'SCRAM-SHA-512=[name=alice,iterations=8192,salt="N3E=",saltedpassword="YCE="]\'',
  });
  format.addArgument({
    flags: ['--ignore-formatted', '-g'],
    action: 'storeTrue',
    help: 'When this option is passed, the format command will skip over already formatted directories rather than failing.',
  });
  format.addArgument({
    flags: ['--release-version', '-r'],
    help: `The release version to use for the initial feature settings. The minimum is ${MINIMUM_FORMAT_HELP_VERSION}; the default is ${LATEST_PRODUCTION.version}`,
  });
  format.addArgument({
    flags: ['--feature', '-f'],
    action: 'append',
    help: 'The setting to use for a specific feature, in feature=level format. For example: `kraft.version=1`.',
  });
  const quorum = format.addMutuallyExclusiveGroup();
  quorum.addArgument({
    flags: ['--standalone', '-s'],
    action: 'storeTrue',
    help: 'Used to initialize a controller as a single-node dynamic quorum.',
  });
  quorum.addArgument({
    flags: ['--no-initial-controllers', '-N'],
    action: 'storeTrue',
    help: 'Used to initialize a server without a dynamic quorum topology.',
  });
  quorum.addArgument({
    flags: ['--initial-controllers', '-I'],
    help: 'Used to initialize a server with a specific dynamic quorum topology. The argument is a comma-separated list of id@hostname:port:directory. The same values must be used to format all nodes. For example:\n0@example.com:8082:JEXY6aqzQY-32P5TStzaFg,1@example.com:8083:MvDxzVmcRsaTz33bUuRU6A,2@example.com:8084:07R5amHmR32VDA6jHkGbTA\n',
  });
  const mapping = sub.addParser('version-mapping', {
    help: 'Look up the corresponding features for a given metadata version. Using the command with no --release-version  argument will return the mapping for the latest stable metadata version',
  });
  mapping.addArgument({
    flags: ['--release-version', '-r'],
    help: `The release version to use for the corresponding feature mapping. The minimum is ${MINIMUM_FORMAT_HELP_VERSION}; the default is ${LATEST_PRODUCTION.version}`,
  });
  const deps = sub.addParser('feature-dependencies', {
    help: 'Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.',
  });
  deps.addArgument({
    flags: ['--feature', '-f'],
    required: true,
    action: 'append',
    help: 'The features and their versions to look up dependencies for, in feature=version format. For example: `metadata.version=5`.',
  });
  sub.addParser('random-uuid', { help: 'Print a random UUID.' });
  return parser;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const parsed = parseOrExit(buildParser(), argv, io);
  if ('exitCode' in parsed) return parsed.exitCode;
  const out = (line: string): void => void io.stdout.write(line + '\n');
  try {
    return await execute(parsed.ns, io, out);
  } catch (e) {
    if (e instanceof TerseFailure || e instanceof FormatterError) {
      io.stderr.write(e.message + '\n');
    } else if (e instanceof ConfigError) {
      io.stderr.write(`Exception in thread "main" ${e.javaClass}: ${e.message}\n`);
    } else if (e instanceof Uncaught) {
      io.stderr.write(`Exception in thread "main" ${e.javaClass}: ${e.message}\n`);
    } else {
      io.stderr.write(`Exception in thread "main" java.lang.RuntimeException: ${(e as Error).message}\n`);
    }
    return 1;
  }
}

async function execute(ns: Namespace, io: ToolIO, out: (line: string) => void): Promise<number> {
  const command = ns.command as string;
  let config: ServerConfig | undefined;
  if (typeof ns.config === 'string') {
    const loaded = loadServerConfig({ file: ns.config });
    config = loaded.config;
    for (const w of loaded.warnings) {
      if (w.startsWith('inter.broker.protocol.version'))
        io.stderr.write(`[${log4jTime(new Date())}] WARN ${w} (kafka.server.KafkaConfig)\n`);
    }
  }
  switch (command) {
    case 'info':
      return infoCommand(out, config!.processRoles.length > 0, configToLogDirectories(config!));
    case 'format':
      await runFormatCommand(ns, config!, out);
      return 0;
    case 'version-mapping':
      versionMapping(ns.release_version as string | null, out);
      return 0;
    case 'feature-dependencies':
      featureDependencies((ns.feature as string[] | null) ?? [], out);
      return 0;
    case 'random-uuid':
      out(randomUuid());
      return 0;
    default:
      throw new Error(`Unknown command ${command}`);
  }
}

function log4jTime(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
}

/** log.dirs plus metadata.log.dir, de-duplicated and sorted (a Scala TreeSet). */
export function configToLogDirectories(config: ServerConfig): string[] {
  return [...new Set([...config.logDirs, config.metadataLogDir])].sort();
}

/** java.nio.file.Paths.get(dir).toString(): collapse repeated slashes, drop a trailing one. */
function javaPath(dir: string): string {
  const s = dir.replace(/\/{2,}/g, '/');
  return s.length > 1 && s.endsWith('/') ? s.slice(0, -1) : s;
}

/** StorageTool.infoCommand. */
export async function infoCommand(
  out: (line: string) => void,
  kraftMode: boolean,
  directories: string[],
): Promise<number> {
  const problems: string[] = [];
  const found: string[] = [];
  let prev: Awaited<ReturnType<typeof readMetaProperties>> = null;
  for (const directory of [...directories].sort()) {
    const path = javaPath(directory);
    if (!isDirectory(directory)) {
      problems.push(existsSync(directory) ? `${path} is not a directory` : `${path} does not exist`);
      continue;
    }
    found.push(path);
    const metaPath = `${path}/${META_PROPERTIES_NAME}`;
    if (!existsSync(metaPath)) {
      problems.push(`${path} is not formatted.`);
      continue;
    }
    try {
      const cur = await readMetaProperties(directory);
      if (!cur) continue;
      if (prev === null) prev = cur;
      else if (prev.clusterId !== cur.clusterId) problems.push('Mismatched cluster IDs between storage directories.');
      else if (prev.nodeId !== cur.nodeId) problems.push('Mismatched node IDs between storage directories.');
    } catch (e) {
      out(`java.lang.RuntimeException: ${(e as Error).message}`);
      problems.push(`Error loading ${metaPath}: ${(e as Error).message}`);
    }
  }
  if (prev !== null) {
    if (kraftMode && prev.version === 0) {
      problems.push(
        'The kafka configuration file appears to be for a cluster in KRaft mode, but the directories are formatted for legacy mode.',
      );
    } else if (!kraftMode && prev.version === 1) {
      problems.push(
        'The kafka configuration file appears to be for a legacy cluster, but the directories are formatted for a cluster in KRaft mode.',
      );
    }
  }
  if (directories.length === 0) {
    out('No directories specified.');
    return 0;
  }
  if (found.length) {
    out(found.length === 1 ? 'Found log directory:' : 'Found log directories:');
    for (const d of found) out(`  ${d}`);
    out('');
  }
  if (prev !== null) {
    out(`Found metadata: ${metaPropertiesSortedString(prev)}`);
    out('');
  }
  if (problems.length) {
    out(problems.length === 1 ? 'Found problem:' : 'Found problems:');
    for (const p of problems) out(`  ${p}`);
    out('');
    return 1;
  }
  return 0;
}

function releaseVersionOf(s: string): MetadataVersionInfo {
  try {
    return metadataVersionFromString(s);
  } catch (e) {
    throw new Uncaught('java.lang.IllegalArgumentException', (e as Error).message);
  }
}

function parseDynamicVoters(input: string): DynamicVoter[] {
  const voters: DynamicVoter[] = [];
  const bad = (msg: string): Uncaught => new Uncaught('java.lang.IllegalArgumentException', msg);
  for (const part of input.trim().split(',')) {
    if (part === '') continue;
    const s = part.trim();
    const at = s.indexOf('@');
    if (at < 0) throw bad('No @ found in dynamic voter string.');
    if (at === 0) throw bad('Invalid @ at beginning of dynamic voter string.');
    const nodeId = parseJavaInt(s.slice(0, at));
    if (nodeId === null) throw bad('Failed to parse node id in dynamic voter string.');
    if (nodeId < 0) throw bad(`Invalid negative node id ${nodeId} in dynamic voter string.`);
    let rest = s.slice(at + 1);
    if (rest === '') throw bad('No hostname found after node id.');
    let host: string;
    if (rest.startsWith('[')) {
      const end = rest.indexOf(']');
      if (end < 0) throw bad('Hostname began with left bracket, but no right bracket was found.');
      host = rest.slice(1, end);
      rest = rest.slice(end + 1);
    } else {
      const colon = rest.indexOf(':');
      if (colon < 0) throw bad('No colon following hostname could be found.');
      host = rest.slice(0, colon);
      rest = rest.slice(colon);
    }
    if (!rest.startsWith(':')) throw bad('Port section must start with a colon.');
    rest = rest.slice(1);
    const colon = rest.indexOf(':');
    if (colon < 0) throw bad('No colon following port could be found.');
    const port = parseJavaInt(rest.slice(0, colon));
    if (port === null) throw bad('Failed to parse port in dynamic voter string.');
    if (port < 0 || port > 65535) throw bad(`Invalid port ${port} in dynamic voter string.`);
    const directoryId = rest.slice(colon + 1);
    try {
      uuidFromString(directoryId);
    } catch {
      throw bad('Failed to parse directory ID in dynamic voter string.');
    }
    voters.push({ nodeId, host, port, directoryId });
  }
  if (voters.length === 0) throw bad('No voters given.');
  const ids = new Set<number>();
  for (const v of voters) {
    if (ids.has(v.nodeId)) throw bad(`Node id ${v.nodeId} was specified more than once.`);
    ids.add(v.nodeId);
  }
  return voters.sort((a, b) => a.nodeId - b.nodeId);
}

/** StorageTool.runFormatCommand. */
async function runFormatCommand(ns: Namespace, config: ServerConfig, out: (line: string) => void): Promise<void> {
  if (config.processRoles.length === 0) {
    throw new TerseFailure(
      'The kafka configuration file appears to be for a legacy cluster. Formatting is only supported for clusters in KRaft mode.',
    );
  }
  if (config.controllerListenerNames.length === 0)
    throw new Uncaught('java.util.NoSuchElementException', 'head of empty list');
  let releaseVersion: MetadataVersionInfo | undefined;
  if (typeof ns.release_version === 'string') releaseVersion = releaseVersionOf(ns.release_version);
  else if (config.originals.has('inter.broker.protocol.version'))
    releaseVersion = releaseVersionOf(config.getString('inter.broker.protocol.version')!);
  let initialControllers: DynamicVoter[] | undefined;
  if (typeof ns.initial_controllers === 'string') initialControllers = parseDynamicVoters(ns.initial_controllers);
  if (ns.standalone === true) {
    if (!config.isController) throw new TerseFailure('You can only use --standalone on a controller.');
    const listener = config.effectiveAdvertisedControllerListeners[0];
    if (!listener) throw new Error('No controller listeners found.');
    initialControllers = parseDynamicVoters(
      `${config.nodeId}@${listener.host ?? 'localhost'}:${listener.port}:${randomUuid()}`,
    );
  }
  if (
    ns.no_initial_controllers !== true &&
    config.isController &&
    config.quorumVoters.length === 0 &&
    !initialControllers
  ) {
    throw new TerseFailure(
      'Because controller.quorum.voters is not set on this controller, you must specify one of the following: --standalone, --initial-controllers, or --no-initial-controllers.',
    );
  }
  await formatStorage({
    config,
    clusterId: ns.cluster_id as string,
    ignoreFormatted: ns.ignore_formatted === true,
    bootstrap: (dynamic) =>
      bootstrapInfo(
        releaseVersion,
        featureNamesAndLevels((ns.feature as string[] | null) ?? []),
        config.getBoolean('unstable.feature.versions.enable'),
        dynamic,
        (ns.add_scram as string[] | null) ?? [],
      ),
    initialControllers,
    print: out,
    writeBootstrapCheckpoint:
      storageHooks.writeBootstrapCheckpoint ??
      ((dir, info) =>
        writeBootstrapCheckpointFile(dir, [
          ...featureLevelRecords(
            info.metadataVersion.level,
            info.featureRecords.map((f) => [f.name, f.level] as const),
          ),
          ...(info.scramRecords ?? []).map((r) => metadataRecord(RecordType.UserScramCredential, 0, r)),
        ])),
    writeDynamicQuorumSnapshot: storageHooks.writeDynamicQuorumSnapshot ?? writeDynamicQuorumSnapshot,
  });
}

/** StorageTool.featureNamesAndLevels (FeatureCommand.parseNameAndLevel's messages). */
function featureNamesAndLevels(args: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const input of args) {
    const i = input.indexOf('=');
    if (i < 0)
      throw new Uncaught(
        'java.lang.RuntimeException',
        `Can't parse feature=level string ${input}: equals sign not found.`,
      );
    const name = input.slice(0, i).trim();
    const levelString = input.slice(i + 1).trim();
    const level = /^[+-]?\d+$/.test(levelString) ? Number(levelString) : NaN;
    if (!Number.isInteger(level) || level < -32768 || level > 32767)
      throw new Uncaught(
        'java.lang.RuntimeException',
        `Can't parse feature=level string ${input}: unable to parse ${levelString} as a short.`,
      );
    out.set(name, level);
  }
  return out;
}

/**
 * Formatter's bootstrap metadata: the release version (--release-version or --feature
 * metadata.version=X; default latest production, or latest testing when unstable versions are
 * enabled), checked, and its feature levels (Formatter.calculateEffectiveFeatureLevels with the
 * --feature settings).
 */
function bootstrapInfo(
  releaseVersion: MetadataVersionInfo | undefined,
  requested: ReadonlyMap<string, number>,
  unstable: boolean,
  dynamic: boolean,
  scramArguments: string[],
): BootstrapInfo {
  let release = releaseVersion;
  const mvLevel = requested.get('metadata.version');
  if (mvLevel !== undefined) {
    if (release)
      throw new FormatterError('Use --release-version instead of --feature metadata.version=X to avoid ambiguity.');
    try {
      release = metadataVersionFromLevel(mvLevel);
    } catch {
      throw new FormatterError(`Unknown metadata.version feature level: ${mvLevel}`);
    }
  }
  const mv = release ?? (unstable ? LATEST_TESTING : LATEST_PRODUCTION);
  if (release) {
    if (!isKRaftSupported(mv)) throw new FormatterError(`metadata.version ${mv.version} is too old to be supported.`);
    if (!unstable && !isProduction(mv)) throw new FormatterError(`metadata.version ${mv.version} is not yet stable.`);
  }
  let featureLevels: Map<string, number>;
  try {
    featureLevels = formatFeatureLevels(mv, dynamic, requested);
  } catch (e) {
    throw new FormatterError((e as Error).message);
  }
  if (scramArguments.length && mv.level < 11)
    throw new FormatterError('SCRAM is only supported in metadata.version 3.5-IV2 or later.');
  return {
    metadataVersion: mv,
    featureLevels,
    featureRecords: bootstrapFeatureRecords(featureLevels),
    scramArguments,
    scramRecords: parseScramArguments(scramArguments),
  };
}

/** StorageTool.runVersionMappingCommand. */
function versionMapping(release: string | null, out: (line: string) => void): void {
  const releaseVersion = release ?? LATEST_PRODUCTION.version;
  let mv: MetadataVersionInfo;
  try {
    mv = metadataVersionFromString(releaseVersion);
  } catch {
    throw new TerseFailure(
      `Unknown release version '${releaseVersion}'. Supported versions are: ${MINIMUM_BOOTSTRAP_VERSION.version} to ${LATEST_PRODUCTION.version}`,
    );
  }
  out(`metadata.version=${mv.level} (${releaseVersion})`);
  for (const f of PRODUCTION_FEATURES) out(`${f.name}=${featureDefaultLevel(f, mv)}`);
}

/** StorageTool.runFeatureDependenciesCommand (eligible.leader.replicas.version=1 requires metadata.version 4.0-IV1). */
function featureDependencies(args: string[], out: (line: string) => void): void {
  for (const arg of args) {
    const parts = arg.split('=');
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    if (parts.length !== 2) {
      const hash = (javaStringHash(arg) >>> 0).toString(16);
      throw new Uncaught('scala.MatchError', `[Ljava.lang.String;@${hash} (of class [Ljava.lang.String;)`);
    }
    const [name, versionStr] = parts;
    const level =
      /^[+-]?\d+$/.test(versionStr) && Math.abs(Number(versionStr)) <= 32767 && Number(versionStr) >= -32768
        ? Number(versionStr)
        : null;
    if (level === null) throw new TerseFailure(`Invalid version format: ${versionStr} for feature ${name}`);
    if (name === 'metadata.version') {
      let mv: MetadataVersionInfo;
      try {
        mv = metadataVersionFromLevel(level);
      } catch {
        throw new TerseFailure(`Unknown metadata.version ${level}`);
      }
      out(`${name}=${level} (${mv.version}) has no dependencies.`);
      continue;
    }
    const feature = PRODUCTION_FEATURES.find((f) => f.name === name);
    if (!feature) throw new TerseFailure(`Unknown feature: ${name}`);
    if (!feature.levels.some(([l]) => l === level))
      throw new TerseFailure(`Feature level ${level} is not supported for feature ${name}`);
    for (const line of featureDependencyLines(name, level)) out(line);
  }
}
