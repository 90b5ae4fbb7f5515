import { availableParallelism } from 'node:os';
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

/**
 * V8 without helper threads (`--single-threaded`: compiling and collecting on the main thread). A
 * simulation's gateway and its strategy each keep a core busy while they poll for the other's answer
 * (docs/gateway.md, "Waiting for acks"); with no core to spare, V8's helper threads (optimising
 * compiles, parallel scavenges, concurrent marking) take the CPU from one of the pollers, and the
 * event/ack ping-pong stops until it gets it back. On the 2-core benchmark machine, 2026-11-27, the
 * gateway's helper threads used 0.8 s of CPU during a 4.4 s SMA run (0.75 s of it optimising
 * compiles), and without them the same run went from 27.5 k to 30.0 k bars/s (medians of five
 * interleaved pairs; 15 of 17 pairs faster). The flag is read only when V8 starts, so the process
 * that hosts the gateway is started with it (the CLI relaunches itself, `packages/cli/src/relaunch.ts`).
 */
export const SINGLE_THREADED_FLAG = '--single-threaded';

/**
 * The machines where the pollers leave no core to V8's helper threads. Cores as Node 20 counts them
 * (`availableParallelism`: the CPU affinity mask, not a container's CPU quota).
 */
export const SINGLE_THREADED_MAX_CORES = 2;

/**
 * Whether a process that hosts a simulation gateway should run V8 single-threaded:
 * `GATEWAY_SINGLE_THREADED` is `auto` (the default: on machines of at most two cores), `true` or
 * `false`. Throws on any other value, naming the variable.
 */
export function wantsSingleThreadedV8(
  env: Readonly<Record<string, string | undefined>>,
  cores: number = availableParallelism(),
): boolean {
  const value = env.GATEWAY_SINGLE_THREADED ?? 'auto';
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'auto') return cores <= SINGLE_THREADED_MAX_CORES;
  throw new Error(`GATEWAY_SINGLE_THREADED: must be auto, true or false, not ${JSON.stringify(value)}`);
}

/**
 * The V8 flags a process that hosts a simulation gateway wants and was not started with (`execArgv`):
 * what a launcher adds when it starts such a process again. Throws on an invalid
 * `GATEWAY_SINGLE_THREADED`, as `wantsSingleThreadedV8`.
 */
export function missingGatewayV8Flags(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[] = process.execArgv,
  cores: number = availableParallelism(),
): string[] {
  const wanted = wantsSingleThreadedV8(env, cores);
  return wanted && !execArgv.includes(SINGLE_THREADED_FLAG) ? [SINGLE_THREADED_FLAG] : [];
}
