import { badRequest, notFound } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiKeyPrefixPattern } from '../auth/api-key-values.ts';
import { principalOf } from '../http/authentication.ts';
import type { PlatformContext } from '../http/context.ts';
import { nameField } from '../http/fields.ts';
import {
  collection,
  envelope,
  errorResponses,
  isoTimestamp,
  pageQuery,
  security,
  toWire,
} from '../http/schemas.ts';

const apiKeySchema = z
  .object({
    prefix: z.string().meta({ description: 'First 8 characters of the key; identifies it for revocation.' }),
    name: z.string(),
    createdAt: isoTimestamp,
    lastUsedAt: isoTimestamp.optional().meta({ description: 'Present once the key has been used.' }),
  })
  .meta({ id: 'ApiKey' });

const createdApiKeySchema = apiKeySchema
  .extend({
    key: z.string().meta({ description: 'The full key. Shown only in this response; store it now.' }),
  })
  .meta({ id: 'CreatedApiKey' });

const tags = ['API keys'];

export async function apiKeyRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List the caller's API keys",
        security: security.session,
        querystring: z.object(pageQuery),
        response: { 200: collection(apiKeySchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await ctx.apiKeys.list(principalOf(request).userId, request.query);
      return { data: page.items.map(toWire), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    },
  );

  api.post(
    '/v1/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description: 'The response carries the full key once; only a hash is kept.',
        security: security.session,
        body: z.strictObject({ name: nameField(100) }),
        response: { 201: envelope(createdApiKeySchema), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const created = await ctx.apiKeys.create(principalOf(request).userId, request.body.name);
      return reply.code(201).send({ data: toWire(created) });
    },
  );

  api.delete(
    '/v1/api-keys/:prefix',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description: 'Takes effect on the next request made with the key.',
        security: security.session,
        params: z.object({ prefix: z.string() }),
        response: { 204: z.null().meta({ description: 'Revoked.' }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { prefix } = request.params;
      if (!apiKeyPrefixPattern.test(prefix)) {
        throw badRequest(`prefix: "${prefix}" is not a key prefix (8 letters or digits).`);
      }
      if (!(await ctx.apiKeys.revoke(principalOf(request).userId, prefix)))
        throw notFound(`API key ${prefix}`);
      return reply.code(204).send(null);
    },
  );
}
