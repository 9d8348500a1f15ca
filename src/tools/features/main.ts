// `tkafka features`: kafka-features.sh (org.apache.kafka.tools.FeatureCommand): describe the
// supported and finalized feature levels (ApiVersions), upgrade/downgrade/disable them
// (UpdateFeatures), and the offline version-mapping / feature-dependencies look-ups.
// `describe` also takes --output json|table.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import { CONNECTION_HELP, openClient, resolveBootstrap, type ResolvedBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { OUTPUT_HELP, parseOutputFormat } from '../common/output.js';

const ENV_NOTE =
  ' (tkafka: optional when TKAFKA_BOOTSTRAP_SERVER is set or a profile is active; precedence: flag > environment > profile)';

export function buildFeaturesParser(connectionRequired = true, latest = '4.0-IV0'): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'kafka-features',
    description: 'This tool manages feature flags in Kafka.',
    epilog: CONNECTION_HELP,
  });
  const group = parser.addMutuallyExclusiveGroup({ required: connectionRequired });
  group.addArgument({
    flags: ['--bootstrap-server'],
    help:
      'A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster.' +
      ENV_NOTE,
  });
  group.addArgument({
    flags: ['--bootstrap-controller'],
    help: 'A comma-separated list of host:port pairs to use for establishing the connection to the KRaft quorum.',
  });
  parser.addArgument({
    flags: ['--command-config'],
    help: 'Property file containing configs to be passed to Admin Client.',
  });
  parser.addArgument({ flags: ['--debug'], action: 'storeTrue', help: 'tkafka: show stack traces on errors.' });
  const sub = parser.addSubparsers({ dest: 'command' });
  const describe = sub.addParser('describe', { help: 'Describes the current active feature flags.' });
  describe.addArgument({
    flags: ['--node-id'],
    type: 'int',
    help: 'The node id to which the requests should be sent. If not specified, the requests will be sent to an arbitrary controller/broker.',
  });
  describe.addArgument({
    flags: ['--output', '-o'],
    choices: ['text', 'json', 'table'],
    help: `tkafka: ${OUTPUT_HELP}`,
  });
  for (const [name, help, verb] of [
    ['upgrade', 'Upgrade one or more feature flags.', 'upgrade'],
    ['downgrade', 'Downgrade one or more feature flags.', 'downgrade'],
  ] as const) {
    const p = sub.addParser(name, { help });
    p.addArgument({
      flags: ['--metadata'],
      help: `DEPRECATED -- The level to which we should ${verb} the metadata. For example, ${verb === 'upgrade' ? '3.3-IV3' : '3.3-IV0'}.`,
    });
    p.addArgument({
      flags: ['--release-version'],
      help: `The release version to ${verb === 'upgrade' ? 'update' : 'downgrade'} all features to. For example, 3.9-IV0 will set metadata.version=21 and kraft.version=1. Use the version-mapping command to learn which features will be set for any given version.`,
    });
    p.addArgument({
      flags: ['--feature'],
      action: 'append',
      help: `A feature ${verb} we should perform, in feature=level format. For example: \`metadata.version=5\`.`,
    });
    if (verb === 'downgrade')
      p.addArgument({
        flags: ['--unsafe'],
        action: 'storeTrue',
        help: 'Perform this downgrade even if it may irreversibly destroy metadata.',
      });
    p.addArgument({ flags: ['--dry-run'], action: 'storeTrue', help: `Validate this ${verb}, but do not perform it.` });
  }
  const disable = sub.addParser('disable', {
    help: 'Disable one or more feature flags. This is the same as downgrading the version to zero.',
  });
  disable.addArgument({ flags: ['--feature'], action: 'append', help: 'A feature flag to disable.' });
  disable.addArgument({
    flags: ['--unsafe'],
    action: 'storeTrue',
    help: 'Disable this feature flag even if it may irreversibly destroy metadata.',
  });
  disable.addArgument({
    flags: ['--dry-run'],
    action: 'storeTrue',
    help: 'Perform a dry-run of this disable operation.',
  });
  const mapping = sub.addParser('version-mapping', {
    help: 'Look up the corresponding features for a given metadata version. Using the command with no --release-version  argument will return the mapping for the latest stable metadata version',
  });
  mapping.addArgument({
    flags: ['--release-version'],
    help: `The release version to use for the corresponding feature mapping. The minimum is 3.0-IV0; the default is ${latest}`,
  });
  const deps = sub.addParser('feature-dependencies', {
    help: 'Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.',
  });
  deps.addArgument({
    flags: ['--feature'],
    required: true,
    action: 'append',
    help: 'The feature and version to look up dependencies for, in feature=version format. For example: `metadata.version=5`.',
  });
  return parser;
}

