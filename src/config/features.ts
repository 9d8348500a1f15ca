// metadata.version (MetadataVersion) and the finalized-feature table used by `storage format`
// and the bootstrap checkpoint. Values follow Kafka 4.4.0 (server-common MetadataVersion and
// Feature): latest production metadata.version is 4.4-IV2 (feature level 33), 4.5-IV0 is unstable.
// Of Kafka 4.4's production features tkafka implements kraft.version, transaction.version,
// group.version, eligible.leader.replicas.version, share.version and streams.version (all of them);
// UNIMPLEMENTED_FEATURES (none now) are never finalized (see there).

export interface MetadataVersionInfo {
  /** e.g. "3.7-IV2" (or "0.8.0" for old IBPs without a sub-version). */
  version: string;
  /** e.g. "3.7" */
  release: string;
  /** KRaft feature level; -1 for pre-KRaft inter.broker.protocol versions. */
  level: number;
}

const OLD_IBPS = [
  '0.8.0',
  '0.8.1',
  '0.8.2',
  '0.9.0',
  '0.10.0-IV0',
  '0.10.0-IV1',
  '0.10.1-IV0',
  '0.10.1-IV1',
  '0.10.1-IV2',
  '0.10.2-IV0',
  '0.11.0-IV0',
  '0.11.0-IV1',
  '0.11.0-IV2',
  '1.0-IV0',
  '1.1-IV0',
  '2.0-IV0',
  '2.0-IV1',
  '2.1-IV0',
  '2.1-IV1',
  '2.1-IV2',
  '2.2-IV0',
  '2.2-IV1',
  '2.3-IV0',
  '2.3-IV1',
  '2.4-IV0',
  '2.4-IV1',
  '2.5-IV0',
  '2.6-IV0',
  '2.7-IV0',
  '2.7-IV1',
  '2.7-IV2',
  '2.8-IV0',
  '2.8-IV1',
  '3.0-IV0',
];
const KRAFT_VERSIONS = [
  '3.0-IV1',
  '3.1-IV0',
  '3.2-IV0',
  '3.3-IV0',
  '3.3-IV1',
  '3.3-IV2',
  '3.3-IV3',
  '3.4-IV0',
  '3.5-IV0',
  '3.5-IV1',
  '3.5-IV2',
  '3.6-IV0',
  '3.6-IV1',
  '3.6-IV2',
  '3.7-IV0',
  '3.7-IV1',
  '3.7-IV2',
  '3.7-IV3',
  '3.7-IV4',
  '3.8-IV0',
  '3.9-IV0',
  '4.0-IV0',
  '4.0-IV1',
  '4.0-IV2',
  '4.0-IV3',
  '4.1-IV0',
  '4.1-IV1',
  '4.2-IV0',
  '4.2-IV1',
  '4.3-IV0',
  '4.4-IV0',
  '4.4-IV1',
  '4.4-IV2',
  '4.5-IV0',
];

const releaseOf = (v: string): string => (v.includes('-') ? v.slice(0, v.indexOf('-')) : v);

/** Every MetadataVersion in enum order. */
export const METADATA_VERSIONS: readonly MetadataVersionInfo[] = [
  ...OLD_IBPS.map((v) => ({ version: v, release: releaseOf(v), level: -1 })),
  ...KRAFT_VERSIONS.map((v, i) => ({ version: v, release: releaseOf(v), level: i + 1 })),
];

const byLevel = (level: number): MetadataVersionInfo => {
  const mv = METADATA_VERSIONS.find((m) => m.level === level);
  if (!mv) throw new Error(`No MetadataVersion with feature level ${level}`);
  return mv;
};

export const MINIMUM_KRAFT_VERSION = byLevel(1);
/** The lowest version `storage format` advertises in its help (`IBP_3_0_IV0`). */
export const MINIMUM_FORMAT_HELP_VERSION = '3.0-IV0';
export const MINIMUM_BOOTSTRAP_VERSION = byLevel(4); // 3.3-IV0
export const LATEST_PRODUCTION = byLevel(33); // 4.4-IV2
export const LATEST_TESTING = METADATA_VERSIONS[METADATA_VERSIONS.length - 1];

