// A small TCP listener on 127.0.0.1 that records every request frame a real client sends and
// answers just enough (ApiVersions, Metadata, Produce) for the client to get to producing.
// It is a codec test fixture, not a broker: it stores nothing.
import { createServer, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { decodeRequest, encodeResponse, type DecodedRequest } from '../../src/protocol/frame.js';
import { API_SPECS, ApiKey } from '../../src/protocol/generated/apis.js';
import type { ProduceRequest } from '../../src/protocol/generated/protocol/Produce.js';
import type { MetadataRequest } from '../../src/protocol/generated/protocol/Metadata.js';

export interface Captured {
  frame: Buffer; // without the size prefix
  request: DecodedRequest;
}

export interface CaptureBroker {
  port: number;
  captured: Captured[];
  errors: string[];
  close(): Promise<void>;
}

export async function startCaptureBroker(partitions = 3): Promise<CaptureBroker> {
  const captured: Captured[] = [];
  const errors: string[] = [];
  const topicIds = new Map<string, string>();
  let nextOffset = 0n;
  const sockets = new Set<Socket>();
  let port = 0;

  const respond = (req: DecodedRequest): unknown | null => {
    switch (req.apiKey) {
      case ApiKey.ApiVersions:
        return {
          errorCode: 0,
          apiKeys: API_SPECS.filter((a) => a.listeners.includes('broker')).map((a) => ({
            apiKey: a.key,
            // Produce from v0 as Kafka 4 advertises it (KAFKA-18659): librdkafka enables compression only then.
            minVersion: a.key === ApiKey.Produce ? 0 : a.minVersion,
            maxVersion: a.latestVersionUnstable && a.maxVersion > a.minVersion ? a.maxVersion - 1 : a.maxVersion,
          })),
          throttleTimeMs: 0,
        };
      case ApiKey.Metadata: {
        const body = req.body as MetadataRequest;
        const names: string[] = body.topics === null ? [...topicIds.keys()] : body.topics.map((t) => t.name ?? '');
        return {
          brokers: [{ nodeId: 1, host: '127.0.0.1', port, rack: null }],
          clusterId: 'capture-cluster',
          controllerId: 1,
          topics: names.map((name) => {
            if (!topicIds.has(name)) topicIds.set(name, randomBytes(16).toString('base64url'));
            return {
              errorCode: 0,
              name,
              topicId: topicIds.get(name),
              isInternal: false,
              partitions: Array.from({ length: partitions }, (_, i) => ({
                errorCode: 0,
                partitionIndex: i,
                leaderId: 1,
                leaderEpoch: 0,
                replicaNodes: [1],
                isrNodes: [1],
                offlineReplicas: [],
              })),
            };
          }),
        };
      }
      case ApiKey.Produce: {
        const body = req.body as ProduceRequest;
        if (body.acks === 0) return null;
        return {
          responses: body.topicData.map((t) => ({
            name: t.name,
            partitionResponses: t.partitionData.map((p) => {
              const baseOffset = nextOffset;
              nextOffset += 1000n;
              return { index: p.index, errorCode: 0, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n };
            }),
          })),
        };
      }
      default:
        return {};
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0);
        if (pending.length < 4 + size) break;
        const frame = Buffer.from(pending.subarray(4, 4 + size));
        pending = pending.subarray(4 + size);
        try {
          const request = decodeRequest(frame);
          captured.push({ frame, request });
          const body = respond(request);
          if (body !== null)
            socket.write(
              Buffer.concat(encodeResponse(request.apiKey, request.apiVersion, request.correlationId, body)),
            );
        } catch (e) {
          errors.push(`${(e as Error).message} in frame ${frame.subarray(0, 64).toString('hex')}`);
          socket.destroy();
          return;
        }
      }
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  port = (server.address() as { port: number }).port;
  return {
    port,
    captured,
    errors,
    close: () =>
      new Promise<void>((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}
