import type { DispatchedEvent } from '../dispatcher.ts';
import { StrategyDefinitionError } from '../errors.ts';
import type { ParamDefaults } from '../params.ts';
import type { Strategy } from '../strategy.ts';
import { StrategyRun } from '../strategy-run.ts';
import { deliveredSubscriptions } from '../subscriptions.ts';
import { GatewayConnection } from './connection.ts';
import { SocketVenue } from './socket-venue.ts';
import { wireCandle } from './wire-candle.ts';

/**
 * Runs a strategy over the wire, as the platform starts it (docs/sdk.md, Running): the gateway's
 * address and key from the environment, parameters from their variables. Resolves when the backtest
 * ends; rejects when a handler throws, the strategy is misconfigured or the gateway is lost.
 * `run` wraps it for a strategy's main module: exit 0 at the end, 1 with the error's stack, 2 for
 * a configuration problem.
 */
export interface WireOptions {
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
}

export async function runOverWire<P extends ParamDefaults>(
  strategy: Strategy<P>,
  options: WireOptions = {},
): Promise<void> {
  const env = options.env ?? process.env;
  const url = env.PROXY_WS_URL;
  if (!url)
    throw new StrategyDefinitionError(
      "PROXY_WS_URL is not set: the gateway's event stream, ws://host:port/v1/ws",
    );
  let connection!: GatewayConnection;
  let ackScheduled = false;
  let acked = 0;
  const run: StrategyRun<P> = new StrategyRun(strategy, {
    env,
    // Over the socket: the gateway's connection exists by the time a handler calls.
    venue: new SocketVenue((method, path, body) => connection.request(method, path, body)),
    drained: () => {
      // One ack for every frame of a read: events that arrive together are acknowledged together.
      const { dispatcher } = run;
      if (ackScheduled || dispatcher.lastSeq <= acked) return;
      ackScheduled = true;
      queueMicrotask(() => {
        ackScheduled = false;
        if (dispatcher.busy || dispatcher.lastSeq <= acked) return;
        acked = dispatcher.lastSeq;
        connection.ack(acked);
      });
    },
    ...(options.log && { log: options.log }),
    subscriptions: deliveredSubscriptions(env.PLATFORM_SUBSCRIPTIONS),
  });
  const { dispatcher, handlers, ctx } = run;
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  void run.failed.then(fail);
  connection = new GatewayConnection(url, env.PLATFORM_GATEWAY_API_KEY || undefined, {
    event(frame) {
      const event = frame as DispatchedEvent;
      if (event.type === 'candle') event.bar = wireCandle(event.bar as Record<string, string>);
      dispatcher.receive([event]);
    },
    ended(error) {
      dispatcher.stop();
      void (async () => {
        if (handlers.onEnd) await handlers.onEnd(ctx);
        connection.close();
        if (error) ctx.log(`the backtest ended: ${error}`);
        finish();
      })().catch(fail);
    },
    lost: (error) => fail(error),
  });
  // The run starts at the connection; events that come during onStart wait for it.
  await connection.open();
  await run.start();
  try {
    await done;
  } finally {
    dispatcher.stop();
    connection.close();
  }
}

/** A strategy module's entry point: runs it over the wire and exits with the run's status. */
export function run<P extends ParamDefaults>(strategy: Strategy<P>, options: WireOptions = {}): void {
  runOverWire(strategy, options).then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof StrategyDefinitionError) {
        process.stderr.write(`${error.message}\n`);
        process.exit(2);
      }
      process.stderr.write(
        `the strategy failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