export function isProduction(mv: MetadataVersionInfo): boolean {
  return METADATA_VERSIONS.indexOf(mv) <= METADATA_VERSIONS.indexOf(LATEST_PRODUCTION);
}

export function isKRaftSupported(mv: MetadataVersionInfo): boolean {
  return mv.level > 0;
}

/**
 * MetadataVersion.fromVersionString: "3.7-IV2", or a bare release ("3.7") meaning its latest
 * production sub-version; extra segments are ignored ("3.7.1" → "3.7"). Throws Kafka's message.
 */
export function metadataVersionFromString(versionString: string): MetadataVersionInfo {
  const segments = versionString.split('.');
  const num = versionString.startsWith('0.') ? 3 : 2;
  const key = num >= segments.length ? versionString : segments.slice(0, num).join('.');
  const exact = METADATA_VERSIONS.find((m) => m.version === key);
  const latestOfRelease = [...METADATA_VERSIONS].reverse().find((m) => m.release === key && isProduction(m));
  const found = latestOfRelease ?? exact;
  if (!found) throw new Error(`Version ${versionString} is not a valid version`);
  return found;
}

export function metadataVersionFromLevel(level: number): MetadataVersionInfo {
  return byLevel(level);
}

/** A finalized feature other than metadata.version: levels and the metadata.version each bootstraps at. */
export interface FeatureDef {
  name: string;
  /** [featureLevel, bootstrap metadata.version level] in ascending order. */
  levels: ReadonlyArray<readonly [number, number]>;
}

/**
 * The Features.PRODUCTION_FEATURES of Kafka 4.4 that tkafka implements (kraft.version,
 * transaction.version, group.version, eligible.leader.replicas.version, share.version, streams.version), with the metadata.version
 * each level bootstraps at (FeatureVersion.bootstrapMetadataVersion); FEATURE_DEPENDENCIES has
 * the levels that depend on another feature.
 */
export const PRODUCTION_FEATURES: readonly FeatureDef[] = [
  {
    name: 'kraft.version',
    levels: [
      [0, 7],
      [1, 21],
    ],
  },
  {
    name: 'transaction.version',
    levels: [
      [0, 7],
      [1, 24],
      [2, 24],
    ],
  },
  {
    name: 'group.version',
    levels: [
      [0, 7],
      [1, 22],
    ],
  },
  {
    name: 'eligible.leader.replicas.version',
    levels: [
      [0, 7],
      [1, 26],
    ],
  },
  {
    // ShareVersion: SV_1 bootstraps at 4.2-IV0, SV_2 at 4.4-IV0; no dependencies
    name: 'share.version',
    levels: [
      [0, 7],
      [1, 28],
      [2, 31],
    ],
  },
  {
    // StreamsVersion: SV_1 bootstraps at 4.2-IV1; no dependencies
    name: 'streams.version',
    levels: [
      [0, 7],
      [1, 29],
    ],
  },
];

/** FeatureVersion.dependencies of the levels that have any: ELRV_1 needs metadata.version 4.0-IV1 (23). */
export const FEATURE_DEPENDENCIES: ReadonlyMap<string, ReadonlyMap<number, ReadonlyMap<string, number>>> = new Map([
  ['eligible.leader.replicas.version', new Map([[1, new Map([['metadata.version', 23]])]])],
]);

/** FeatureCommand/StorageTool's dependency lines: "has no dependencies." or "requires:" and one line per dependency. */
export function featureDependencyLines(name: string, level: number): string[] {
  const deps = FEATURE_DEPENDENCIES.get(name)?.get(level);
  if (!deps || deps.size === 0) return [`${name}=${level} has no dependencies.`];
  const out = [`${name}=${level} requires:`];
  for (const [dep, depLevel] of deps) {
    out.push(
      dep === 'metadata.version' ? `    ${dep}=${depLevel} (${byLevel(depLevel).version})` : `    ${dep}=${depLevel}`,
    );
  }
  return out;
}

