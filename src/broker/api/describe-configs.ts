// DescribeConfigs (API 32), v0-4: TOPIC, BROKER (this broker or the cluster default), BROKER_LOGGER,
// CLIENT_METRICS and GROUP resources, with value, source, synonyms (v1+, when asked), type and
// documentation (v3+, documentation when asked), as Kafka's ConfigHelper describes them.
import {
  GROUP_CONFIG_KEYS,
  SHARE_GROUP_CONFIG_KEYS,
  SHARE_GROUP_OTHER_KEYS,
  STREAMS_GROUP_CONFIG_KEYS,
  STREAMS_GROUP_DESCRIBED_OTHER_KEYS,
} from '../group/group-configs.js';
import { javaHashMapOrder } from '../group/streams-topology.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeConfigsRequest,
  DescribeConfigsRequestDescribeConfigsResource,
  DescribeConfigsResponse,
  DescribeConfigsResponseDescribeConfigsResourceResult,
  DescribeConfigsResponseDescribeConfigsResult,
} from '../../protocol/generated/protocol/DescribeConfigs.js';
import { ErrorCode, errorInfo, KafkaError } from '../../protocol/errors.js';
import {
  BROKER_CONFIGS,
  BROKER_QUOTA_CONFIGS,
  convertToString,
  dynamicBrokerConfigKey,
  parseConfigValue,
  type ConfigValue,
} from '../../config/definitions.js';
import {
  CONFIG_SOURCE,
  CONFIG_TYPE_ID,
  brokerSynonymEntries,
  effectiveTopicConfig,
  type ConfigSynonymEntry,
} from '../../config/topic-configs.js';
import { ConfigResourceType, type MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import { listenerConfigBaseName } from '../network/tls-listener.js';
import { SSL_KEYS } from '../../config/ssl-keys.js';
import type { ApiHandler, RequestContext } from './types.js';
import { javaHashSetOrder, parseList } from '../telemetry/client-metrics-manager.js';
import { genericErrorResponse } from './error-responses.js';
import { errorOf, imageOf, invalidTopicReason } from './admin-support.js';
import { AclOperation, configResourceDenied } from './authz-admin.js';

type Entry = DescribeConfigsResponseDescribeConfigsResourceResult;
type Result = DescribeConfigsResponseDescribeConfigsResult;

interface Options {
  readonly version: number;
  readonly includeSynonyms: boolean;
  readonly includeDocumentation: boolean;
}

const fail = (message: string): never => {
  throw new KafkaError(ErrorCode.INVALID_REQUEST, message);
};

function entry(
  o: Options,
  e: {
    name: string;
    value: string | null;
    source: number;
    sensitive: boolean;
    readOnly: boolean;
    synonyms?: readonly ConfigSynonymEntry[];
    type?: number;
    doc?: string | null;
  },
): Entry {
  return {
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    configSource: e.source,
    isSensitive: e.sensitive,
    synonyms:
      o.includeSynonyms && o.version >= 1
        ? (e.synonyms ?? []).map((s) => ({ name: s.name, value: s.value, source: CONFIG_SOURCE[s.source] }))
        : [],
    configType: o.version >= 3 ? (e.type ?? 0) : 0,
    documentation: o.version >= 3 && o.includeDocumentation ? (e.doc ?? null) : null,
  };
}

// ------------------------------------------------------------------ TOPIC

function describeTopic(name: string, image: MetadataImage, services: BrokerServices, o: Options): Entry[] | number {
  const reason = invalidTopicReason(name);
  if (reason !== null) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name is invalid: ${reason}`);
  if (!image.topicsByName.has(name)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const eff = effectiveTopicConfig(services.config, image.topicConfigs(name), {
    perBroker: usableDynamic(image.brokerConfigs(services.nodeId), true),
    clusterDefault: usableDynamic(image.brokerConfigs(''), false),
  });
  return [...eff.values()].map((e) =>
    entry(o, {
      name: e.name,
      value: e.value,
      source: CONFIG_SOURCE[e.source],
      sensitive: e.isSensitive,
      readOnly: e.readOnly,
      synonyms: e.synonyms,
      type: CONFIG_TYPE_ID[e.type],
      doc: e.documentation,
    }),
  );
}

// ------------------------------------------------------------------ BROKER

function brokerIdOf(name: string): number {
  if (!/^[+-]?\d+$/.test(name) || Math.abs(Number(name)) > 2147483647)
    fail(`Broker id must be an integer, but it is: ${name}`);
  return Number(name);
}

/** The value a broker key has now: per-broker dynamic > cluster dynamic default > static > default. */
function currentBrokerValue(
  name: string,
  services: BrokerServices,
  perBroker: ReadonlyMap<string, string>,
  clusterDefault: ReadonlyMap<string, string>,
): ConfigValue {
  const key = dynamicBrokerConfigKey(name)!;
  if (key.dynamic) {
    const layers = key.dynamic === 'per-broker' ? [perBroker] : [perBroker, clusterDefault];
    for (const layer of layers) {
      const raw = layer.get(name);
      if (raw === undefined) continue;
      try {
        return parseConfigValue(key, raw);
      } catch {
        // Kafka ignores invalid dynamic values (DynamicBrokerConfig.removeInvalidConfigs).
      }
    }
  }
  return services.config.values.get(name) ?? null;
}

/** DynamicBrokerConfig.fromPersistentProps: stored dynamic configs minus keys that cannot be dynamic there. */
function usableDynamic(stored: ReadonlyMap<string, string>, perBroker: boolean): Map<string, string> {
  return new Map(
    [...stored].filter(([n]) => {
      const key = BROKER_CONFIGS.get(n);
      return !key || (key.dynamic !== undefined && (perBroker || key.dynamic !== 'per-broker'));
    }),
  );
}

/** The base ssl.* name of a listener-prefixed SSL key (listener.name.<l>.ssl.…), else null. */
function listenerSslBase(name: string): string | null {
  const base = listenerConfigBaseName(name);
  return base !== null && SSL_KEYS.has(base) ? base : null;
}

/**
 * ConfigHelper.createBrokerConfigEntry for a listener-prefixed ssl.* key: the base key's type
 * (PASSWORD: sensitive, null values), synonyms under both names (brokerConfigSynonyms with
 * matchListenerOverride), read-only as Kafka reports (the prefixed name is not in AllDynamicConfigs).
 */
function listenerSslEntry(
  name: string,
  services: BrokerServices,
  dyn: { perBroker: ReadonlyMap<string, string>; clusterDefault: ReadonlyMap<string, string> },
  o: Options,
): Entry | null {
  const base = listenerSslBase(name);
  if (base === null) return null;
  const key = SSL_KEYS.get(base)!;
  const sensitive = key.type === 'password';
  const names = [name, base];
  const synonyms: ConfigSynonymEntry[] = [];
  const layers: [ReadonlyMap<string, string>, ConfigSynonymEntry['source']][] = [
    [dyn.perBroker, 'DYNAMIC_BROKER_CONFIG'],
    [dyn.clusterDefault, 'DYNAMIC_DEFAULT_BROKER_CONFIG'],
    [services.config.originals, 'STATIC_BROKER_CONFIG'],
  ];
  for (const [map, source] of layers)
    for (const n of names) {
      const v = map.get(n);
      if (v !== undefined) synonyms.push({ name: n, value: sensitive ? null : v, source });
    }
  if (key.default !== null)
    synonyms.push({
      name: base,
      value: sensitive ? null : convertToString(key.default, key.type),
      source: 'DEFAULT_CONFIG',
    });
  const value = dyn.perBroker.get(name) ?? dyn.clusterDefault.get(name) ?? services.config.originals.get(name) ?? null;
  return entry(o, {
    name,
    value: sensitive ? null : value,
    source: synonyms.length ? CONFIG_SOURCE[synonyms[0]!.source] : CONFIG_SOURCE.DEFAULT_CONFIG,
    sensitive,
    readOnly: true,
    synonyms,
    type: CONFIG_TYPE_ID[key.type],
    doc: null,
  });
}

function describeBroker(name: string, image: MetadataImage, services: BrokerServices, o: Options): Entry[] {
  const perBrokerDyn = usableDynamic(image.brokerConfigs(services.nodeId), true);
  const clusterDyn = usableDynamic(image.brokerConfigs(''), false);
  const dyn = { perBroker: perBrokerDyn, clusterDefault: clusterDyn };
  const static_ = { originals: services.config.originals };
  if (name === '') {
    // The cluster-wide dynamic defaults only, as stored.
    return [...clusterDyn].map(([n, v]) => {
      const key = dynamicBrokerConfigKey(n);
      const sensitive = !key || key.type === 'password';
      const synonyms = brokerSynonymEntries(n, static_, dyn, sensitive).filter(
        (s) => s.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG',
      );
      return entry(o, {
        name: n,
        value: sensitive ? null : v,
        source: synonyms.length ? CONFIG_SOURCE[synonyms[0]!.source] : CONFIG_SOURCE.DEFAULT_CONFIG,
        sensitive,
        readOnly: !key?.dynamic,
        synonyms,
        type: key ? CONFIG_TYPE_ID[key.type] : 0,
        doc: key?.doc ?? null,
      });
    });
  }
  const id = brokerIdOf(name);
  if (id !== services.nodeId)
    fail(`Unexpected broker id, expected ${services.nodeId} or empty string, but received ${name}`);
  // KafkaConfig: originals (unknown keys included, as written) plus every non-internal key's value.
  const names = new Set<string>();
  for (const n of services.config.originals.keys()) names.add(n);
  for (const key of BROKER_CONFIGS.values()) if (!key.internal) names.add(key.name);
  // the broker quotas are in KafkaConfig's originals once set dynamically
  for (const n of BROKER_QUOTA_CONFIGS.keys()) if (perBrokerDyn.has(n) || clusterDyn.has(n)) names.add(n);
  // and so are listener-prefixed ssl.* keys
  for (const n of [...perBrokerDyn.keys(), ...clusterDyn.keys()]) if (listenerSslBase(n) !== null) names.add(n);
  const out: Entry[] = [];
  for (const n of names) {
    const ssl = listenerSslEntry(n, services, dyn, o);
    if (ssl) {
      out.push(ssl);
      continue;
    }
    const key = dynamicBrokerConfigKey(n);
    // An unknown key has no type, so Kafka treats it as sensitive.
    const sensitive = !key || key.type === 'password';
    const value = sensitive
      ? null
      : convertToString(currentBrokerValue(n, services, perBrokerDyn, clusterDyn), key!.type);
    const synonyms = brokerSynonymEntries(n, static_, dyn, sensitive);
    out.push(
      entry(o, {
        name: n,
        value,
        source: synonyms.length ? CONFIG_SOURCE[synonyms[0]!.source] : CONFIG_SOURCE.DEFAULT_CONFIG,
        sensitive,
        readOnly: !key?.dynamic,
        synonyms,
        type: key ? CONFIG_TYPE_ID[key.type] : 0,
        doc: key?.doc ?? null,
      }),
    );
  }
  return out;
}

// ------------------------------------------------------------------ BROKER_LOGGER, CLIENT_METRICS, GROUP

function describeLoggers(name: string, services: BrokerServices, o: Options): Entry[] {
  if (name === '') fail('Broker id must not be empty');
  if (brokerIdOf(name) !== services.nodeId)
    fail(`Unexpected broker id, expected ${services.nodeId} but received ${name}`);
  return services.loggers.all().map(([n, level]) =>
    entry(o, {
      name: n,
      value: level,
      source: CONFIG_SOURCE.DYNAMIC_BROKER_LOGGER_CONFIG,
      sensitive: false,
      readOnly: false,
    }),
  );
}

/** ClientMetricsConfigs' keys: type, default, documentation. */
const CLIENT_METRICS_KEYS: readonly { name: string; type: 'int' | 'list'; default: string; doc: string }[] = [
  { name: 'metrics', type: 'list', default: '', doc: 'Telemetry metric name prefix list' },
  { name: 'interval.ms', type: 'int', default: '300000', doc: 'Metrics push interval in milliseconds' },
  { name: 'match', type: 'list', default: '', doc: 'Client match criteria' },
];

/**
 * Kafka 4.4's ConfigHelper: ClientMetricsConfigs.fromProps(defaults, the resource's) — every key, the
 * resource's value (a list re-joined with ",", as ConfigDef.convertToString) or the default with
 * source DEFAULT_CONFIG, in the order of the HashMap of its originals.
 */
function describeClientMetrics(name: string, image: MetadataImage, o: Options): Entry[] {
  if (name === '') fail('Client metrics subscription name must not be empty');
  const own = image.configsOf(ConfigResourceType.ClientMetrics, name);
  const order = javaHashSetOrder(CLIENT_METRICS_KEYS.map((k) => k.name));
  return order.map((n) => {
    const key = CLIENT_METRICS_KEYS.find((k) => k.name === n)!;
    const set = own.get(n);
    const value =
      set === undefined ? key.default : key.type === 'list' ? parseList(set).join(',') : String(Number(set.trim()));
    return entry(o, {
      name: n,
      value,
      source: set === undefined ? CONFIG_SOURCE.DEFAULT_CONFIG : CONFIG_SOURCE.CLIENT_METRICS_CONFIG,
      sensitive: false,
      readOnly: false,
      synonyms: set === undefined ? [] : [{ name: n, value: set, source: 'CLIENT_METRICS_CONFIG' }],
      type: CONFIG_TYPE_ID[key.type],
      doc: key.doc,
    });
  });
}

/**
 * The group's configs (ConfigHelper: GroupConfig.fromProps(extractGroupConfigMap, the group's own)): every
 * key with a broker synonym — consumer.*, share.* and streams.* (GroupConfig's internal ones only when set) — each the
 * group's own value or the broker's; the share.* keys without a broker synonym
 * (share.auto.offset.reset, share.isolation.level, share.renew.acknowledge.enable): the group's value or
 * GroupConfig's default.
 */
function describeGroup(name: string, image: MetadataImage, services: BrokerServices, o: Options): Entry[] {
  if (name === '') fail('Group name must not be empty');
  const overrides = image.configsOf(ConfigResourceType.Group, name);
  const dyn = {
    perBroker: usableDynamic(image.brokerConfigs(services.nodeId), true),
    clusterDefault: usableDynamic(image.brokerConfigs(''), false),
  };
  const synonymKeys: { name: string; brokerKey: string; doc: string; type: 'int' | 'long' | 'list' | 'string' }[] = [
    ...[...GROUP_CONFIG_KEYS, ...SHARE_GROUP_CONFIG_KEYS, ...STREAMS_GROUP_CONFIG_KEYS]
      // GroupConfig's internal keys (defineInternal) only when the group sets them
      .filter((k) => k.internal !== true || overrides.has(k.name))
      .map(({ name: n, brokerKey, doc, type }) => ({ name: n, brokerKey, doc, type: type ?? ('int' as const) })),
    ...STREAMS_GROUP_DESCRIBED_OTHER_KEYS,
  ];
  const withSynonym = synonymKeys.map(({ name: n, brokerKey, doc, type }) => {
    // the group's own value first, then the broker key's synonyms (GroupConfig.ALL_GROUP_CONFIG_SYNONYMS)
    const own = overrides.get(n);
    const broker = brokerSynonymEntries(brokerKey, { originals: services.config.originals }, dyn);
    const synonyms = own !== undefined ? [{ name: n, value: own, source: 'GROUP_CONFIG' as const }, ...broker] : broker;
    const value =
      synonyms[0]?.value ?? convertToString(services.config.get(brokerKey), BROKER_CONFIGS.get(brokerKey)!.type);
    return entry(o, {
      name: n,
      value,
      source: CONFIG_SOURCE[synonyms[0]?.source ?? 'DEFAULT_CONFIG'],
      sensitive: false,
      readOnly: false,
      synonyms,
      type: CONFIG_TYPE_ID[type],
      doc,
    });
  });
  // no broker synonym: the group's value, then GroupConfig's default as the key's own DEFAULT_CONFIG synonym
  const own = SHARE_GROUP_OTHER_KEYS.map(({ name: n, type, doc, dflt }) => {
    const v = overrides.get(n);
    const synonyms = [
      ...(v !== undefined ? [{ name: n, value: v, source: 'GROUP_CONFIG' as const }] : []),
      { name: n, value: dflt, source: 'DEFAULT_CONFIG' as const },
    ];
    return entry(o, {
      name: n,
      value: v ?? dflt,
      source: CONFIG_SOURCE[v !== undefined ? 'GROUP_CONFIG' : 'DEFAULT_CONFIG'],
      sensitive: false,
      readOnly: false,
      synonyms,
      type: CONFIG_TYPE_ID[type],
      doc,
    });
  });
  // ConfigHelperUtils.createResponseConfig: the group's own internal keys first, then GroupConfig's
  // nonInternalValues, each in the iteration order of their java.util.HashMap
  const all = [...withSynonym, ...own];
  const byName = new Map(all.map((e) => [e.name, e]));
  const internal = new Set(STREAMS_GROUP_CONFIG_KEYS.filter((k) => k.internal === true).map((k) => k.name));
  const names = all.map((e) => e.name);
  return [
    ...javaHashMapOrder(names.filter((n) => internal.has(n))),
    ...javaHashMapOrder(names.filter((n) => !internal.has(n))),
  ].map((n) => byName.get(n)!);
}

// ------------------------------------------------------------------ request

function describe(
  r: DescribeConfigsRequestDescribeConfigsResource,
  image: MetadataImage,
  services: BrokerServices,
  o: Options,
): Result {
  const base = { resourceType: r.resourceType, resourceName: r.resourceName };
  try {
    let entries: Entry[] | number;
    switch (r.resourceType) {
      case ConfigResourceType.Topic:
        entries = describeTopic(r.resourceName, image, services, o);
        break;
      case ConfigResourceType.Broker:
        entries = describeBroker(r.resourceName, image, services, o);
        break;
      case ConfigResourceType.BrokerLogger:
        entries = describeLoggers(r.resourceName, services, o);
        break;
      case ConfigResourceType.ClientMetrics:
        entries = describeClientMetrics(r.resourceName, image, o);
        break;
      case ConfigResourceType.Group:
        entries = describeGroup(r.resourceName, image, services, o);
        break;
      default:
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unsupported resource type: ${r.resourceType}`);
    }
    // Kafka's ConfigHelper sets no message on these results: the schema default "" goes out
    if (typeof entries === 'number') return { ...base, errorCode: entries, errorMessage: '', configs: [] };
    const keys = r.configurationKeys;
    const chosen = keys === null || keys.length === 0 ? entries : entries.filter((e) => keys.includes(e.name));
    // a group's configs come in GroupConfig's order (describeGroup); the others by name
    const configs =
      r.resourceType === ConfigResourceType.Group
        ? chosen
        : chosen.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { ...base, errorCode: ErrorCode.NONE, errorMessage: '', configs };
  } catch (e) {
    const err = errorOf(e);
    return { ...base, errorCode: err.errorCode, errorMessage: err.errorMessage, configs: [] };
  }
}

