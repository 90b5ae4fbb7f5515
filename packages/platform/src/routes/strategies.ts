import { badRequest } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../http/authentication.ts';
import type { PlatformContext } from '../http/context.ts';
import { descriptionField, nameField, notNullMessage } from '../http/fields.ts';
import { loadOwned, ownedOf } from '../http/owned-resource.ts';
import {
  booleanQuery,
  collection,
  envelope,
  errorResponses,
  isoTimestamp,
  pageQuery,
  security,
  toWire,
  uuidParam,
} from '../http/schemas.ts';
import { type Strategy, UnknownConfigIdError } from '../repositories/strategies.ts';

export const strategySchema = z
  .object({
    strategyId: z.uuid(),
    name: z.string(),
    description: z.string().optional(),
    status: z.enum(['active', 'archived']).meta({ description: 'Archived strategies stay readable by id.' }),
    ownerId: z.uuid(),
    createdBy: z.string().meta({ description: 'Id of the user who created the strategy.' }),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Strategy' });

const createBody = z.strictObject({ name: nameField(), description: descriptionField().optional() });
const updateBody = z
  .strictObject({ name: nameField().optional(), description: descriptionField().optional() })
  .refine(
    (b) => b.name !== undefined || b.description !== undefined,
    'give at least one of name and description',
  );
const autoRunBody = z
  .strictObject({
    configIds: z
      .array(z.uuid('must be a configuration id (UUID)'), {
        error: notNullMessage('an array of configuration ids'),
      })
      .max(100, 'at most 100 configurations can auto-run'),
  })
  .meta({ id: 'AutoRunConfigsRequest' });
const autoRunResult = z
  .object({ strategyId: z.uuid(), configIds: z.array(z.uuid()) })
  .meta({ id: 'AutoRunConfigs' });

const idParams = z.object({ strategy_id: uuidParam });
const tags = ['Strategies'];

export async function strategyRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const loadStrategy = loadOwned('strategy_id', (owner, id) => ctx.strategies.get(owner, id));
  const present = (s: Strategy) => toWire(s);

  api.get(
    '/v1/strategies',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'listStrategies',
        summary: 'List strategies',
        security: security.key,
        querystring: z.object({
          ...pageQuery,
          includeArchived: booleanQuery.optional().meta({ description: 'Include archived strategies.' }),
        }),
        response: { 200: collection(strategySchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, cursor, includeArchived } = request.query;
      const page = await ctx.strategies.list(principalOf(request).userId, {
        limit,
        cursor,
        includeArchived: includeArchived ?? false,
      });
      return { data: page.items.map(present), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    },
  );

  api.post(
    '/v1/strategies',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'createStrategy',
        summary: 'Create a strategy',
        security: security.key,
        body: createBody,
        response: { 201: envelope(strategySchema), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const strategy = await ctx.strategies.create(principal.userId, principal.userId, request.body);
      return reply.code(201).send({ data: present(strategy) });
    },
  );

  api.get(
    '/v1/strategies/:strategy_id',
    {
      config: { auth: 'key' },
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'getStrategy',
        summary: 'Get a strategy',
        security: security.key,
        params: idParams,
        response: { 200: envelope(strategySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: present(ownedOf<Strategy>(request)) }),
  );

  api.put(
    '/v1/strategies/:strategy_id',
    {
      config: { auth: 'key' },
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'updateStrategy',
        summary: 'Update a strategy',
        description: 'Changes `name` and/or `description`. An archived strategy cannot be updated (409).',
        security: security.key,
        params: idParams,
        body: updateBody,
        response: { 200: envelope(strategySchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: present(
        await ctx.strategies.update(principalOf(request).userId, request.params.strategy_id, request.body),
      ),
    }),
  );

  api.delete(
    '/v1/strategies/:strategy_id',
    {
      config: { auth: 'key' },
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'archiveStrategy',
        summary: 'Archive a strategy',
        description:
          'Archives the strategy (it stays readable by id). Archiving an archived strategy is 409.',
        security: security.key,
        params: idParams,
        response: {
          204: z.null().meta({ description: 'Archived.' }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      await ctx.strategies.archive(principalOf(request).userId, request.params.strategy_id);
      return reply.code(204).send(null);
    },
  );

  api.put(
    '/v1/strategies/:strategy_id/auto-run-configs',
    {
      config: { auth: 'key' },
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'setAutoRunConfigs',
        summary: 'Set the configurations auto-run on new versions',
        description:
          'Replaces the whole set: `configIds` lists saved configurations (of your account) that run automatically against every new version of this strategy. An empty list clears it. A configuration bound here cannot be deleted (409).',
        security: security.key,
        params: idParams,
        body: autoRunBody,
        response: { 200: envelope(autoRunResult), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { strategy_id } = request.params;
      try {
        const configIds = await ctx.strategies.setAutoRunConfigs(
          principalOf(request).userId,
          strategy_id,
          request.body.configIds,
        );
        return { data: { strategyId: ownedOf<Strategy>(request).strategyId, configIds } };
      } catch (error) {
        if (error instanceof UnknownConfigIdError) throw badRequest(error.message);
        throw error;
      }
    },
  );
}
