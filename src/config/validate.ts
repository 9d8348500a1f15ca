// KafkaConfig.validateValues for KRaft nodes, with Kafka's messages.
import { ConfigError, requirement } from './config-def.js';
import type { ServerConfig } from './server-config.js';
import { RACK_AWARE_REPLICA_SELECTOR } from './definitions.js';

const scalaSet = (ids: number[]): string => `Set(${[...new Set(ids)].join(', ')})`;

/** The checks KafkaConfig runs at construction for a KRaft node, in Kafka's order. */
export function validateServerConfig(c: ServerConfig): void {
  requirement(c.logRollMs >= 1, 'log.roll.ms must be greater than or equal to 1', 'log.roll.ms');
  requirement(c.logRollJitterMs >= 0, 'log.roll.jitter.ms must be greater than or equal to 0', 'log.roll.jitter.ms');
  requirement(
    c.logRetentionMs >= 1 || c.logRetentionMs === -1,
    'log.retention.ms must be unlimited (-1) or, greater than or equal to 1',
    'log.retention.ms',
  );
  requirement(c.logDirs.length > 0, 'At least one log directory must be defined via log.dirs or log.dir.', 'log.dirs');
  // KafkaConfig.validateCordonedLogDirs
  const cordoned = c.getList('cordoned.log.dirs');
  if (cordoned.includes('*')) {
    requirement(
      cordoned.length === 1,
      'When cordoned.log.dirs is set to *, it must not contain other values',
      'cordoned.log.dirs',
    );
  } else {
    const missing = cordoned.filter((d) => !c.logDirs.includes(d));
    requirement(
      missing.length === 0,
      `All entries in cordoned.log.dirs must be present in log.dirs or log.dir. Missing entries : ${missing.join(',')}`,
      'cordoned.log.dirs',
    );
  }
  // Cordoning (placement that avoids the directories, IsCordoned in DescribeLogDirs, the registration's
  // cordoned directories) is not implemented: a value tkafka cannot honour stops start-up.
  if (cordoned.length > 0) {
    throw new ConfigError(
      'cordoned.log.dirs is not supported by tkafka (KIP-1066 log directory cordoning is not implemented); remove it or leave it empty.',
      'cordoned.log.dirs',
    );
  }
  // ReplicaManager.createReplicaSelector instantiates the class; tkafka has the rack-aware one only
  const selector = c.getString('replica.selector.class');
  if (c.isBroker && selector !== null && selector !== RACK_AWARE_REPLICA_SELECTOR) {
    throw new ConfigError(
      `replica.selector.class ${selector} is not supported by tkafka: only ${RACK_AWARE_REPLICA_SELECTOR} is implemented; set it to that class or remove it (the leader then serves every fetch).`,
      'replica.selector.class',
    );
  }
  const cleanerThreads = c.getInt('log.cleaner.threads');
  if (cleanerThreads === 0) throw new ConfigError('/ by zero', 'log.cleaner.threads', 'java.lang.ArithmeticException');
  requirement(
    c.getLong('log.cleaner.dedupe.buffer.size') / BigInt(cleanerThreads) > 1024n * 1024n,
    'log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.',
    'log.cleaner.dedupe.buffer.size',
  );
  const fetchWait = c.getInt('replica.fetch.wait.max.ms');
  requirement(
    fetchWait <= c.getInt('replica.socket.timeout.ms'),
    'replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts',
    'replica.socket.timeout.ms',
  );
  requirement(
    fetchWait <= c.getNumber('replica.lag.time.max.ms'),
    'replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms to prevent frequent changes in ISR',
    'replica.fetch.wait.max.ms',
  );

  const advertisedBrokerNames = [...new Set(c.effectiveAdvertisedBrokerListeners.map((l) => l.listenerName))];
  const voterIds = c.voterIds;
  const listenerNames = [...new Set(c.listeners.map((l) => l.listenerName))];
  const quorumConfigured = (): void => {
    if (voterIds.length === 0 && c.quorumBootstrapServers.length === 0) {
      throw new ConfigError(
        'If using process.roles, either controller.quorum.bootstrap.servers must contain the set of bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers.',
        'controller.quorum.voters',
      );
    }
  };
  const controllerChecks = (): void => {
    requirement(
      voterIds.length === 0 || voterIds.includes(c.nodeId),
      `If process.roles contains the 'controller' role, the node id ${c.nodeId} must be included in the set of voters controller.quorum.voters=${scalaSet(voterIds)}`,
      'controller.quorum.voters',
    );
    requirement(
      c.effectiveAdvertisedControllerListeners.length > 0,
      "controller.listener.names must contain at least one value appearing in the 'listeners' configuration when running the KRaft controller role",
      'controller.listener.names',
    );
    requirement(
      c.controllerListenerNames.every((n) => listenerNames.includes(n)),
      "controller.listener.names must only contain values appearing in the 'listeners' configuration when running the KRaft controller role",
      'controller.listener.names',
    );
  };
  if (c.processRoles.length === 0) {
    throw new ConfigError(
      'Missing required configuration "process.roles" which has no default value.',
      'process.roles',
    );
  } else if (c.isBroker && !c.isController) {
    quorumConfigured();
    requirement(
      !voterIds.includes(c.nodeId),
      `If process.roles contains just the 'broker' role, the node id ${c.nodeId} must not be included in the set of voters controller.quorum.voters=${scalaSet(voterIds)}`,
      'controller.quorum.voters',
    );
    requirement(
      c.controllerListenerNames.length > 0,
      'controller.listener.names must contain at least one value when running KRaft with just the broker role',
      'controller.listener.names',
    );
    requirement(
      c.controllerListeners.length === 0,
      "controller.listener.names must not contain a value appearing in the 'listeners' configuration when running KRaft with just the broker role",
      'controller.listener.names',
    );
    for (const name of c.controllerListenerNames) {
      if (!c.listenerSecurityProtocolMap.has(name.toUpperCase())) {
        throw new ConfigError(
          `Controller listener with name ${name.toUpperCase()} defined in controller.listener.names not found in listener.security.protocol.map  (an explicit security mapping for each controller listener is required if listener.security.protocol.map is non-empty, or if there are security protocols other than PLAINTEXT in use)`,
          'controller.listener.names',
        );
      }
    }
  } else if (c.isController && !c.isBroker) {
    quorumConfigured();
    requirement(
      c.effectiveAdvertisedControllerListeners.length === c.listeners.length,
      'The listeners config must only contain KRaft controller listeners from controller.listener.names when process.roles=controller',
      'listeners',
    );
    controllerChecks();
  } else {
    quorumConfigured();
    controllerChecks();
  }

  if (c.isBroker) {
    requirement(
      advertisedBrokerNames.length > 0,
      'There must be at least one broker advertised listener. Perhaps all listeners appear in controller.listener.names?',
      'advertised.listeners',
    );
    requirement(
      advertisedBrokerNames.includes(c.interBrokerListenerName),
      `inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are ${advertisedBrokerNames.join(',')}`,
      'inter.broker.listener.name',
    );
    requirement(
      advertisedBrokerNames.every((n) => listenerNames.includes(n)),
      `advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found ${advertisedBrokerNames.join(',')}. The valid options based on the current configuration are ${listenerNames.join(',')}`,
      'advertised.listeners',
    );
  }
  const nonRoutable =
    'advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.';
  requirement(
    !c.effectiveAdvertisedBrokerListeners.some((e) => e.host === '0.0.0.0'),
    nonRoutable,
    'advertised.listeners',
  );
  requirement(
    !c.effectiveAdvertisedControllerListeners.some((e) => e.host === '0.0.0.0'),
    nonRoutable,
    'advertised.listeners',
  );

  const queuedMaxBytes = c.getLong('queued.max.request.bytes');
  requirement(
    queuedMaxBytes <= 0n || queuedMaxBytes >= BigInt(c.getInt('socket.request.max.bytes')),
    'queued.max.request.bytes must be larger or equal to socket.request.max.bytes',
    'queued.max.request.bytes',
  );
  const overrides = c.getString('max.connections.per.ip.overrides') ?? '';
  if (c.getInt('max.connections.per.ip') === 0) {
    requirement(
      overrides !== '',
      'max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.',
      'max.connections.per.ip',
    );
  }
  const idle = c.getLong('connections.max.idle.ms');
  const delay = c.getInt('connection.failed.authentication.delay.ms');
  if (idle >= 0n) {
    requirement(
      BigInt(delay) < idle,
      `connection.failed.authentication.delay.ms=${delay} should always be less than connections.max.idle.ms=${idle} to prevent failed authentication responses from timing out`,
      'connection.failed.authentication.delay.ms',
    );
  }
  const early = c.getString('early.start.listeners');
  if (early !== null) {
    for (const name of early
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      if (!listenerNames.includes(name) && !c.controllerListenerNames.includes(name)) {
        throw new ConfigError(
          `early.start.listeners contains listener ${name}, but this is not contained in listeners or controller.listener.names`,
          'early.start.listeners',
        );
      }
    }
  }
  const gc = (a: string, op: '>=' | '<=' | '<', b: string): void => {
    const [x, y] = [c.getInt(a), c.getInt(b)];
    const ok = op === '>=' ? x >= y : op === '<=' ? x <= y : x < y;
    const word = op === '>=' ? 'greater than or equal to' : op === '<=' ? 'less than or equal to' : 'less than';
    if (!ok) throw new ConfigError(`${a} must be ${word} ${b}`, a, 'java.lang.IllegalArgumentException');
  };
  gc('group.consumer.max.heartbeat.interval.ms', '>=', 'group.consumer.min.heartbeat.interval.ms');
  gc('group.consumer.heartbeat.interval.ms', '>=', 'group.consumer.min.heartbeat.interval.ms');
  gc('group.consumer.heartbeat.interval.ms', '<=', 'group.consumer.max.heartbeat.interval.ms');
  gc('group.consumer.max.session.timeout.ms', '>=', 'group.consumer.min.session.timeout.ms');
  gc('group.consumer.session.timeout.ms', '>=', 'group.consumer.min.session.timeout.ms');
  gc('group.consumer.session.timeout.ms', '<=', 'group.consumer.max.session.timeout.ms');
  gc('group.consumer.heartbeat.interval.ms', '<', 'group.consumer.session.timeout.ms');
  // GroupCoordinatorConfig.verifyStreamsGroupConfigs (Kafka 4.4), in its order
  gc('group.streams.max.heartbeat.interval.ms', '>=', 'group.streams.min.heartbeat.interval.ms');
  gc('group.streams.heartbeat.interval.ms', '>=', 'group.streams.min.heartbeat.interval.ms');
  gc('group.streams.heartbeat.interval.ms', '<=', 'group.streams.max.heartbeat.interval.ms');
  gc('group.streams.max.session.timeout.ms', '>=', 'group.streams.min.session.timeout.ms');
  gc('group.streams.session.timeout.ms', '>=', 'group.streams.min.session.timeout.ms');
  gc('group.streams.session.timeout.ms', '<=', 'group.streams.max.session.timeout.ms');
  gc('group.streams.heartbeat.interval.ms', '<', 'group.streams.session.timeout.ms');
  gc('group.streams.max.assignment.interval.ms', '>=', 'group.streams.min.assignment.interval.ms');
  gc('group.streams.assignment.interval.ms', '>=', 'group.streams.min.assignment.interval.ms');
  gc('group.streams.assignment.interval.ms', '<=', 'group.streams.max.assignment.interval.ms');
  gc('group.streams.num.standby.replicas', '<=', 'group.streams.max.standby.replicas');
  gc('group.streams.task.offset.interval.ms', '>=', 'group.streams.min.task.offset.interval.ms');
  gc('group.streams.num.warmup.replicas', '<=', 'group.streams.max.warmup.replicas');
}
