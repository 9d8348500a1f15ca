// COMMIT/ABORT markers for partitions led by other brokers, sent as WriteTxnMarkers requests: Kafka's
// TransactionMarkerChannelManager (the sender side; the retry decisions of its
// TransactionMarkerRequestCompletionHandler stay in txn-markers.ts, which calls `write` again for a
// partition whose marker must be retried, after re-resolving its leader from the latest image).
//
// One queue per destination broker; markers queued for a broker while its previous request is in
// flight go out together in its next request (one request in flight per broker, as the send thread
// drains a broker's queue into one request), grouped per producer as WriteTxnMarkersRequest groups
// them: one entry per producer id (a second marker of the same producer with other epochs waits for
// the following request, since the response is keyed by producer id). Each `write` resolves with its
// partition's error code from the response; a failed request (disconnected, timed out, connection
// refused) answers NETWORK_EXCEPTION for every marker in it (retriable: Kafka re-enqueues them for
// the partitions' current leaders), a destination that does not support WriteTxnMarkers
// UNSUPPORTED_VERSION (Kafka drops the partition from the transaction).
import { apiByKey } from '../../client/apis.js';
import { UnsupportedApiError } from '../../client/errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { WriteTxnMarkersResponse } from '../../protocol/generated/protocol/WriteTxnMarkers.js';
import { isNetworkFailure, type InterBrokerChannel } from './inter-broker-channel.js';

const WRITE_TXN_MARKERS = apiByKey(27)!;

export interface RemoteMarker {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly commit: boolean;
}

interface Queued {
  readonly marker: RemoteMarker;
  readonly resolve: (code: number) => void;
}

interface Destination {
  queue: Queued[];
  inFlight: boolean;
  scheduled: boolean;
}

const sameTxn = (a: RemoteMarker, b: RemoteMarker): boolean =>
  a.producerEpoch === b.producerEpoch && a.coordinatorEpoch === b.coordinatorEpoch && a.commit === b.commit;

export class TxnMarkerChannel {
  private readonly destinations = new Map<number, Destination>();
  private requests = 0;

  constructor(
    private readonly channel: InterBrokerChannel,
    private readonly logger: (level: string, msg: string) => void,
  ) {}

  /** WriteTxnMarkers requests sent so far (figures, tests). */
  get requestsSent(): number {
    return this.requests;
  }

  /** Queues one partition's marker for broker `destination`; resolves with that partition's error code. */
  write(destination: number, marker: RemoteMarker): Promise<number> {
    let d = this.destinations.get(destination);
    if (!d) this.destinations.set(destination, (d = { queue: [], inFlight: false, scheduled: false }));
    const dest = d;
    return new Promise<number>((resolve) => {
      dest.queue.push({ marker, resolve });
      this.schedule(destination, dest);
    });
  }

  private schedule(id: number, d: Destination): void {
    if (d.inFlight || d.scheduled || d.queue.length === 0) return;
    d.scheduled = true;
    // markers queued in this turn of the event loop (one transaction's partitions) share the request
    setImmediate(() => {
      d.scheduled = false;
      void this.drain(id, d);
    });
  }

  private async drain(id: number, d: Destination): Promise<void> {
    if (d.inFlight || d.queue.length === 0) return;
    const batch: Queued[] = [];
    const byProducer = new Map<number, RemoteMarker>();
    const later: Queued[] = [];
    for (const q of d.queue) {
      const first = byProducer.get(q.marker.producerId);
      if (first && !sameTxn(first, q.marker)) later.push(q);
      else {
        byProducer.set(q.marker.producerId, first ?? q.marker);
        batch.push(q);
      }
    }
    d.queue = later;
    d.inFlight = true;
    try {
      const codes = await this.send(id, batch);
      batch.forEach((q, i) => q.resolve(codes[i]!));
    } finally {
      d.inFlight = false;
      this.schedule(id, d);
    }
  }

  /** One WriteTxnMarkers request; the error code of each queued marker, in order. */
  private async send(id: number, batch: readonly Queued[]): Promise<number[]> {
    const markers = new Map<number, { marker: RemoteMarker; topics: Map<string, number[]> }>();
    for (const { marker } of batch) {
      let m = markers.get(marker.producerId);
      if (!m) markers.set(marker.producerId, (m = { marker, topics: new Map() }));
      let parts = m.topics.get(marker.topic);
      if (!parts) m.topics.set(marker.topic, (parts = []));
      if (!parts.includes(marker.partition)) parts.push(marker.partition);
    }
    const body = {
      markers: [...markers.values()].map(({ marker, topics }) => ({
        producerId: BigInt(marker.producerId),
        producerEpoch: marker.producerEpoch,
        transactionResult: marker.commit,
        coordinatorEpoch: marker.coordinatorEpoch,
        transactionVersion: 0,
        topics: [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      })),
    };
    this.requests++;
    let res: WriteTxnMarkersResponse;
    try {
      res = (await this.channel.send<WriteTxnMarkersResponse>(id, WRITE_TXN_MARKERS, body)).body;
    } catch (e) {
      const code =
        e instanceof UnsupportedApiError
          ? ErrorCode.UNSUPPORTED_VERSION
          : isNetworkFailure(e)
            ? ErrorCode.NETWORK_EXCEPTION
            : ErrorCode.UNKNOWN_SERVER_ERROR;
      this.logger(
        code === ErrorCode.UNKNOWN_SERVER_ERROR ? 'ERROR' : 'INFO',
        `WriteTxnMarkers to broker ${id} (${batch.length} partition(s)) failed (error ${code}): ${code === ErrorCode.UNKNOWN_SERVER_ERROR ? ((e as Error).stack ?? String(e)) : (e as Error).message}`,
      );
      return batch.map(() => code);
    }
    const codes = new Map<string, number>();
    for (const m of res.markers)
      for (const t of m.topics)
        for (const p of t.partitions) codes.set(`${m.producerId}:${t.name}:${p.partitionIndex}`, p.errorCode);
    return batch.map(
      ({ marker }) =>
        codes.get(`${marker.producerId}:${marker.topic}:${marker.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
    );
  }
}
