import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { GatewayError } from '../errors.ts';

/**
 * Every failure leaves as the bare ApiError `{code, message, details?}`. Framework errors (bad JSON,
 * content type, body size) are INVALID_REQUEST with a message saying what to fix; anything unexpected
 * is INTERNAL_ERROR, logged with its request id and never leaking internals.
 */
const frameworkMessages: Record<string, (error: FastifyError) => string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => 'Content-Type must be application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'Content-Length does not match the body.',
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'The body is empty; send a JSON object or omit the Content-Type header.',
  FST_ERR_CTP_BODY_TOO_LARGE: () => 'The body is too large (the limit is 1 MiB).',
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => `The body is not valid JSON: ${e.message}`,
  FST_ERR_CTP_MALFORMED_JSON: (e) => `The body is not valid JSON: ${e.message}`,
};

export function toGatewayError(error: unknown, log: FastifyRequest['log']): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isResponseSerializationError(error)) {
    log.error({ err: error, issues: error.cause.issues }, 'response did not match its schema');
    return new GatewayError('INTERNAL_ERROR', 'Unexpected gateway failure.');
  }
  const fastifyError = error as FastifyError;
  const known = fastifyError.code ? frameworkMessages[fastifyError.code] : undefined;
  if (known) return new GatewayError('INVALID_REQUEST', known(fastifyError));
  if (error instanceof SyntaxError || (fastifyError.statusCode && fastifyError.statusCode < 500)) {
    return new GatewayError('INVALID_REQUEST', fastifyError.message || 'Malformed request.');
  }
  log.error({ err: error }, 'unexpected failure');
  return new GatewayError('INTERNAL_ERROR', 'Unexpected gateway failure.');
}

/** The status and ApiError body a failure answers with (over HTTP and over the socket). */
export function errorAnswer(
  error: unknown,
  log: FastifyRequest['log'],
  requestId: string,
): { status: number; body: ReturnType<GatewayError['toBody']> } {
  const gatewayError = toGatewayError(error, log);
  const body = gatewayError.toBody();
  if (gatewayError.code === 'INTERNAL_ERROR') body.message += ` Request id: ${requestId}.`;
  return { status: gatewayError.status, body };
}

/** The answer to a path no route has. */
export const notFoundError = (method: string, url: string): GatewayError =>
  new GatewayError(
    'INVALID_REQUEST',
    `${method} ${url.split('?')[0]} is not a gateway endpoint; see /v1/openapi.json.`,
  );

/**
 * Errors Fastify's router raises before any route or hook runs (pass as the server's `frameworkErrors`
 * option): an undecodable URL (`GET /v1/orders/%E0%A4%A`) or an over-long path parameter answers the
 * spec's ApiError, 400 INVALID_REQUEST, instead of Fastify's own body (`FST_ERR_BAD_URL`).
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.raw.url?.split('?')[0] ?? '';
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `A path parameter of ${path} is too long (at most 200 characters).`
      : `The path ${path} is not a valid URL: a percent-escape (%XX) does not decode to UTF-8 text.`;
  const body = new GatewayError('INVALID_REQUEST', message, { path }).toBody();
  reply.code(400).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = errorAnswer(error, request.log, request.id);
    return reply.code(status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const body = notFoundError(request.method, request.url).toBody();
    return reply.code(400).type('application/json; charset=utf-8').send(body);
  });
}
