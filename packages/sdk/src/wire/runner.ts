import { CandleHistory } from '../candle-history.ts';
import { Context } from '../context.ts';
import { type DispatchedEvent, Dispatcher } from '../dispatcher.ts';
import { StrategyDefinitionError } from '../errors.ts';
import { type ParamDefaults, resolveParams } from '../params.ts';
import { createHandlers, type Strategy } from '../strategy.ts';
import { GatewayConnection } from './connection.ts';
import { SocketVenue } from './socket-venue.ts';
import { WireCandle } from './wire-candle.ts';

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
  const params = resolveParams(strategy.params, env);
  const handlers = createHandlers(strategy, params);
  const history = new CandleHistory();
  let connection!: GatewayConnection;
  let ackScheduled = false;
  let acked = 0;
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const dispatcher = new Dispatcher<P>(
    handlers,
    history,
    () => {
      // One ack for every frame of a read: events that arrive together are acknowledged together.
      if (ackScheduled || dispatcher.lastSeq <= acked) return;
      ackScheduled = true;
      queueMicrotask(() => {
        ackScheduled = false;
        if (dispatcher.busy || dispatcher.lastSeq <= acked) return;
        acked = dispatcher.lastSeq;
        connection.ack(acked);
      });
    },
    (error) => fail(error),
  );
  const ctx = new Context<P>(
    params,
    new SocketVenue((method, path, body) => connection.request(method, path, body)),
    history,
    dispatcher,
    options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  );
  dispatcher.ctx = ctx;
  connection = new GatewayConnection(url, env.PLATFORM_GATEWAY_API_KEY || undefined, {
    event(frame) {
      const event = frame as DispatchedEvent;
      if (event.type === 'candle') event.bar = new WireCandle(event.bar as Record<string, string>);
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
  if (handlers.onStart) await dispatcher.run(() => handlers.onStart?.(ctx));
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
