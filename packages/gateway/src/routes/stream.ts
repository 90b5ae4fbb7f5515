import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import { security } from '../http/schemas.ts';
import { ResumeGapError } from '../stream/event-stream.ts';
import type { SocketRequests } from '../stream/socket-requests.ts';
import { StrategyConnection } from '../stream/strategy-connection.ts';

/**
 * `GET /v1/ws`: the event stream (trading-gateway.md: WebSocket, Events). Authenticated like REST, or
 * with `?api_key=` (decision 18); `?resume_from_seq=N` replays the buffered events after seq N
 * before live ones (a resume from before the buffer is 400 INVALID_VALUE).
 */
export async function streamRoutes(
  app: FastifyInstance,
  {
    ctx,
    connections,
    requests,
  }: { ctx: GatewayContext; connections: Set<StrategyConnection>; requests: SocketRequests },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/v1/ws',
    {
      websocket: true,
      config: { unmetered: true },
      schema: {
        tags: ['Events'],
        operationId: 'openEventStream',
        summary: 'WebSocket event stream (upgrade)',
        description:
          'Upgrades to a WebSocket (scheme ws). Each frame is one event with type, timestamp and a monotonic seq. Clients answer ping with {"type":"pong"} and acknowledge processed events with {"type":"event_ack","correlation_id","events_processed","timestamp","last_seq"}; a backtest advances only when everything sent is acknowledged. Any REST call under /v1/ can also be made over the socket: {"type":"request","request_id","method","path","body"} is answered by {"type":"response","request_id","status","body","timestamp","seq"} with the status and body the same HTTP call gets; frames take effect in the order sent.',
        security,
        querystring: z.strictObject({
          resume_from_seq: z.coerce
            .number({ error: 'must be a non-negative integer' })
            .int({ error: 'must be a non-negative integer' })
            .min(0, { error: 'must be a non-negative integer' })
            .optional()
            .meta({ description: 'Replay every buffered event with a seq after this one.' }),
          api_key: z
            .string()
            .optional()
            .meta({ description: 'The API key, for clients that cannot set headers.' }),
        }),
      },
      preHandler: async (request) => {
        const from = request.query.resume_from_seq;
        if (from === undefined) return;
        try {
          ctx.stream.replayAfter(from);
        } catch (error) {
          if (!(error instanceof ResumeGapError)) throw error;
          throw new GatewayError('INVALID_VALUE', `resume_from_seq: ${error.message}.`, {
            field: 'resume_from_seq',
            provided: from,
            oldest_available_seq: error.oldestAvailable,
          });
        }
      },
    },
    (socket, request) => {
      const connection = new StrategyConnection(socket, request.socket, ctx.stream, {
        heartbeatMs: ctx.heartbeatMs,
        now: () => ctx.provider.now,
        log: ctx.logs.for('gateway::ws'),
        requests,
      });
      connections.add(connection);
      socket.on('close', () => connections.delete(connection));
      // A resumed connection gets what it missed first, so that seq keeps increasing on it.
      const from = request.query.resume_from_seq;
      if (from !== undefined) ctx.stream.replayTo(connection, from);
      ctx.stream.sendTo(connection, {
        type: 'connection',
        event: 'CONNECTED',
        timestamp: new Date(ctx.provider.now).toISOString(),
      });
      ctx.stream.add(connection);
      ctx.provider.strategyConnected();
    },
  );
}