const KNOWN_TYPES = new Set<number>([
  ConfigResourceType.Topic,
  ConfigResourceType.Broker,
  ConfigResourceType.BrokerLogger,
  ConfigResourceType.ClientMetrics,
  ConfigResourceType.Group,
]);

function handle(ctx: RequestContext, req: DescribeConfigsRequest, services: BrokerServices): DescribeConfigsResponse {
  // An unknown resource type fails the whole request (InvalidRequestException while authorizing).
  if (req.resources.some((r) => !KNOWN_TYPES.has(r.resourceType))) {
    const message = errorInfo(ErrorCode.INVALID_REQUEST).message;
    return {
      throttleTimeMs: 0,
      results: req.resources.map((r) => ({
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: message,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        configs: [],
      })),
    };
  }
  const o: Options = {
    version: ctx.apiVersion,
    includeSynonyms: req.includeSynonyms,
    includeDocumentation: req.includeDocumentation,
  };
  const image = imageOf(services);
  // ConfigHelper.handleDescribeConfigsRequest: DESCRIBE_CONFIGS on the topic / cluster / group; the
  // authorized resources are answered first, then the others with 29 / 31 / 30 and Errors' message
  const denied = req.resources.map((r) =>
    configResourceDenied(services, ctx, AclOperation.DESCRIBE_CONFIGS, r.resourceType, r.resourceName),
  );
  return {
    throttleTimeMs: 0,
    results: [
      ...req.resources.filter((_, i) => denied[i] === null).map((r) => describe(r, image, services, o)),
      ...req.resources.flatMap((r, i) => {
        const d = denied[i];
        return d ? [{ resourceType: r.resourceType, resourceName: r.resourceName, ...d, configs: [] }] : [];
      }),
    ],
  };
}

export const handler: ApiHandler<BrokerServices, DescribeConfigsRequest, Input<DescribeConfigsResponse>> = {
  apiKey: ApiKey.DescribeConfigs,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 4,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
