import { fileURLToPath } from 'node:url';
import { checkScenario } from '@hindsight/gateway';
import { BarStore, MemoryObjectStore } from '@hindsight/marketdata';
import { strategyOf } from '@hindsight/sdk';
import { runInProcess } from '@hindsight/sdk/in-process';
import { btcBars, runBtc } from './engine.ts';

/**
 * The SDK's in-process runner against the engine's own figure, on the 131,040 BTC sample bars
 * (Jan-Mar 2024): the SMA example (`examples/sma-crossover-typescript/strategy.ts`, the strategy
 * a user writes, through the gateway's trading service and simulation provider) beside the engine
 * benchmark's hand-written in-process SMA (`bench/engine.ts`), interleaved, medians of 5 runs after
 * 2 warm-up runs each. `sdk_inprocess_vs_engine` is the ratio of their speeds.
 */
const EXAMPLE = fileURLToPath(new URL('../examples/sma-crossover-typescript/strategy.ts', import.meta.url));
const SCENARIO = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-01T00:00:00Z',
  endTime: '2024-04-01T00:00:00Z',
  costs: {
    commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
    slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
  },
};

export async function run(): Promise<void> {
  const quarter = await btcBars();
  const store = new BarStore(new MemoryObjectStore());
  await store.writeBars('C:BTCUSD', quarter);
  const scenario = await checkScenario('bench', SCENARIO, store);
  const strategy = strategyOf(await import(EXAMPLE), EXAMPLE);
  const sdkOnce = async () => {
    const started = process.hrtime.bigint();
    const end = await runInProcess(strategy, { scenario, store });
    if (end.outcome.kind !== 'completed') throw new Error(JSON.stringify(end.outcome));
    return {
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      trades: end.files?.metrics.totalTrades,
    };
  };
  const engineOnce = () => runBtc(store, 'sma');
  // Interleaved: each engine run is followed by an SDK run, so both see the same machine.
  const engineRuns: { seconds: number }[] = [];
  const sdkRuns: { seconds: number; trades: number | undefined }[] = [];
  for (let i = 0; i < 7; i++) {
    const engine = await engineOnce();
    const sdk = await sdkOnce();
    if (i >= 2) {
      engineRuns.push(engine);
      sdkRuns.push(sdk);
    }
  }
  const mid = <T extends { seconds: number }>(runs: T[]) =>
    [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)] as T;
  const engine = mid(engineRuns);
  const sdk = mid(sdkRuns);
  const bars = quarter.length;
  console.log(`BENCH sdk_inprocess_sma_bars_per_s ${Math.round(bars / sdk.seconds)} bars/s`);
  console.log(`BENCH engine_sma_crossover_bars_per_second ${Math.round(bars / engine.seconds)} bars/s`);
  console.log(`BENCH sdk_inprocess_vs_engine ${(engine.seconds / sdk.seconds).toFixed(3)} ratio`);
  console.log(`BENCH sdk_inprocess_sma_closed_trades ${sdk.trades} trades`);
}
