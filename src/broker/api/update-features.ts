// UpdateFeatures (API 57), v0-2: finalize feature levels (`tkafka features upgrade/downgrade/
// disable`, Admin.updateFeatures). Kafka's broker forwards it to the active controller, whose
// QuorumController.updateFeatures answers: any error fails every update ("The update failed for all
// features since the following feature had an error: ..."), nothing is written. v0 has
// AllowDowngrade instead of UpgradeType (true: SAFE_DOWNGRADE); v1 adds ValidateOnly; v2 answers
// without per-feature results (v0-1 list every feature with the top-level error, success only).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { UpdateFeaturesRequest } from '../../protocol/generated/protocol/UpdateFeatures.js';
import { ErrorCode } from '../../protocol/errors.js';
import { UpgradeType } from '../controller/features.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(ctx: RequestContext, req: UpdateFeaturesRequest, services: BrokerServices): Promise<unknown> {
  const v = ctx.apiVersion;
  // a repeated feature: the last update counts (Kafka collects them in a map)
  const byName = new Map<string, { feature: string; level: number; upgradeType: number }>();
  for (const u of req.featureUpdates) {
    const upgradeType = v === 0 ? (u.allowDowngrade ? UpgradeType.SAFE_DOWNGRADE : UpgradeType.UPGRADE) : u.upgradeType;
    byName.set(u.feature, { feature: u.feature, level: u.maxVersionLevel, upgradeType });
  }
  const error = await controllerOf(services).updateFeatures([...byName.values()], {
    validateOnly: v >= 1 && req.validateOnly,
  });
  if (error.errorCode !== ErrorCode.NONE) {
    return {
      throttleTimeMs: 0,
      errorCode: error.errorCode,
      errorMessage: `The update failed for all features since the following feature had an error: ${error.errorMessage}`,
      results: [],
    };
  }
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    results: v <= 1 ? req.featureUpdates.map((u) => ({ feature: u.feature, errorCode: 0, errorMessage: null })) : [],
  };
}

export const handler: ApiHandler<BrokerServices> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.UpdateFeatures,
    minVersion: 0,
    maxVersion: 2,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, results: [] }),
  },
);
