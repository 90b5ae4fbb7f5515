import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimises a function once it has run about `--interrupt-budget` bytes' worth of its bytecode
 * (67,584 by default), so code that runs once per order rather than once per bar stays unoptimised
 * for a long while: orders sent one after another to a gateway kept getting cheaper until about the
 * 5,000th (290 us each over the first 500, 80 us after), and the SMA example places 5,303 in a
 * whole backtest. With a smaller budget they settled after about 1,000. Measured in the gateway,
 * interleaved runs of the SMA example on 2026-11-25, with 16,000: an order 210-260 us -> 172-211 us
 * from its frame to the end of its write, an ack-to-next-bar 19-22 -> 17-21 us; 8,000 and 32,000
 * did no better.
 *
 * The flag is process-wide, so it is set by the process that hosts gateways (the CLI, the
 * benchmarks), never by importing a library; a budget given on the command line is kept.
 */
export const GATEWAY_INTERRUPT_BUDGET = 16_000;

/**
 * Whether this V8 has `--interrupt-budget` as measured: Node 20's V8 11. Later V8s tier up on other
 * counters, and an unknown flag would only print an error.
 */
export const JIT_TUNING_APPLIES = process.versions.v8.startsWith('11.');

export function tuneJitForBacktests(execArgv: readonly string[] = process.execArgv): void {
  if (!JIT_TUNING_APPLIES || execArgv.some((arg) => /^--interrupt[-_]budget/.test(arg))) return;
  setFlagsFromString(`--interrupt-budget=${GATEWAY_INTERRUPT_BUDGET}`);
}
