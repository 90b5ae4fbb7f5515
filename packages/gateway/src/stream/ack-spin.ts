/**
 * Busy-polling while a backtest waits for the strategy's `event_ack` (ack-gated time).
 *
 * Why: a backtest is a ping-pong, one event batch out and one ack back per bar, and on a virtual
 * machine most of a round trip is waking a sleeping process (the hypervisor's inter-processor
 * wake-up), not the work on either side. Measured here (bench/gateway.ts floors, a 2-vCPU VM): a C
 * ping-pong over loopback does ~19-26 k round trips/s when both sides block, ~46 k when one side
 * polls instead of sleeping. A gateway that keeps its event loop turning for a short while after
 * sending a batch reads the ack as soon as it lands instead of being woken for it; this is the idle
 * strategy low-latency systems use (Aeron's spin-then-park, the kernel's busy_poll, adaptive mutexes).
 *
 * The event loop keeps turning through a chain of `setImmediate`: with an immediate pending, libuv
 * polls for I/O without blocking, so the ack (and any REST order the strategy sends first) is handled
 * on the next turn. Nothing else changes: the ack is processed by the same code as without spinning.
 *
 * Adaptive, so that a slow strategy does not pay for it: each wait spins up to `limitMicros`. An ack
 * that arrives in time doubles the limit (up to the maximum), so an occasional late ack (a collection
 * pause in the strategy) costs little; a wait that outlasts it halves the limit, and under
 * `MIN_USEFUL_MICROS` spinning stops (the grow and shrink of the kernel's haltpoll idle governor). A
 * stopped spin probes again with the full limit every `PROBE_EVERY` waits, so a strategy that speeds
 * up (warm JIT, quieter machine) gets it back. A slow strategy costs at most one probe per
 * `PROBE_EVERY` events; a strategy starved of CPU by the spin (fewer cores than busy processes)
 * answers late, which turns the spin off the same way. A request the strategy sends over its socket
 * before acking (an order) holds the wait while the gateway runs it (`hold`, `release`): that time
 * is the gateway's, and counting it would halve the limit at every order.
 */
const MIN_USEFUL_MICROS = 10;
const PROBE_EVERY = 128;

export class AckSpin {
  private limit: number;
  private deadline = 0;
  private spinning = false;
  private waiting = false;
  /** The gateway is running a request of the strategy's: the wait does not run out meanwhile. */
  private held = false;
  private waitsSinceProbe = 0;
  private readonly turn = () => this.onTurn();

  /** `maxMicros` 0 disables spinning (the event loop sleeps until the ack wakes it). */
  constructor(
    private readonly maxMicros: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.limit = maxMicros;
  }

  /** The current spin limit in microseconds (0 while spinning is off between probes). */
  get limitMicros(): number {
    return this.limit;
  }

  /** Whether the event loop is being kept turning now. */
  get active(): boolean {
    return this.spinning;
  }

  /** A wait for an ack begins: keeps the event loop turning for up to the current limit. */
  begin(): void {
    if (this.maxMicros === 0) return;
    let limit = this.limit;
    if (limit === 0) {
      if (++this.waitsSinceProbe < PROBE_EVERY) return;
      this.waitsSinceProbe = 0;
      limit = this.maxMicros;
    }
    this.waiting = true;
    this.deadline = this.now() + limit / 1000;
    if (!this.spinning) {
      this.spinning = true;
      setImmediate(this.turn);
    }
  }

  /**
   * The strategy sent a request before its ack (an order, say): the time the gateway spends running
   * it is not the strategy being slow, so the wait is held until `release`, then starts afresh.
   */
  hold(): void {
    if (this.waiting) this.held = true;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.deadline = this.now() + this.limit / 1000;
  }

  /** The ack arrived (or the wait ended otherwise) while spinning: spin longer next time. */
  end(): void {
    this.held = false;
    if (!this.waiting) return;
    this.waiting = false;
    this.limit = this.limit === 0 ? this.maxMicros : Math.min(this.maxMicros, this.limit * 2);
  }

  private onTurn(): void {
    if (this.waiting && (this.held || this.now() < this.deadline)) {
      setImmediate(this.turn);
      return;
    }
    this.spinning = false;
    if (!this.waiting) return;
    // The ack did not come in time: spin less, or not at all until the next probe (a missed probe
    // leaves the limit at 0).
    this.waiting = false;
    const halved = this.limit / 2;
    this.limit = halved < MIN_USEFUL_MICROS ? 0 : halved;
  }
}
