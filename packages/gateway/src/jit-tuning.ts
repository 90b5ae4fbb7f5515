import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimises a function once it has run about `--interrupt-budget` bytes' worth of its bytecode
 * (67,584 by default), so code that runs once per order rather than once per bar stays unoptimised
 * for a long while: in a backtest of the SMA example (5,303 orders over 131,040 bars), an order over
 * the socket was still getting cheaper after 5,000 orders. A quarter of the default gets the order
 * path (route, validation, engine, events) optimised after a few hundred orders. Measured in the
 * gateway, interleaved runs on 2026-11-25: an order 210-260 us -> 172-211 us from its frame to the
 * end of its write, an ack-to-next-bar 19-22 -> 17-20 us; 4,000 and 32,000 did no better.
 *
 * The flag is process-wide, so it is set by the process that hosts gateways (the CLI, the
 * benchmarks), never by importing a library; a budget given on the command line is kept.
 */
export const GATEWAY_INTERRUPT_BUDGET = 16_000;

export function tuneJitForBacktests(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => arg.startsWith('--interrupt-budget'))) return;
  setFlagsFromString(`--interrupt-budget=${GATEWAY_INTERRUPT_BUDGET}`);
}
