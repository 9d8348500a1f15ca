// The broker's link to the active controller on a combined node of a multi-voter quorum (Kafka's
// BrokerServer in a `process.roles=broker,controller` node): one ControllerChannel to whichever voter
// leads (possibly this very node, over its own controller listener, as in Kafka), a
// BrokerLifecycleManager that registers and heartbeats over it, and the RemoteController the broker
// side uses for forwarded client requests, auto-created topics and producer id blocks. The metadata
// is the in-process controller's (its loader follows the quorum), not an observer's.
//
// A single-voter node keeps registering its broker directly when its controller activates
// (QuorumController's brokerListeners): there is no other controller to talk to.
import type { ServerConfig } from '../../config/load.js';
import type { Quorum } from '../raft/types.js';
import type { MetadataSource } from '../services.js';
import { supportedFeatureRanges } from '../metadata/features.js';
import {
  ControllerChannel,
  type ControllerNode,
  type ControllerNodeProvider,
} from '../forwarding/controller-channel.js';
import { ForwardingManager } from '../forwarding/forwarding-manager.js';
import { nodeOutgoingSecurity } from '../security/outgoing.js';
import { RemoteControllerClient } from '../forwarding/remote-controller.js';
import { BrokerLifecycleManager, type LifecycleLogger } from './broker-lifecycle-manager.js';

const SECURITY_PROTOCOL_IDS: Readonly<Record<string, number>> = {
  PLAINTEXT: 0,
  SSL: 1,
  SASL_PLAINTEXT: 2,
  SASL_SSL: 3,
};

/** Whether a combined node's quorum has other voters (static voters, or a dynamic quorum's bootstrap servers). */
export function hasOtherVoters(config: ServerConfig): boolean {
  if (config.quorumVoters.length > 0) return config.quorumVoters.some((v) => v.id !== config.nodeId);
  return config.quorumBootstrapServers.length > 1;
}

/**
 * RaftControllerNodeProvider: the raft leader is the active controller; its address is its endpoint
 * on the first controller listener, from the voter set the quorum knows, else from
 * controller.quorum.voters.
 */
export function controllerNodeProvider(quorum: Quorum, config: ServerConfig): ControllerNodeProvider {
  const listener = (config.controllerListenerNames[0] ?? 'CONTROLLER').toUpperCase();
  return (): ControllerNode | null => {
    const id = quorum.leaderAndEpoch.leaderId;
    if (id < 0) return null;
    const voter = quorum.voters.find((v) => v.id === id);
    const e = voter?.endpoints.find((x) => x.name.toUpperCase() === listener) ?? voter?.endpoints[0];
    if (e) return { id, host: e.host, port: e.port };
    const configured = config.quorumVoters.find((v) => v.id === id);
    return configured ? { id, host: configured.host, port: configured.port } : null;
  };
}

export interface BrokerMembershipOptions {
  readonly config: ServerConfig;
  readonly clusterId: string;
  /** The quorum whose leader is the active controller. */
  readonly quorum: Quorum;
  /** The metadata this broker has applied. */
  readonly metadata: MetadataSource;
  readonly listeners: readonly { name: string; host: string; port: number; securityProtocol: string }[];
  readonly logDirIds: readonly string[];
  readonly logger: LifecycleLogger;
}

export interface BrokerMembership {
  readonly channel: ControllerChannel;
  readonly lifecycle: BrokerLifecycleManager;
  readonly remote: RemoteControllerClient;
}

/** Builds (does not start) the channel, lifecycle manager and remote controller of a broker. */
export function brokerMembership(o: BrokerMembershipOptions): BrokerMembership {
  const { config } = o;
  const nodeId = config.nodeId;
  const requestTimeoutMs = config.getInt('request.timeout.ms');
  const channel = new ControllerChannel({
    clientId: `broker-${nodeId}-to-controller`,
    provider: controllerNodeProvider(o.quorum, config),
    requestTimeoutMs,
    retryBackoffMs: config.getInt('controller.quorum.retry.backoff.ms'),
    logger: { info: (m) => o.logger.info(m), warn: (m) => o.logger.warn(m) },
    security: nodeOutgoingSecurity(config).controller,
  });
  const lifecycle = new BrokerLifecycleManager({
    nodeId,
    clusterId: o.clusterId,
    listeners: o.listeners.map((e) => ({
      name: e.name,
      host: e.host,
      port: e.port,
      securityProtocol: SECURITY_PROTOCOL_IDS[e.securityProtocol.toUpperCase()] ?? 0,
    })),
    features: supportedFeatureRanges(),
    rack: config.getString('broker.rack'),
    logDirIds: o.logDirIds,
    channel,
    heartbeatIntervalMs: config.getInt('broker.heartbeat.interval.ms'),
    initialRegistrationTimeoutMs: config.getInt('initial.broker.registration.timeout.ms'),
    requestTimeoutMs,
    metadataOffset: () => o.metadata.image.provenance.offset,
    logger: o.logger,
  });
  const forwarding = new ForwardingManager(channel, { requestTimeoutMs, logger: { warn: (m) => o.logger.warn(m) } });
  const remote = new RemoteControllerClient(o.metadata, forwarding, channel, {
    nodeId,
    brokerEpoch: () => lifecycle.brokerEpoch,
    requestTimeoutMs,
  });
  return { channel, lifecycle, remote };
}
