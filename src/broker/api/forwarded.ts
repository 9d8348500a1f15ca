// A controller API on the broker listener of a broker-only node: the request is forwarded to the active
// controller in an Envelope and its answer returned (KafkaApis.forwardToController for CreateTopics,
// DeleteTopics, CreatePartitions, AlterConfigs, IncrementalAlterConfigs, UpdateFeatures, DescribeQuorum,
// UnregisterBroker ...). Where the controller runs in this process (no `services.remote`), the
// wrapped handler answers as before. The controller's throttle time mutes the client's connection on
// the broker, as Kafka's sendForwardedResponse applies it.
import { FORWARDABLE_APIS } from '../forwarding/forwarding-manager.js';
import type { BrokerServices } from '../services.js';
import type { RegisteredHandler } from './types.js';
import { setRequestThrottle } from '../quota/throttle.js';

export function isForwardable(apiKey: number): boolean {
  return FORWARDABLE_APIS.has(apiKey);
}

/** `inner` on broker listeners only, forwarding when the node has a remote controller. */
export function forwardedHandler(inner: RegisteredHandler<BrokerServices>): RegisteredHandler<BrokerServices> {
  return {
    apiKey: inner.apiKey,
    minVersion: inner.minVersion,
    maxVersion: inner.maxVersion,
    listeners: ['broker'],
    async handle(ctx, request, services) {
      const remote = services.remote;
      if (!remote || inner.forwardsItself) return inner.handle(ctx, request, services);
      const answer = await remote.forwarding.forward(ctx, request, (code) => inner.errorResponse(ctx, request, code));
      // RequestHandlerHelper.sendForwardedResponse: the controller's throttle (controller_mutation_rate,
      // its request quota) mutes the client's connection here too
      const throttleMs = (answer as { throttleTimeMs?: unknown } | null)?.throttleTimeMs;
      if (typeof throttleMs === 'number') setRequestThrottle(ctx, throttleMs);
      return answer;
    },
    errorResponse: (ctx, request, code) => inner.errorResponse(ctx, request, code),
  };
}
