import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { GatewayContext } from './context.ts';

/**
 * A REST operation defined once for both transports: its method, path and schemas (which validate
 * the path and query, serialise the answer and write the OpenAPI document), and `run`, which calls
 * the trading service (`trading/trading-service.ts`). `registerOperations` makes each a Fastify route;
 * `stream/socket-requests.ts` builds the socket's `(method, path)` table from the same list, with the
 * same validators and serialisers, so a call answers alike over HTTP and over the socket.
 */
export type OperationMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface OperationSchema {
  tags: string[];
  operationId: string;
  summary: string;
  description?: string;
  security: { [scheme: string]: string[] }[];
  params?: z.ZodType;
  querystring?: z.ZodType;
  /** For the OpenAPI document only: bodies are read by the trading service, through the protocol module. */
  body?: z.ZodType;
  response: Record<number | string, z.ZodType>;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface OperationInput<S extends OperationSchema> {
  params: Parsed<S['params']>;
  query: Parsed<S['querystring']>;
  /** The body as JSON (undefined when none was sent). */
  body: unknown;
}

/** What an operation answers: the status and the body its response schema serialises. */
export interface OperationAnswer {
  status: number;
  body: unknown;
}

export interface Operation<S extends OperationSchema = OperationSchema> {
  method: OperationMethod;
  url: string;
  schema: S;
  /** Outside the ingress rate limit (guards.ts), as `config.unmetered`. */
  unmetered?: boolean;
  /** Without authentication (guards.ts), as `config.public`. */
  public?: boolean;
  run(ctx: GatewayContext, input: OperationInput<S>): Promise<OperationAnswer> | OperationAnswer;
}

/** Defines an operation, typing `run`'s input by its schemas. */
export const operation = <S extends OperationSchema>(definition: Operation<S>): Operation =>
  definition as unknown as Operation;

/** The common answer: 200 with `body`. */
export const ok = (body: unknown): OperationAnswer => ({ status: 200, body });

/** Registers every operation as a Fastify route: Fastify validates, authenticates, meters and serialises. */
export function registerOperations(
  app: FastifyInstance,
  ctx: GatewayContext,
  operations: readonly Operation[],
): void {
  for (const op of operations) {
    app.route({
      method: op.method,
      url: op.url,
      schema: op.schema,
      config: { ...(op.public && { public: true }), ...(op.unmetered && { unmetered: true }) },
      handler: async (request, reply) => {
        const answer = await op.run(ctx, request as unknown as OperationInput<OperationSchema>);
        return reply.code(answer.status).send(answer.body);
      },
    });
  }
}