class TerseError extends Error {}

/** Kafka 4.4's MetadataVersion names above the levels tkafka's broker knows (a 4.4 cluster reports them). */
const NEWER_METADATA_VERSIONS: Record<number, string> = {
  26: '4.1-IV0',
  27: '4.1-IV1',
  28: '4.2-IV0',
  29: '4.2-IV1',
  30: '4.3-IV0',
  31: '4.4-IV0',
  32: '4.4-IV1',
  33: '4.4-IV2',
  34: '4.5-IV0',
};

function levelToString(feature: string, level: number, fromLevel: (l: number) => { version: string }): string {
  if (feature !== 'metadata.version') return String(level);
  try {
    return fromLevel(level).version;
  } catch {
    return NEWER_METADATA_VERSIONS[level] ?? `UNKNOWN ${level}`;
  }
}

function parseNameAndLevel(input: string): [string, number] {
  const i = input.indexOf('=');
  if (i < 0) throw new TerseError(`Can't parse feature=level string ${input}: equals sign not found.`);
  const name = input.slice(0, i).trim();
  const level = input.slice(i + 1).trim();
  if (!/^[+-]?\d+$/.test(level) || Math.abs(Number(level)) > 32767) {
    throw new TerseError(`Can't parse feature=level string ${input}: unable to parse ${level} as a short.`);
  }
  return [name, Number(level)];
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let fallback: ResolvedBootstrap | null;
  try {
    fallback = await resolveBootstrap(null, io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const features = await import('../../config/features.js');
  const parsed = parseOrExit(buildFeaturesParser(fallback === null, features.LATEST_PRODUCTION.version), argv, io, 1);
  if ('exitCode' in parsed) return parsed.exitCode;
  const ns: Namespace = parsed.ns;
  const debug = ns.debug === true;
  const out = (l: string): void => void io.stdout.write(l + '\n');
  let client: KafkaClient | null = null;
  try {
    const server = ns.bootstrap_server as string | null | undefined;
    const controller = ns.bootstrap_controller as string | null | undefined;
    const bootstrap =
      server != null
        ? { value: server, source: 'flag' as const }
        : controller != null
          ? { value: controller, source: 'flag' as const }
          : fallback!;
    client = await openClient({ bootstrap, commandConfig: ns.command_config as string | undefined });
    switch (ns.command) {
      case 'describe':
        await describe(
          client,
          io,
          parseOutputFormat(ns.output as string | undefined),
          features.metadataVersionFromLevel,
          (ns.node_id as number | null | undefined) ?? undefined,
        );
        return 0;
      case 'upgrade':
      case 'downgrade':
      case 'disable':
        return await update(client, ns, io, features);
      case 'version-mapping': {
        const release = (ns.release_version as string | undefined) ?? features.LATEST_PRODUCTION.version;
        let mv;
        try {
          mv = features.metadataVersionFromString(release);
          if (mv.level < 1) throw new Error('not KRaft');
        } catch {
          throw new TerseError(
            `Unknown release version '${release}'. Supported versions are: ${features.MINIMUM_BOOTSTRAP_VERSION.version} to ${features.LATEST_PRODUCTION.version}`,
          );
        }
        out(`metadata.version=${mv.level} (${release})`);
        for (const f of features.PRODUCTION_FEATURES) out(`${f.name}=${features.featureDefaultLevel(f, mv)}`);
        return 0;
      }
      case 'feature-dependencies': {
        for (const spec of (ns.feature as string[] | undefined) ?? []) {
          const [name, level] = parseNameAndLevel(spec);
          if (name === 'metadata.version') {
            let mv;
            try {
              mv = features.metadataVersionFromLevel(level);
            } catch {
              throw new TerseError(`Unknown metadata.version ${level}`);
            }
            out(`${name}=${level} (${mv.version}) has no dependencies.`);
            continue;
          }
          const f = features.PRODUCTION_FEATURES.find((x) => x.name === name);
          if (!f) throw new TerseError(`Unknown feature: ${name}`);
          if (!f.levels.some(([l]) => l === level))
            throw new TerseError(`No feature:${name} with feature level ${level}`);
          for (const line of features.featureDependencyLines(name, level)) out(line);
        }
        return 0;
      }
      default:
        throw new TerseError(`Unknown command ${String(ns.command)}`);
    }
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}

async function describe(
  client: KafkaClient,
  io: ToolIO,
  format: string,
  fromLevel: (l: number) => { version: string },
  nodeId?: number,
): Promise<void> {
  // FeatureCommand.handleDescribe (4.4): --node-id sends the ApiVersions to that node
  if (nodeId !== undefined && nodeId < 0) throw new TerseError(`Invalid node id ${nodeId}: must be non-negative.`);
  const { describeFeatures } = await import('../../client/admin/cluster.js');
  const fm = await describeFeatures(client, nodeId);
  const rows = [...fm.supported.keys()].sort().map((feature) => {
    const range = fm.supported.get(feature)!;
    const finalized = fm.finalized.get(feature) ?? 0;
    return {
      feature,
      supportedMinVersion: range.minVersion,
      supportedMaxVersion: range.maxVersion,
      finalizedVersionLevel: finalized,
      epoch: fm.finalizedEpoch,
      text: [
        levelToString(feature, range.minVersion, fromLevel),
        levelToString(feature, range.maxVersion, fromLevel),
        levelToString(feature, finalized, fromLevel),
      ],
    };
  });
  const { writeJson, writeTable } = await import('../common/output.js');
  if (format === 'json') {
    writeJson(io, {
      features: rows.map((r) => ({
        name: r.feature,
        supportedMinVersion: r.supportedMinVersion,
        supportedMaxVersion: r.supportedMaxVersion,
        finalizedVersionLevel: r.finalizedVersionLevel,
        epoch: r.epoch,
        ...(r.feature === 'metadata.version'
          ? { supportedMinRelease: r.text[0], supportedMaxRelease: r.text[1], finalizedRelease: r.text[2] }
          : {}),
      })),
    });
  } else if (format === 'table') {
    await writeTable(
      io,
      ['FEATURE', 'SUPPORTED MIN', 'SUPPORTED MAX', 'FINALIZED', 'EPOCH'],
      rows.map((r) => [r.feature, ...r.text, r.epoch === null ? '-' : r.epoch]),
    );
  } else {
    for (const r of rows) {
      // Kafka 4.4: "Feature: %-40s  SupportedMinVersion: %-15s  SupportedMaxVersion: %-15s  FinalizedVersionLevel: %-15s  Epoch: %s%n".
      const [lo, hi, fin] = r.text.map((x) => String(x).padEnd(15));
      io.stdout.write(
        `Feature: ${r.feature.padEnd(40)}  SupportedMinVersion: ${lo}  SupportedMaxVersion: ${hi}  FinalizedVersionLevel: ${fin}  ` +
          `Epoch: ${r.epoch === null ? '-' : r.epoch}\n`,
      );
    }
  }
}

type FeaturesModule = typeof import('../../config/features.js');

async function update(client: KafkaClient, ns: Namespace, io: ToolIO, features: FeaturesModule): Promise<number> {
  const op = ns.command as 'upgrade' | 'downgrade' | 'disable';
  const type = op === 'upgrade' ? 1 : ns.unsafe === true ? 3 : 2;
  const updates = new Map<string, number>();
  const supported = (): string =>
    features.METADATA_VERSIONS.slice(
      features.METADATA_VERSIONS.indexOf(features.MINIMUM_BOOTSTRAP_VERSION),
      features.METADATA_VERSIONS.indexOf(features.LATEST_PRODUCTION) + 1,
    )
      .map((m) => m.version)
      .join(', ');
  const list = (ns.feature as string[] | undefined) ?? null;
  if (op === 'disable') {
    for (const f of list ?? []) {
      if (updates.has(f)) throw new TerseError(`Feature ${f} was specified more than once.`);
      updates.set(f, 0);
    }
  } else {
    const metadata = ns.metadata as string | undefined;
    const release = ns.release_version as string | undefined;
    if (release != null && (metadata != null || list !== null))
      throw new TerseError('Can not specify `release-version` with other feature flags.');
    if (release != null) {
      let mv;
      try {
        mv = features.metadataVersionFromString(release);
      } catch {
        throw new TerseError(`Unknown metadata.version ${release}. Supported metadata.version are ${supported()}`);
      }
      updates.set('metadata.version', mv.level);
      for (const f of features.PRODUCTION_FEATURES) {
        const level = features.featureDefaultLevel(f, mv);
        if (type !== 1 || level > 0) updates.set(f.name, level);
      }
    } else {
      if (metadata != null) {
        io.stdout.write(' `metadata` flag is deprecated and may be removed in a future release.\n');
        try {
          updates.set('metadata.version', features.metadataVersionFromString(metadata).level);
        } catch {
          throw new TerseError(`Unknown metadata.version ${metadata}. Supported metadata.version are ${supported()}`);
        }
      }
      for (const f of list ?? []) {
        const [name, level] = parseNameAndLevel(f);
        if (updates.has(name)) throw new TerseError(`Feature ${name} was specified more than once.`);
        updates.set(name, level);
      }
    }
  }
  if (updates.size === 0) throw new TerseError(`You must specify at least one feature to ${op}`);
  const dryRun = ns.dry_run === true;
  const { updateFeatures } = await import('../../client/admin/cluster.js');
  const names = [...updates.keys()].sort();
  let results: Map<string, Error | null>;
  try {
    results = await updateFeatures(
      client,
      names.map((feature) => ({ feature, maxVersionLevel: updates.get(feature)!, upgradeType: type })),
      dryRun,
    );
  } catch (e) {
    if ((e as Error).name !== 'UnsupportedApiError') throw e;
    const { ApiError } = await import('../../client/errors.js');
    results = new Map(names.map((n) => [n, new ApiError(35, `The node does not support UPDATE_FEATURES`)]));
  }
  let failures = 0;
  for (const name of names) {
    const err = results.get(name) ?? null;
    const level = updates.get(name)!;
    const shown = name === 'metadata.version' ? level : level;
    if (err === null) {
      io.stdout.write(
        op === 'disable'
          ? `${name} ${dryRun ? 'can be disabled.' : 'was disabled.'}\n`
          : `${name} ${dryRun ? `can be ${op}d to` : `was ${op}d to`} ${shown}.\n`,
      );
    } else {
      failures++;
      io.stdout.write(
        op === 'disable'
          ? `Could not disable ${name}. ${err.message}\n`
          : `${dryRun ? 'Can not' : 'Could not'} ${op} ${name} to ${shown}. ${err.message}\n`,
      );
    }
  }
  if (failures > 0) {
    io.stderr.write(`${failures} out of ${names.length} operation(s) failed.\n`);
    return 1;
  }
  return 0;
}
