// DescribeUserScramCredentials (API 50), v0, on broker listeners (and advertised on controller
// listeners, which answer UNKNOWN_SERVER_ERROR as Kafka's do): served from the broker's metadata
// image (KafkaApis.handleDescribeUserScramCredentialsRequest → ScramImage.describe): every user with
// a credential when no users are named, else each named user once: its mechanisms and iterations,
// RESOURCE_NOT_FOUND for a user without credentials, DUPLICATE_RESOURCE for a user named twice.
// Users come in the order of Kafka's HashMap of names; a user's mechanisms by type (Kafka's order
// is that of a HashMap keyed by enum constants, which varies from one JVM run to the next).
// DESCRIBE on the cluster is required (31, no message).
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
  DescribeUserScramCredentialsResponseDescribeUserScramCredentialsResult as Result,
} from '../../protocol/generated/protocol/DescribeUserScramCredentials.js';
import { SCRAM_MECHANISMS } from '../../protocol/sasl/scram.js';
import { javaHashMapOrder } from '../../storage/formatter.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { imageOf } from './admin-support.js';
import { AclOperation, authorizeCluster } from './authz.js';

const DESCRIBE_DUPLICATE_USER = 'Cannot describe SCRAM credentials for the same user twice in a single request: ';
const DESCRIBE_USER_THAT_DOES_NOT_EXIST = 'Attempt to describe a user credential that does not exist: ';

/** ScramImage.describe. */
export function describeScramCredentials(
  image: MetadataImage,
  req: DescribeUserScramCredentialsRequest,
): DescribeUserScramCredentialsResponse {
  const unique = new Map<string, boolean>();
  if (req.users === null || req.users.length === 0) {
    for (const c of image.scramCredentials.values()) unique.set(c.name, false);
  } else {
    for (const u of req.users) unique.set(u.name, unique.has(u.name));
  }
  const results: Result[] = [];
  for (const user of javaHashMapOrder([...unique.keys()])) {
    if (unique.get(user)) {
      results.push({
        user,
        errorCode: ErrorCode.DUPLICATE_RESOURCE,
        errorMessage: DESCRIBE_DUPLICATE_USER + user,
        credentialInfos: [],
      });
      continue;
    }
    const credentialInfos = SCRAM_MECHANISMS.flatMap((m) => {
      const c = image.scramCredentials.get(`${m.type}:${user}`);
      return c ? [{ mechanism: m.type, iterations: c.iterations }] : [];
    });
    results.push(
      credentialInfos.length > 0
        ? { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos }
        : {
            user,
            errorCode: ErrorCode.RESOURCE_NOT_FOUND,
            errorMessage: DESCRIBE_USER_THAT_DOES_NOT_EXIST + user,
            credentialInfos: [],
          },
    );
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
}

function handle(
  ctx: RequestContext,
  req: DescribeUserScramCredentialsRequest,
  services: BrokerServices,
): DescribeUserScramCredentialsResponse {
  if (ctx.isControllerListener) {
    // Kafka's controller advertises the API (its schema lists the controller) but ControllerApis
    // has no handler: ApiException("Unsupported ApiKey 50"), answered by getErrorResponse with
    // UNKNOWN_SERVER_ERROR, no message, and (sic) one result without a user name per named user.
    const error = { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
    return {
      throttleTimeMs: 0,
      ...error,
      results: (req.users ?? []).map(() => ({ user: '', ...error, credentialInfos: [] })),
    };
  }
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE)) {
    // KafkaApis: getErrorResponse(CLUSTER_AUTHORIZATION_FAILED.exception): one result without a user
    // name per named user; ApiError.fromThrowable drops the generic message
    const error = { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null };
    return {
      throttleTimeMs: 0,
      ...error,
      results: (req.users ?? []).map(() => ({ user: '', ...error, credentialInfos: [] })),
    };
  }
  return describeScramCredentials(imageOf(services), req);
}

export const handler: ApiHandler<BrokerServices> = {
  apiKey: ApiKey.DescribeUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
