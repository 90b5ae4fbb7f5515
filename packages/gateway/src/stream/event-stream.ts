import type { EventSink, ProviderEvent } from '../provider/provider.ts';
import { eventText } from './event-text.ts';
import { textFrame, textFrames } from './frames.ts';

/**
 * The event stream behind `/v1/ws` (trading-gateway.md: Events; decisions 19a, 19b).
 *
 * - Every event leaves with a `seq` from one counter, strictly increasing on every connection.
 *   Provider events are broadcast to every connection and kept in a bounded buffer, so a client that
 *   reconnects with `?resume_from_seq=N` receives every buffered event after N. Events for one
 *   connection (its CONNECTED, an INVALID_MESSAGE error) take a seq too, so another connection can see
 *   gaps: seq is monotonic, not contiguous.
 * - Acknowledgment: provider events are outstanding until an `event_ack` drains them. An ack with
 *   `last_seq` drains events up to that seq; one without drains everything sent so far.
 *   `waitForAcks` calls back when nothing is outstanding; simulation mode advances time only then.
 * - A strategy that leaves events outstanding for `stallTimeoutMs` fails the wait with a
 *   `StallError` (0 disables the timeout: the run then waits for ever, as the spec describes).
 * - Each event is serialised and framed once (`frames.ts`) for every connection; the ring keeps the
 *   text for resumption (frames kept there, buffers outside V8's heap, cost more system time in
 *   allocation and collection than re-framing the rare resume).
 * - What is sent to a connection while the event loop handles one round of I/O is written at the
 *   end of that round, in one write (`setImmediate`): the events of the orders of several HTTP
 *   requests answered in the same round share a write. `afterFlush` lets the HTTP layer hold a
 *   response until then, so that an order call's events still leave before its answer. A provider
 *   that starts waiting for acknowledgments has published its batch: it leaves at once.
 */
export interface StreamClient {
  /** Writes complete WebSocket frames (one or more, back to back) now. */
  write(frames: Buffer): void;
}

