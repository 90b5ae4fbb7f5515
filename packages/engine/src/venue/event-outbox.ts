/**
 * The events waiting for the engine's next `drain`, handed over as one array the caller then owns.
 * Most bars emit a single event (the candle): it goes out as an array literal of one slot, where the
 * first push into a fresh `[]` grew a 17-slot backing store (and called the push builtin) every bar.
 */
export class EventOutbox<T> {
  private pending: T[] | undefined;

  get size(): number {
    return this.pending === undefined ? 0 : this.pending.length;
  }

  push(event: T): void {
    if (this.pending === undefined) this.pending = [event];
    else this.pending.push(event);
  }

  /** The events so far, in order (a new empty array when there are none); none wait afterwards. */
  take(): T[] {
    const events = this.pending ?? [];
    this.pending = undefined;
    return events;
  }
}
