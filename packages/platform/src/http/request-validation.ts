import { ApiError, formatIssues } from '@hindsight/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { unstorableTextIssues } from './storable-text.ts';

/**
 * One validator for every request part of every route: zod parses, and failures are formatted by the
 * same `formatIssues` as every other validation error, so field paths are exact
 * (`subscriptions[0].events[2]`, `env["MY-KEY"]`) and `details` lists every issue. What passes its
 * schema is then held to what storage can take (storable-text.ts): every string of a body, and every
 * query parameter, must be free of NUL and unpaired surrogates. Path parameters are ids checked by
 * format, so they never reach storage as free text.
 */
const partLabel: Record<string, string> = { querystring: 'query parameter', params: 'path parameter' };
const storedParts = new Set(['body', 'querystring']);

export const requestValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const label = httpPart ? partLabel[httpPart] : undefined;
  const refuse = (issues: { path: PropertyKey[]; message: string }[]) => {
    const { message, details } = formatIssues(issues);
    return { error: new ApiError('BAD_REQUEST', label ? `${label} ${message}` : message, details) };
  };
  const checkStorable = httpPart !== undefined && storedParts.has(httpPart);
  return (data: unknown) => {
    const result = schema.safeParse(data);
    if (!result.success) {
      return refuse(result.error.issues.map((issue) => ({ path: issue.path, message: issue.message })));
    }
    const unstorable = checkStorable ? unstorableTextIssues(result.data) : [];
    return unstorable.length > 0 ? refuse(unstorable) : { value: result.data };
  };
};
