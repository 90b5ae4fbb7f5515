import { badRequest, formatIssues } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import { nestingIssues } from './json-limits.ts';

/**
 * The JSON body parser: Fastify's own (secure-json-parse; `__proto__` and `constructor.prototype` keys
 * refused) followed by the nesting limit of json-limits.ts, for every JSON body of every route. V8's
 * JSON.parse and secure-json-parse's key scan are iterative, so even a body nested 500,000 levels deep
 * (the most 1 MiB holds) parses; it is then refused here with a 400 naming the field, before any
 * recursive code (validation, logging, `JSON.stringify`, storage) could overflow the stack on it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const issues = nestingIssues(value);
      if (issues.length === 0) return done(null, value);
      const { message, details } = formatIssues(issues);
      done(badRequest(message, details), undefined);
    });
  });
}
