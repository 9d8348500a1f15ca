// DescribeClientQuotas (API 48), v0-1, on broker listeners: the quotas of the metadata image whose
// entity matches the filter (KafkaApis.handleDescribeClientQuotasRequest → ClientQuotasImage.describe),
// with Kafka's INVALID_REQUEST / UNSUPPORTED_VERSION for a bad filter (top-level error, no entries).
// Read-only: `configs --describe --entity-type users` asks it before the SCRAM credentials.
// Without DESCRIBE_CONFIGS on the cluster: CLUSTER_AUTHORIZATION_FAILED with the error's default message
// (DescribeClientQuotasRequest.getErrorResponse), no entries.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode, errorInfo, KafkaError } from '../../protocol/errors.js';
import type {
  DescribeClientQuotasRequest,
  DescribeClientQuotasResponse,
  DescribeClientQuotasResponseEntryData,
} from '../../protocol/generated/protocol/DescribeClientQuotas.js';
import { javaHashMapOrder } from '../../storage/formatter.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { imageOf } from './admin-support.js';
import { AclOperation, authorizeCluster } from './authz.js';

const USER = 'user';
const CLIENT_ID = 'client-id';
const IP = 'ip';
const MATCH_TYPE_EXACT = 0;
const MATCH_TYPE_DEFAULT = 1;
const MATCH_TYPE_SPECIFIED = 2;

const invalid = (message: string): never => {
  throw new KafkaError(ErrorCode.INVALID_REQUEST, message);
};

/** ClientQuotasImage.describe; throws KafkaError for a bad filter. */
export function describeClientQuotas(
  image: MetadataImage,
  req: DescribeClientQuotasRequest,
): DescribeClientQuotasResponseEntryData[] {
  const exactMatch = new Map<string, string | null>();
  const typeMatch = new Set<string>();
  for (const c of req.components) {
    if (c.entityType === '') invalid('Invalid empty entity type.');
    else if (exactMatch.has(c.entityType) || typeMatch.has(c.entityType))
      invalid(`Entity type ${c.entityType} cannot appear more than once in the filter.`);
    if (c.entityType !== IP && c.entityType !== USER && c.entityType !== CLIENT_ID)
      throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`);
    switch (c.matchType) {
      case MATCH_TYPE_EXACT:
        if (c.match === null) invalid('Request specified MATCH_TYPE_EXACT, but set match string to null.');
        exactMatch.set(c.entityType, c.match);
        break;
      case MATCH_TYPE_DEFAULT:
        if (c.match !== null) invalid('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
        exactMatch.set(c.entityType, null);
        break;
      case MATCH_TYPE_SPECIFIED:
        if (c.match !== null) invalid('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
        typeMatch.add(c.entityType);
        break;
      default:
        invalid(`Unknown match type ${c.matchType}`);
    }
  }
  const has = (t: string): boolean => exactMatch.has(t) || typeMatch.has(t);
  if (has(IP) && (has(USER) || has(CLIENT_ID)))
    invalid(
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    );
  const out: DescribeClientQuotasResponseEntryData[] = [];
  for (const q of image.clientQuotas.values()) {
    const entries = new Map(q.entries.map((e) => [e.entityType, e.entityName] as const));
    if (req.strict && entries.size !== exactMatch.size + typeMatch.size) continue;
    if ([...exactMatch].some(([t, name]) => !entries.has(t) || entries.get(t) !== name)) continue;
    if ([...typeMatch].some((t) => !entries.has(t))) continue;
    out.push({
      entity: [...entries].map(([entityType, entityName]) => ({ entityType, entityName })),
      values: javaHashMapOrder([...q.quotas.keys()]).map((key) => ({ key, value: q.quotas.get(key)! })),
    });
  }
  return out;
}

function handle(
  ctx: RequestContext,
  req: DescribeClientQuotasRequest,
  services: BrokerServices,
): DescribeClientQuotasResponse {
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE_CONFIGS)) {
    const code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
    return { throttleTimeMs: 0, errorCode: code, errorMessage: errorInfo(code).message, entries: null };
  }
  try {
    const entries = describeClientQuotas(imageOf(services), req);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
  } catch (e) {
    if (!(e instanceof KafkaError)) throw e;
    return { throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, entries: null };
  }
}

export const handler: ApiHandler<BrokerServices> = {
  apiKey: ApiKey.DescribeClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