/** Features.validateVersion's message for a level whose dependency `levels` do not meet, or undefined. */
export function featureDependencyError(
  feature: string,
  level: number,
  levels: ReadonlyMap<string, number>,
): string | undefined {
  const mv = levels.get('metadata.version');
  if (level >= 1 && (mv === undefined || mv < 7))
    return `${feature} could not be set to ${level} because it depends on metadata.version=7 (3.3-IV3)`;
  for (const [dep, needed] of FEATURE_DEPENDENCIES.get(feature)?.get(level) ?? new Map<string, number>()) {
    const have = levels.get(dep);
    if (have === undefined || have < needed)
      return `${feature} could not be set to ${level} because it depends on ${dep} level ${needed}`;
  }
  return undefined;
}

/**
 * Kafka 4.4 production features tkafka does not implement, so it neither supports nor finalizes
 * them (a 4.4 `kafka-storage format` would finalize each at level 1-2): finalizing a level whose
 * semantics the broker does not honour would let clients rely on it.
 */
export const UNIMPLEMENTED_FEATURES: ReadonlyMap<string, string> = new Map<string, string>([]);

/** Features.defaultValue: the highest level whose bootstrap version is <= mv. */
export function featureDefaultLevel(feature: FeatureDef, mv: MetadataVersionInfo): number {
  let level = 0;
  for (const [l, boot] of feature.levels) {
    if (boot <= mv.level) level = l;
    else break;
  }
  return level;
}

/**
 * The feature levels `storage format` settles on (Formatter.calculateEffectiveFeatureLevels):
 * metadata.version, the --feature levels given (only features tkafka implements), kraft.version (1
 * only for a dynamic quorum, and a given level must agree with the quorum), the rest at their
 * defaults for the metadata.version. Throws the Formatter's message for an invalid request.
 */
export function formatFeatureLevels(
  mv: MetadataVersionInfo,
  dynamicQuorum: boolean,
  requested: ReadonlyMap<string, number> = new Map(),
): Map<string, number> {
  const known = [...PRODUCTION_FEATURES].map((f) => f.name).sort();
  for (const name of requested.keys()) {
    if (name !== 'metadata.version' && !known.includes(name))
      throw new Error(`Unsupported feature: ${name}. Supported features are: ${known.join(', ')}`);
  }
  const levels = new Map<string, number>([['metadata.version', mv.level]]);
  for (const f of PRODUCTION_FEATURES) {
    const given = requested.get(f.name);
    if (f.name === 'kraft.version') levels.set(f.name, effectiveKRaftVersion(given, dynamicQuorum));
    else levels.set(f.name, given ?? featureDefaultLevel(f, mv));
  }
  for (const f of PRODUCTION_FEATURES) {
    const level = levels.get(f.name)!;
    if (!f.levels.some(([l]) => l === level)) throw new Error(`No feature:${f.name} with feature level ${level}`);
    const dependency = featureDependencyError(f.name, level, levels); // Features.validateVersion
    if (dependency) throw new Error(dependency);
  }
  return levels;
}

function effectiveKRaftVersion(given: number | undefined, dynamicQuorum: boolean): number {
  if (given === undefined) return dynamicQuorum ? 1 : 0;
  if (given === 0 && dynamicQuorum)
    throw new Error(
      // Formatter.effectiveKRaftFeatureLevel (Kafka 4.4)
      'Cannot set kraft.version to 0 if controller.quorum.voters is empty and one of the flags --standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try removing the --feature flag for kraft.version.',
    );
  if (given !== 0 && !dynamicQuorum)
    throw new Error(
      `Cannot set kraft.version to ${given} unless controller.quorum.voters is empty and one of the flags --standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try using one of --standalone, --initial-controllers, or --no-initial-controllers and removing controller.quorum.voters.`,
    );
  return given;
}

/**
 * The FeatureLevelRecords a bootstrap checkpoint holds (BootstrapMetadata.fromVersions):
 * metadata.version first, then non-zero features other than kraft.version sorted by name.
 */
export function bootstrapFeatureRecords(levels: Map<string, number>): Array<{ name: string; level: number }> {
  const out = [{ name: 'metadata.version', level: levels.get('metadata.version') ?? 0 }];
  const names = [...levels.keys()].filter((n) => n !== 'metadata.version' && n !== 'kraft.version').sort();
  for (const n of names) {
    const level = levels.get(n) ?? 0;
    if (level > 0) out.push({ name: n, level });
  }
  return out;
}
