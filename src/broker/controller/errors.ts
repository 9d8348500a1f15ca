// Results of controller operations carry Kafka error codes and messages, like ApiError.

import { ErrorCode, errorInfo, KafkaError } from '../../protocol/errors.js';

export interface ApiError {
  readonly errorCode: number;
  /** null for success (ApiError.NONE); otherwise the specific or the default message. */
  readonly errorMessage: string | null;
}

export const NONE: ApiError = Object.freeze({ errorCode: ErrorCode.NONE, errorMessage: null });

/** `new ApiError(error, message)`; without a message, the error's default message. */
export function apiError(code: number, message?: string | null): ApiError {
  return {
    errorCode: code,
    errorMessage: message === undefined ? (code === 0 ? null : errorInfo(code).message) : message,
  };
}

/** ApiError.fromThrowable. */
export function apiErrorFrom(e: unknown): ApiError {
  if (e instanceof KafkaError) return apiError(e.code, e.message);
  if (e && typeof e === 'object' && 'errorCode' in e && typeof (e as ApiError).errorCode === 'number') {
    return apiError((e as ApiError).errorCode, (e as ApiError).errorMessage ?? undefined);
  }
  return apiError(ErrorCode.UNKNOWN_SERVER_ERROR, e instanceof Error ? e.message : String(e));
}

/** Thrown inside validation code and turned into an ApiError by the operation. */
export function fail(code: number, message?: string): never {
  throw new KafkaError(code, message);
}

export { ErrorCode, KafkaError };
