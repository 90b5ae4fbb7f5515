import { candlePatternGrammar, eventDefinitions } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope, security } from '../http/schemas.ts';

const eventFieldSchema: z.ZodType<{
  name: string;
  type: string;
  optional?: boolean;
  description?: string;
  fields?: unknown[];
}> = z
  .object({
    name: z.string(),
    type: z.string(),
    optional: z.boolean().optional(),
    description: z.string().optional(),
    get fields() {
      return z.array(eventFieldSchema).optional();
    },
  })
  .meta({ id: 'EventField' });

const eventDefinitionSchema = z
  .object({
    kind: z
      .string()
      .meta({ description: 'What a subscription names; `candle_<timeframe>` stands for the grammar.' }),
    wireType: z.string().meta({ description: 'The `type` of the WebSocket message carrying the event.' }),
    description: z.string(),
    eventTypes: z.array(z.string()).meta({ description: 'Values of the message `event` field, if any.' }),
    payload: z.array(eventFieldSchema),
    patterns: z
      .array(z.object({ pattern: z.string(), expandsTo: z.array(z.string()), description: z.string() }))
      .optional()
      .meta({ description: 'Candle only: the whole pattern grammar. Anything else is rejected.' }),
  })
  .meta({ id: 'EventDefinition' });

export async function eventRoutes(app: FastifyInstance) {
  const definitions = eventDefinitions.map((d) =>
    d.wireType === 'candle' ? { ...d, patterns: candlePatternGrammar } : d,
  );
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/events',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Reference'],
        operationId: 'listEvents',
        summary: 'List event definitions',
        description: 'Every subscribable event kind with its payload, and the candle pattern grammar.',
        security: security.public,
        response: { 200: envelope(z.array(eventDefinitionSchema)) },
      },
    },
    async () => ({ data: definitions as z.infer<typeof eventDefinitionSchema>[] }),
  );
}
