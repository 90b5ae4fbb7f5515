import type { CandleHistory } from './candle-history.ts';
import type { CallTracker, Context } from './context.ts';
import type { ParamDefaults } from './params.ts';
import type { Candle } from './resources.ts';
import type { Handlers } from './strategy.ts';

/**
 * Hands events to the strategy's handlers, one at a time in the order received, for both runners
 * (docs/sdk.md, Handlers). A handler that returns a promise holds the next event back until it
 * settles; events that arrive meanwhile (an order's own events, sent before its answer) wait in the
 * queue. Once the queue is empty and every call the handlers made has settled, `drained` is called:
 * the wire runner acknowledges with `last_seq`, the in-process runner lets the engine step.
 *
 * A batch of events whose handlers are synchronous is handled without a promise: in-process, this
 * runs once per bar at engine speed.
 */
export interface DispatchedEvent {
  type: string;
  timestamp: string;
  seq?: number;
  [field: string]: unknown;
}

export class Dispatcher<P extends ParamDefaults = ParamDefaults> implements CallTracker {
  private queue: DispatchedEvent[] = [];
  private head = 0;
  private handling = false;
  private outstanding = 0;
  private stopped = false;
  /** The seq of the last event handled (wire events carry one). */
  lastSeq = 0;
  /** Candles handled so far (progress reports). */
  candles = 0;
  private readonly resume = () => this.pump();
  private readonly failed = (error: unknown) => this.fail(error);
  /** The queue ran dry while calls were outstanding: the last one to settle pumps again. */
  private waitingForCalls = false;
  private readonly settled = () => {
    this.outstanding--;
    if (this.outstanding === 0 && this.waitingForCalls) {
      this.waitingForCalls = false;
      this.pump();
    }
  };

  constructor(
    private readonly handlers: Handlers<P>,
    private readonly history: CandleHistory,
    private readonly drained: () => void,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Set once the context exists (it needs this dispatcher to track its calls). */
  ctx!: Context<P>;

  /** Whether events or calls are still being handled (time must not move). */
  get busy(): boolean {
    return this.handling;
  }

  /**
   * Queues the events. The array is handed over (a provider's batch, or a fresh one per frame): it
   * becomes the queue when nothing waits, and later events are added to it, with no copy per bar.
   */
  receive(events: DispatchedEvent[]): void {
    if (this.stopped) return;
    if (!this.handling && this.head === this.queue.length) {
      this.queue = events;
      this.head = 0;
      this.pump();
      return;
    }
    for (const event of events) this.queue.push(event);
    if (!this.handling) this.pump();
  }

  /** Calls the handlers made: a batch is drained only once they have settled. */
  track<T>(call: Promise<T>): Promise<T> {
    this.outstanding++;
    call.then(this.settled, this.settled);
    // The caller gets a promise of its own: one it neither awaits nor catches, when the call fails,
    // is an unhandled rejection, as in any Node program, rather than a silent failure.
    return call.then((value) => value);
  }

  /**
   * Runs a handler outside the event flow (onStart, onEnd) the same way: events that arrive meanwhile
   * wait, and its calls settle before they are handled and the batch is drained.
   */
  async run(handler: () => void | Promise<void>): Promise<void> {
    this.handling = true;
    try {
      await handler();
    } catch (error) {
      this.fail(error);
      return;
    }
    this.pump(); // waits for the handler's calls as a batch's handlers' calls are waited for
  }

  stop(): void {
    this.stopped = true;
  }

  private pump(): void {
    if (this.stopped) return;
    this.handling = true;
    try {
      while (this.head < this.queue.length) {
        const event = this.queue[this.head++] as DispatchedEvent;
        const result = this.handle(event);
        if (event.seq !== undefined) this.lastSeq = event.seq;
        if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(this.resume, this.failed);
          return;
        }
        if (this.stopped) return;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.outstanding > 0) {
      this.waitingForCalls = true;
      return;
    }
    this.queue = [];
    this.head = 0;
    this.handling = false;
    this.drained();
  }

  private handle(event: DispatchedEvent): unknown {
    const { handlers, ctx } = this;
    ctx.setEvent(event);
    switch (event.type) {
      case 'candle': {
        const bar = event.bar as Candle;
        this.candles++;
        this.history.add(bar);
        return handlers.onCandle?.(bar, ctx);
      }
      case 'order':
        return handlers.onOrder?.(event as never, ctx);
      case 'trade':
        return handlers.onTrade?.(event.trade as never, ctx);
      case 'position':
        return handlers.onPosition?.(event as never, ctx);
      case 'account':
        return handlers.onAccount?.(event as never, ctx);
      case 'error':
        return handlers.onError?.(event as never, ctx);
      default:
        return undefined;
    }
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onFailure(error);
  }
}
