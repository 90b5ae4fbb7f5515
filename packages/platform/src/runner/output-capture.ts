/**
 * A bounded copy of one output stream of a strategy: the first `headBytes` and the last `tailBytes`,
 * with a marker where the middle was dropped. A strategy that prints without end costs a fixed amount
 * of memory and storage, and both how it started and how it ended stay readable.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  /** Every byte written, kept or not. */
  totalBytes = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  /** Bound, so it can be handed out as a sink. */
  readonly write = (chunk: Buffer): void => {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headBytes) {
      const take = Math.min(this.headBytes - this.headLength, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailBytes === 0) return;
    this.tail.push(Buffer.from(rest));
    this.tailLength += rest.length;
    if (this.tailLength > 2 * this.tailBytes) this.trimTail();
  };

  private trimTail(): void {
    const joined = Buffer.concat(this.tail);
    const kept = joined.subarray(Math.max(0, joined.length - this.tailBytes));
    this.tail = [kept];
    this.tailLength = kept.length;
  }

  /** What is kept: head, then (if anything was dropped) a marker line, then the tail. */
  contents(): Buffer {
    this.trimTail();
    const dropped = this.totalBytes - this.headLength - this.tailLength;
    const parts = [...this.head];
    if (dropped > 0) parts.push(Buffer.from(`\n[hindsight: ${dropped} bytes of output omitted here]\n`));
    parts.push(...this.tail);
    return Buffer.concat(parts);
  }

  /** The last `bytes` bytes as text (an error message quotes the end of stderr). */
  lastText(bytes: number): string {
    const all = this.contents();
    return all
      .subarray(Math.max(0, all.length - bytes))
      .toString('utf8')
      .trim();
  }
}
