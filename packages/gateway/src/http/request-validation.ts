import { formatPath } from '@hindsight/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { GatewayError } from '../errors.ts';

/**
 * Query strings and path parameters are parsed by their zod schemas; a failure is the spec's 400:
 * INVALID_REQUEST for an unknown parameter, INVALID_VALUE (with `details.field` and
 * `details.provided`) for a bad value. The socket's calls (`stream/socket-requests.ts`) run these
 * same validators. Bodies are read by the trading service, once, through the protocol module
 * (`protocol/`), so that both transports read them the same way.
 */
const partLabel: Record<string, string> = { querystring: 'query parameter', params: 'path parameter' };

export const requestValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return (data: unknown) => ({ value: data });
  const label = (httpPart && partLabel[httpPart]) ?? 'parameter';
  return (data: unknown) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.join(', ');
      return {
        error: new GatewayError('INVALID_REQUEST', `Unknown ${label} ${keys}; remove it.`, {
          unknown: issue.keys,
        }),
      };
    }
    const field = formatPath(issue.path);
    const provided =
      data && typeof data === 'object' ? (data as Record<string, unknown>)[String(issue.path[0])] : data;
    return {
      error: new GatewayError('INVALID_VALUE', `${label} ${field}: ${issue.message}`, {
        field,
        provided: provided ?? null,
      }),
    };
  };
};
