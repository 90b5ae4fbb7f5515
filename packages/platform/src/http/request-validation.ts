import { ApiError, formatIssues } from '@hindsight/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/**
 * One validator for every request part of every route: zod parses, and failures are formatted by the
 * same `formatIssues` as every other validation error, so field paths are exact
 * (`subscriptions[0].events[2]`, `env["MY-KEY"]`) and `details` lists every issue.
 */
const partLabel: Record<string, string> = { querystring: 'query parameter', params: 'path parameter' };

export const requestValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    const label = httpPart ? partLabel[httpPart] : undefined;
    const issues = result.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
    const { message, details } = formatIssues(issues);
    return { error: new ApiError('BAD_REQUEST', label ? `${label} ${message}` : message, details) };
  };
};