export class StallError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the strategy left events unacknowledged for ${timeoutMs / 1000} s (stall timeout)`);
    this.name = 'StallError';
  }
}

/** The stream closed (the gateway shuts down) while a provider waited for acks. */
export class StreamClosedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StreamClosedError';
  }
}

export class ResumeGapError extends Error {
  constructor(
    readonly requested: number,
    readonly oldestAvailable: number,
  ) {
    super(
      `events after seq ${requested} are no longer buffered; the oldest buffered event is seq ${oldestAvailable}`,
    );
    this.name = 'ResumeGapError';
  }
}

export interface EventStreamOptions {
  /** Buffered provider events kept for resumption (default 16,384). */
  bufferSize?: number;
  stallTimeoutMs: number;
  /** Told how many provider events each publish sent (metrics). */
  onPublished?: (count: number) => void;
}

export class EventStream implements EventSink {
  private seq = 0;
  /** Highest seq drained by an ack. */
  private acked = 0;
  /** Highest seq of a provider event (outstanding while > acked). */
  private lastGated = 0;
  private readonly clients = new Set<StreamClient>();
  private readonly ring: (string | undefined)[];
  private readonly ringSeq: Float64Array;
  private ringNext = 0;
  private ringCount = 0;
  /** Whether the ring has ever dropped an event (only then can a resume miss one). */
  private evicted = false;
  /**
   * While the batch stepped by an ack is published within the same read (until the microtask
   * queue next runs), the highest seq that ack could have meant: a further ack without `last_seq`
   * in the same read (a client acking each event of a batch) drains up to it, not the new batch.
   */
  private drainableThrough: number | undefined;
  private readonly endDrainBoundary = () => {
    this.drainableThrough = undefined;
  };
  private waiter: { settled: () => void; failed: (error: Error) => void } | undefined;
  /** One stall timer for the whole run, re-armed at each wait (not a new timer per batch). */
  private stallTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Frames waiting for the end of this round of I/O, per connection, in order. */
  private readonly queued = new Map<StreamClient, Buffer[]>();
  private scheduledFlush: NodeJS.Immediate | undefined;
  private afterFlushCallbacks: (() => void)[] = [];
  private readonly flushAtEndOfRound = () => this.flush();

  constructor(private readonly options: EventStreamOptions) {
    const size = options.bufferSize ?? 16_384;
    this.ring = new Array(size);
    this.ringSeq = new Float64Array(size);
  }

  get lastSeq(): number {
    return this.seq;
  }

  get outstanding(): boolean {
    return this.lastGated > this.acked;
  }

  get connectionCount(): number {
    return this.clients.size;
  }

  add(client: StreamClient): void {
    this.clients.add(client);
  }

  remove(client: StreamClient): void {
    this.clients.delete(client);
    this.queued.delete(client);
  }

  publish(events: readonly ProviderEvent[]): void {
    const count = events.length;
    if (count === 0) return;
    const texts = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      const event = events[i] as ProviderEvent;
      event.seq = ++this.seq;
      texts[i] = eventText(event);
    }
    const first = this.seq - count + 1;
    for (let i = 0; i < count; i++) this.keep(first + i, texts[i] as string);
    this.lastGated = this.seq;
    if (this.clients.size > 0) {
      const batch = textFrames(texts);
      for (const client of this.clients) this.queue(client, batch);
    }
    this.options.onPublished?.(count);
  }

  /** An event for every connection that does not gate time (rate limits, end of run). */
  broadcast(event: ProviderEvent): void {
    event.seq = ++this.seq;
    const frame = textFrame(JSON.stringify(event));
    for (const client of this.clients) this.queue(client, frame);
  }

  /** An event for one connection only; it takes a seq but is neither buffered nor outstanding. */
  sendTo(client: StreamClient, event: ProviderEvent): void {
    event.seq = ++this.seq;
    this.queue(client, textFrame(JSON.stringify(event)));
  }

  /** Like `sendTo`, for a text already serialised but for its seq (a `response` frame). */
  sendTextTo(client: StreamClient, textOf: (seq: number) => string): void {
    this.queue(client, textFrame(textOf(++this.seq)));
  }

  /** Sends a resuming connection the buffered events after `afterSeq` (see `replayAfter`). */
  replayTo(client: StreamClient, afterSeq: number): void {
    const missed = this.replayAfter(afterSeq);
    if (missed.length > 0) this.queue(client, textFrames(missed));
  }

  /** Writes everything queued now (before a close frame, which `ws` writes at once). */
  flush(): void {
    if (this.scheduledFlush) clearImmediate(this.scheduledFlush);
    this.scheduledFlush = undefined;
    for (const [client, frames] of this.queued) {
      client.write(frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames));
    }
    this.queued.clear();
    const callbacks = this.afterFlushCallbacks;
    if (callbacks.length === 0) return;
    this.afterFlushCallbacks = [];
    for (const callback of callbacks) callback();
  }

  /** Calls `then` once what is queued now has been written: at once when nothing is queued. */
  afterFlush(then: () => void): void {
    if (this.scheduledFlush) this.afterFlushCallbacks.push(then);
    else then();
  }

  private queue(client: StreamClient, frames: Buffer): void {
    const queued = this.queued.get(client);
    if (queued) queued.push(frames);
    else this.queued.set(client, [frames]);
    this.scheduledFlush ??= setImmediate(this.flushAtEndOfRound);
  }

  /** The buffered events after `afterSeq` (resumption); throws when some are gone. */
  replayAfter(afterSeq: number): string[] {
    // Once the ring has dropped events, a resume from before the oldest kept one would miss some.
    if (this.evicted && afterSeq + 1 < this.oldestBuffered()) {
      throw new ResumeGapError(afterSeq, this.oldestBuffered());
    }
    const out: string[] = [];
    const size = this.ring.length;
    const start = (this.ringNext - this.ringCount + size) % size;
    for (let i = 0; i < this.ringCount; i++) {
      const slot = (start + i) % size;
      if ((this.ringSeq[slot] as number) > afterSeq) out.push(this.ring[slot] as string);
    }
    return out;
  }

  /** Applies an `event_ack`: drains up to `lastSeq`, or everything sent when it is absent. */
  ack(lastSeq?: number): void {
    const upTo = lastSeq === undefined ? (this.drainableThrough ?? this.seq) : Math.min(lastSeq, this.seq);
    if (upTo > this.acked) this.acked = upTo;
    if (!this.outstanding) this.wake();
  }

  /**
   * Whether the strategy has events to acknowledge. If it has, `settled` is called once the last of
   * them is acknowledged, from the `ack` that drains it, before that ack's frame handler returns: no
   * promise in between, since a backtest waits once per bar. `failed` is called instead with a
   * `StallError` past the stall timeout, or an Error when the stream closes. One wait at a time.
   */
  waitForAcks(settled: () => void, failed: (error: Error) => void): boolean {
    if (!this.outstanding) return false;
    if (this.waiter) throw new Error('the event stream is already waited for');
    if (this.closed) {
      failed(new StreamClosedError('the event stream is closed'));
      return true;
    }
    // The provider waits: it has published its batch, which need not wait for the end of the round.
    if (this.scheduledFlush) this.flush();
    this.waiter = { settled, failed };
    const timeout = this.options.stallTimeoutMs;
    if (timeout > 0) {
      if (this.stallTimer) this.stallTimer.refresh().ref();
      else this.stallTimer = setTimeout(() => this.fail(new StallError(timeout)), timeout);
    }
    return true;
  }

  /** Stops waiting: a pending wait fails (shutdown). */
  close(reason = 'the gateway is shutting down'): void {
    this.closed = true;
    this.fail(new StreamClosedError(reason));
    clearTimeout(this.stallTimer);
  }

  private wake(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    // Left to fire harmlessly (nobody waits then) unless the next wait re-arms it first.
    this.stallTimer?.unref();
    if (this.drainableThrough === undefined) queueMicrotask(this.endDrainBoundary);
    this.drainableThrough = this.seq;
    waiter.settled();
  }

  private fail(error: Error): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    this.stallTimer?.unref();
    waiter.failed(error);
  }

  private keep(seq: number, text: string): void {
    const size = this.ring.length;
    this.ring[this.ringNext] = text;
    this.ringSeq[this.ringNext] = seq;
    this.ringNext = (this.ringNext + 1) % size;
    if (this.ringCount < size) this.ringCount++;
    else this.evicted = true;
  }

  private oldestBuffered(): number {
    const size = this.ring.length;
    return this.ringSeq[(this.ringNext - this.ringCount + size) % size] as number;
  }
}
