import type { EventSink, ProviderEvent } from '../provider/provider.ts';

/**
 * The event stream behind `/v1/ws` (trading-gateway.md: Events; decisions 19a, 19b).
 *
 * - Every event leaves with a `seq` from one counter, strictly increasing on every connection.
 *   Provider events are broadcast to every connection and kept in a bounded buffer, so a client that
 *   reconnects with `?resume_from_seq=N` receives every buffered event after N. Events for one
 *   connection (its CONNECTED, an INVALID_MESSAGE error) take a seq too, so another connection can see
 *   gaps: seq is monotonic, not contiguous.
 * - Acknowledgment: provider events are outstanding until an `event_ack` drains them. An ack with
 *   `last_seq` drains events up to that seq; one without drains everything sent so far. `settled()`
 *   resolves when nothing is outstanding; simulation mode advances time only then.
 * - A strategy that leaves events outstanding for `stallTimeoutMs` makes `settled()` reject with a
 *   `StallError` (0 disables the timeout: the run then waits for ever, as the spec describes).
 */
export interface StreamClient {
  /** Sends already-serialised events, in order, as one write where possible. */
  sendFrames(frames: readonly string[]): void;
}

export class StallError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the strategy left events unacknowledged for ${timeoutMs / 1000} s (stall timeout)`);
    this.name = 'StallError';
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
  private waiter: { resolve: () => void; reject: (error: Error) => void; timer?: NodeJS.Timeout } | undefined;
  private pendingSettle: Promise<void> | undefined;
  private closed = false;

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
  }

  publish(events: readonly ProviderEvent[]): void {
    if (events.length === 0) return;
    const frames: string[] = new Array(events.length);
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as ProviderEvent;
      event.seq = ++this.seq;
      const text = JSON.stringify(event);
      frames[i] = text;
      this.keep(this.seq, text);
    }
    this.lastGated = this.seq;
    for (const client of this.clients) client.sendFrames(frames);
    this.options.onPublished?.(frames.length);
  }

  /** An event for every connection that does not gate time (rate limits, end of run). */
  broadcast(event: ProviderEvent): void {
    event.seq = ++this.seq;
    const frames = [JSON.stringify(event)];
    for (const client of this.clients) client.sendFrames(frames);
  }

  /** An event for one connection only; it takes a seq but is neither buffered nor outstanding. */
  sendTo(client: StreamClient, event: ProviderEvent): void {
    event.seq = ++this.seq;
    client.sendFrames([JSON.stringify(event)]);
  }

  /** The buffered events after `afterSeq`, for a resuming connection; throws when some are gone. */
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
    const upTo = lastSeq === undefined ? this.seq : Math.min(lastSeq, this.seq);
    if (upTo > this.acked) this.acked = upTo;
    if (!this.outstanding) this.wake();
  }

  settled(): Promise<void> {
    if (!this.outstanding) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the event stream is closed'));
    if (this.pendingSettle) return this.pendingSettle;
    this.pendingSettle = new Promise<void>((resolve, reject) => {
      const waiter: NonNullable<EventStream['waiter']> = { resolve, reject };
      if (this.options.stallTimeoutMs > 0) {
        const timeout = this.options.stallTimeoutMs;
        waiter.timer = setTimeout(() => this.fail(new StallError(timeout)), timeout);
      }
      this.waiter = waiter;
    });
    return this.pendingSettle;
  }

  /** Stops waiting: a pending `settled()` rejects (shutdown). */
  close(reason = 'the gateway is shutting down'): void {
    this.closed = true;
    this.fail(new Error(reason));
  }

  private wake(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    this.pendingSettle = undefined;
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.resolve();
  }

  private fail(error: Error): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    this.pendingSettle = undefined;
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.reject(error);
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
