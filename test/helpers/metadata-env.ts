// Shared setup for the metadata/KRaft tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QuorumController, type QuorumControllerOptions } from '../../src/broker/controller/index.js';

export const CLUSTER_ID = 'MkU3OEVBNTcwNTJENDM2Qg';

export function tempDir(prefix = 'tkafka-md-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function baseOptions(dir: string, extra: Partial<QuorumControllerOptions> = {}): QuorumControllerOptions {
  return {
    metadataLogDir: dir,
    nodeId: 1,
    clusterId: CLUSTER_ID,
    directoryId: 'J8aAPcfLQt2bqs1JT_rMgQ',
    brokerListeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' }],
    controllerListeners: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
    ...extra,
  };
}

export async function openController(
  dir: string,
  extra: Partial<QuorumControllerOptions> = {},
): Promise<QuorumController> {
  return QuorumController.open(baseOptions(dir, extra));
}

/** Registers and unfences extra brokers (ids given) so placement has more than one broker. */
export async function addBrokers(
  c: QuorumController,
  ids: number[],
  rack: (id: number) => string | null = () => null,
): Promise<void> {
  for (const id of ids) {
    const reg = await c.registerBroker({
      brokerId: id,
      incarnationId: Buffer.alloc(16, id).toString('base64url'),
      listeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 + id * 10, securityProtocol: 0 }],
      features: new Map([
        ['metadata.version', { min: 7, max: 33 }],
        ['group.version', { min: 0, max: 1 }],
        ['transaction.version', { min: 0, max: 2 }],
        ['eligible.leader.replicas.version', { min: 0, max: 1 }],
        ['share.version', { min: 0, max: 2 }],
        ['streams.version', { min: 0, max: 1 }],
      ]),
      rack: rack(id),
      logDirs: [Buffer.alloc(16, 100 + id).toString('base64url')],
    });
    if (reg.errorCode !== 0) throw new Error(`register ${id}: ${reg.errorMessage}`);
    const un = await c.unfenceBroker(id, reg.brokerEpoch);
    if (un.errorCode !== 0) throw new Error(`unfence ${id}: ${un.errorMessage}`);
  }
}
