// The request log (config `tkafka.request.log=true`): one line per request on stderr, like
// Kafka's kafka.request.logger at DEBUG but shorter. Also the record handed to `onRequest` hooks.
import type { ClientInformation } from '../api/types.js';

export interface RequestLogEntry {
  readonly connectionId: string;
  readonly listenerName: string;
  readonly clientAddress: string;
  /** Null when the request was rejected before its header could be read. */
  readonly clientId: string | null;
  readonly clientSoftware: ClientInformation;
  /** -1 when not even the fixed header part could be read. */
  readonly apiKey: number;
  readonly apiName: string;
  /** The version the client sent (not the v0 of a KIP-511 fallback answer). */
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly requestSize: number;
  /** Bytes written, size prefix included; -1 when nothing was written. */
  readonly responseSize: number;
  /** From the moment the request was read off the socket to the moment its response was written. */
  readonly latencyMs: number;
  /** response: answered; noResponse: none due (acks=0); closed: the request closed the connection. */
  readonly outcome: 'response' | 'noResponse' | 'closed';
  /** The connection's principal (User:ANONYMOUS unauthenticated), as Kafka's request log shows it. */
  readonly principal?: string | undefined;
}

export function formatRequestLogLine(e: RequestLogEntry): string {
  const client = `${e.clientId ?? '-'}${e.clientSoftware.softwareName === 'unknown' ? '' : ` (${e.clientSoftware.softwareName} ${e.clientSoftware.softwareVersion})`}`;
  const result =
    e.outcome === 'response'
      ? `response=${e.responseSize}B`
      : e.outcome === 'noResponse'
        ? 'no-response'
        : 'connection-closed';
  return (
    `[request] client=${client} api=${e.apiName} v${e.apiVersion} correlationId=${e.correlationId} ` +
    `latency=${e.latencyMs.toFixed(2)}ms request=${e.requestSize}B ${result} ` +
    `listener=${e.listenerName} connection=${e.connectionId}` +
    (e.principal === undefined ? '' : ` principal=${e.principal}`)
  );
}

/** An onRequest sink that writes formatted lines to a stream (stderr by default). */
export function requestLogWriter(out: NodeJS.WritableStream = process.stderr): (e: RequestLogEntry) => void {
  return (e) => {
    out.write(formatRequestLogLine(e) + '\n');
  };
}
