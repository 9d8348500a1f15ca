// SCRAM credentials on the controller (Kafka's ScramControlManager.alterCredentials): one
// AlterUserScramCredentials request checked per user (a user named twice, an empty name, an
// unknown mechanism, too few or too many iterations, the deletion of a credential that does not
// exist), then a RemoveUserScramCredentialRecord per deletion and a UserScramCredentialRecord per
// upsertion whose storedKey and serverKey the controller derives from the salted password.
// Results come deletions first, then upsertions, then errors, each group in the order of Kafka's
// HashMap of user names.
import type {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsRequestScramCredentialDeletion as Deletion,
  AlterUserScramCredentialsRequestScramCredentialUpsertion as Upsertion,
  AlterUserScramCredentialsResponse,
  AlterUserScramCredentialsResponseAlterUserScramCredentialsResult as Result,
} from '../../protocol/generated/protocol/AlterUserScramCredentials.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { credentialFromSaltedPassword, scramMechanismByType } from '../../protocol/sasl/scram.js';
import { javaHashMapOrder } from '../../storage/formatter.js';
import type { MetadataImage } from '../metadata/image.js';
import { apiError, NONE, ErrorCode, type ApiError } from './errors.js';

/** ScramControlManager.MAX_ITERATIONS. */
export const MAX_SCRAM_ITERATIONS = 16384;
/** MetadataVersion.IBP_3_5_IV2, the first with SCRAM records (isScramSupported). */
const IBP_3_5_IV2 = 11;

const TWICE = 'A user credential cannot be altered twice in the same request';

/** ScramControlManager.validateScramUsernameAndMechanism. */
function validateUsernameAndMechanism(name: string, mechanism: number): ApiError {
  if (name === '') return apiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty');
  if (!scramMechanismByType(mechanism))
    return apiError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism');
  return NONE;
}

function validateUpsertion(u: Upsertion): ApiError {
  const error = validateUsernameAndMechanism(u.name, u.mechanism);
  if (error.errorCode !== ErrorCode.NONE) return error;
  const m = scramMechanismByType(u.mechanism)!;
  if (u.iterations < m.minIterations) return apiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations');
  if (u.iterations > MAX_SCRAM_ITERATIONS) return apiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations');
  return NONE;
}

function validateDeletion(image: MetadataImage, d: Deletion): ApiError {
  const error = validateUsernameAndMechanism(d.name, d.mechanism);
  if (error.errorCode !== ErrorCode.NONE) return error;
  if (!image.scramCredentials.has(`${d.mechanism}:${d.name}`))
    return apiError(ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist');
  return NONE;
}

/** ScramControlManager.alterCredentials: the records (all or nothing) and the per-user results. */
export function alterUserScramCredentials(
  image: MetadataImage,
  req: Pick<AlterUserScramCredentialsRequest, 'deletions' | 'upsertions'>,
): { records: MetadataRecord[]; response: AlterUserScramCredentialsResponse } {
  const supported = image.metadataVersion >= IBP_3_5_IV2;
  const toDelete = new Map<string, Deletion>();
  const toUpsert = new Map<string, Upsertion>();
  const errors = new Map<string, ApiError>();
  const unsupported = apiError(ErrorCode.UNSUPPORTED_VERSION, 'The current metadata.version does not support SCRAM');
  for (const d of req.deletions) {
    if (errors.has(d.name)) continue;
    if (toDelete.delete(d.name)) {
      errors.set(d.name, apiError(ErrorCode.DUPLICATE_RESOURCE, TWICE));
    } else if (!supported) {
      errors.set(d.name, unsupported);
    } else {
      const error = validateDeletion(image, d);
      if (error.errorCode !== ErrorCode.NONE) errors.set(d.name, error);
      else toDelete.set(d.name, d);
    }
  }
  for (const u of req.upsertions) {
    if (errors.has(u.name)) continue;
    // (sic) both removals run only when the first finds nothing: Kafka's ||
    if (toDelete.delete(u.name) || toUpsert.delete(u.name)) {
      errors.set(u.name, apiError(ErrorCode.DUPLICATE_RESOURCE, TWICE));
    } else if (!supported) {
      errors.set(u.name, unsupported);
    } else {
      const error = validateUpsertion(u);
      if (error.errorCode !== ErrorCode.NONE) errors.set(u.name, error);
      else toUpsert.set(u.name, u);
    }
  }
  const results: Result[] = [];
  const records: MetadataRecord[] = [];
  const ok = (user: string): Result => ({ user, errorCode: ErrorCode.NONE, errorMessage: null });
  for (const name of javaHashMapOrder([...toDelete.keys()])) {
    const d = toDelete.get(name)!;
    results.push(ok(name));
    records.push(metadataRecord(RecordType.RemoveUserScramCredential, 0, { name, mechanism: d.mechanism }));
  }
  for (const name of javaHashMapOrder([...toUpsert.keys()])) {
    const u = toUpsert.get(name)!;
    const m = scramMechanismByType(u.mechanism)!;
    const cred = credentialFromSaltedPassword(m, u.salt, u.saltedPassword, u.iterations);
    records.push(
      metadataRecord(RecordType.UserScramCredential, 0, {
        name,
        mechanism: u.mechanism,
        salt: cred.salt,
        storedKey: cred.storedKey,
        serverKey: cred.serverKey,
        iterations: cred.iterations,
      }),
    );
    results.push(ok(name));
  }
  for (const name of javaHashMapOrder([...errors.keys()])) {
    const e = errors.get(name)!;
    results.push({ user: name, errorCode: e.errorCode, errorMessage: e.errorMessage });
  }
  return { records, response: { throttleTimeMs: 0, results } };
}
