import {
  costsSchema,
  inlineConfigurationSchema,
  type SavedConfiguration,
  savedConfigurationSchema,
} from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../http/authentication.ts';
import type { PlatformContext } from '../http/context.ts';
import { withStoredJsonLimits } from '../http/json-limits.ts';
import { loadOwned } from '../http/owned-resource.ts';
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
import type { Configuration, ConfigurationInput } from '../repositories/configurations.ts';

const withId = <T extends z.ZodType>(schema: T, id: string): T => schema.meta({ ...schema.meta(), id }) as T;

const savedBody = withStoredJsonLimits(withId(savedConfigurationSchema, 'SavedConfiguration'), [
  'subscriptions',
  'costs',
]);
// Scenario creation (a later issue) takes this body; it is published now so the document is whole.
withId(inlineConfigurationSchema, 'InlineConfiguration');

export const configurationSchema = z
  .object({
    configId: z.uuid(),
    ownerId: z.uuid(),
    name: z.string(),
    description: z.string().optional(),
    isActive: z.boolean(),
    subscriptions: z.array(z.object({ instrument: z.string(), events: z.array(z.string()) })),
    startTime: z.string(),
    endTime: z.string(),
    positionMode: z.enum(['netting', 'hedging']),
    initialCapital: z.number(),
    env: z.record(z.string(), z.string()).optional(),
    costs: costsSchema.optional(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Configuration' });

const toInput = (body: SavedConfiguration): ConfigurationInput => body as ConfigurationInput;

const idParams = z.object({ config_id: uuidParam });
const tags = ['Configurations'];

export async function configurationRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const loadConfiguration = loadOwned('config_id', (owner, id) => ctx.configurations.get(owner, id));
  const present = (c: Configuration) => toWire(c);
  const config = { auth: 'key' as const };

  api.get(
    '/v1/configurations',
    {
      config,
      schema: {
        tags,
        operationId: 'listConfigurations',
        summary: 'List saved configurations',
        security: security.key,
        querystring: z.object({
          ...pageQuery,
          activeOnly: booleanQuery
            .optional()
            .meta({ description: 'Only configurations with isActive true.' }),
        }),
        response: { 200: collection(configurationSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, cursor, activeOnly } = request.query;
      const page = await ctx.configurations.list(principalOf(request).userId, {
        limit,
        cursor,
        activeOnly: activeOnly ?? false,
      });
      return { data: page.items.map(present), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    },
  );

  api.post(
    '/v1/configurations',
    {
      config,
      schema: {
        tags,
        operationId: 'createConfiguration',
        summary: 'Create a saved configuration',
        security: security.key,
        body: savedBody,
        response: { 201: envelope(configurationSchema), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      await ctx.catalog.assertConfigurationRules(request.body);
      const created = await ctx.configurations.create(principalOf(request).userId, toInput(request.body));
      return reply.code(201).send({ data: present(created) });
    },
  );

  api.get(
    '/v1/configurations/:config_id',
    {
      config,
      onRequest: loadConfiguration,
      schema: {
        tags,
        operationId: 'getConfiguration',
        summary: 'Get a saved configuration',
        security: security.key,
        params: idParams,
        response: { 200: envelope(configurationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: present(request.owned as Configuration) }),
  );

  api.put(
    '/v1/configurations/:config_id',
    {
      config,
      onRequest: loadConfiguration,
      schema: {
        tags,
        operationId: 'replaceConfiguration',
        summary: 'Replace a saved configuration',
        description:
          'Replaces the whole configuration: omitted optional fields return to their defaults, and an omitted `env` clears every key.',
        security: security.key,
        params: idParams,
        body: savedBody,
        response: { 200: envelope(configurationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await ctx.catalog.assertConfigurationRules(request.body);
      const replaced = await ctx.configurations.replace(
        principalOf(request).userId,
        request.params.config_id,
        toInput(request.body),
      );
      return { data: present(replaced) };
    },
  );

  api.delete(
    '/v1/configurations/:config_id',
    {
      config,
      onRequest: loadConfiguration,
      schema: {
        tags,
        operationId: 'deleteConfiguration',
        summary: 'Delete a saved configuration',
        description: 'A configuration bound to a strategy auto-run cannot be deleted (409).',
        security: security.key,
        params: idParams,
        response: {
          204: z.null().meta({ description: 'Deleted.' }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      await ctx.configurations.delete(principalOf(request).userId, request.params.config_id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/v1/configurations/:config_id/clone',
    {
      config,
      onRequest: loadConfiguration,
      schema: {
        tags,
        operationId: 'cloneConfiguration',
        summary: 'Clone a saved configuration',
        description: 'The copy is named `<name> (copy)` and copies everything else.',
        security: security.key,
        params: idParams,
        response: { 201: envelope(configurationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const copy = await ctx.configurations.clone(principalOf(request).userId, request.params.config_id);
      return reply.code(201).send({ data: present(copy) });
    },
  );
}
