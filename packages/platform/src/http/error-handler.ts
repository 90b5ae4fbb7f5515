import { ApiError } from '@hindsight/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { isTransientDatabaseError } from '../db/transient.ts';

/**
 * Every failure leaves as the spec's `{error: {code, message, details?}}`. Request validation throws
 * ApiError itself (request-validation.ts); other framework errors (bad JSON, content type, body size)
 * map to BAD_REQUEST with a message saying what to fix; a database that cannot be reached for the
 * moment (restart, failover) is SERVICE_UNAVAILABLE, the spec's one retryable code; anything
 * unexpected is INTERNAL_ERROR with no internals leaked, logged with its request id.
 */
const frameworkMessages: Record<string, (error: FastifyError) => string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => 'Content-Type must be application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'Content-Length does not match the body.',
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'The body is empty; send a JSON object or omit the Content-Type header.',
  FST_ERR_CTP_BODY_TOO_LARGE: () => 'The body is too large (the limit is 1 MiB).',
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => `The body is not valid JSON: ${e.message}`,
  FST_ERR_CTP_MALFORMED_JSON: (e) => `The body is not valid JSON: ${e.message}`,
};

export function toApiError(error: unknown, log: FastifyRequest['log']): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (isResponseSerializationError(error)) {
    log.error({ err: error, issues: error.cause.issues }, 'response did not match its schema');
    return new ApiError('INTERNAL_ERROR', 'Unexpected server failure.');
  }
  const known = fastifyError.code ? frameworkMessages[fastifyError.code] : undefined;
  if (known) return new ApiError('BAD_REQUEST', known(fastifyError));
  if (error instanceof SyntaxError || (fastifyError.statusCode && fastifyError.statusCode < 500)) {
    return new ApiError('BAD_REQUEST', fastifyError.message || 'Malformed request.');
  }
  if (isTransientDatabaseError(error)) {
    log.warn({ err: error }, 'the database is unreachable');
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'The database cannot be reached for the moment; retry with exponential backoff.',
    );
  }
  log.error({ err: error }, 'unexpected failure');
  return new ApiError('INTERNAL_ERROR', 'Unexpected server failure.');
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request.log);
    const body = apiError.toBody();
    if (apiError.code === 'INTERNAL_ERROR') body.error.message += ` Request id: ${request.id}.`;
    // Errors bypass response schemas so a failure can never turn into a serialization failure.
    return reply
      .code(apiError.status)
      .type('application/json; charset=utf-8')
      .serializer(JSON.stringify)
      .send(body);
  });
}
