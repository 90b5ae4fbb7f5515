import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkScenario } from '@hindsight/gateway';
import { BarStore, MemoryObjectStore } from '@hindsight/marketdata';
import { strategyOf } from '@hindsight/sdk';
import { runInProcess } from '@hindsight/sdk/in-process';
import { btcBars, runBtc } from './engine.ts';
import {
  BACKTESTING_PY,
  BACKTRADER,
  BTC_QUARTER,
  type PythonLibrary,
  pythonImporting,
  runYardstick,
  withBtcCsv,
} from './python-yardsticks.ts';

/**
 * The SDK's in-process runner against the engine's own figure, on the 131,040 BTC sample bars
 * (Jan-Mar 2024): the SMA example (`examples/sma-crossover-typescript/strategy.ts`, the strategy
 * a user writes, through the gateway's trading service and simulation provider) beside the engine
 * benchmark's hand-written in-process SMA (`bench/engine.ts`), interleaved in 15 pairs after 3
 * warm-up pairs; `sdk_inprocess_vs_engine` is the median of the pairs' speed ratios. Then the
 * commands' figures (`commandFigures`) and the Python yardsticks (`yardsticks`).
 */
const WARM_UP = 3;
const PAIRS = 15;
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
  // Interleaved pairs, the order alternating: each ratio compares runs a moment apart on one machine.
  const engineSeconds: number[] = [];
  const sdkSeconds: number[] = [];
  const ratios: number[] = [];
  let trades: number | undefined;
  for (let i = 0; i < WARM_UP + PAIRS; i++) {
    let engine: number;
    let sdk: { seconds: number; trades: number | undefined };
    if (i % 2 === 0) {
      engine = (await engineOnce()).seconds;
      sdk = await sdkOnce();
    } else {
      sdk = await sdkOnce();
      engine = (await engineOnce()).seconds;
    }
    trades = sdk.trades;
    if (i < WARM_UP) continue;
    engineSeconds.push(engine);
    sdkSeconds.push(sdk.seconds);
    ratios.push(engine / sdk.seconds);
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const bars = quarter.length;
  console.log(`BENCH sdk_inprocess_sma_bars_per_s ${Math.round(bars / median(sdkSeconds))} bars/s`);
  console.log(
    `BENCH engine_sma_crossover_bars_per_second ${Math.round(bars / median(engineSeconds))} bars/s`,
  );
  console.log(`BENCH sdk_inprocess_vs_engine ${median(ratios).toFixed(3)} ratio`);
  console.log(`BENCH sdk_inprocess_sma_closed_trades ${trades} trades`);
  await commandFigures();
  await yardsticks(bars);
}

/**
 * What a user waits for: `hindsight backtest` from process start to exit on the 131,040 bars (the
 * compiled CLI, as `npx hindsight` runs it: `npm run build` after editing sources), in-process and
 * `--wire`, and a 2x2 `--grid` sweep on the machine's cores. Medians of 3 runs each.
 */
async function commandFigures(): Promise<void> {
  const bin = fileURLToPath(new URL('../packages/cli/bin/hindsight.js', import.meta.url));
  if (!existsSync(fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url)))) {
    console.log('# the command figures need the compiled CLI: npm run build');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'hindsight-bench-sdk-'));
  const scenario = join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify(SCENARIO));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('HINDSIGHT_') && k !== 'NODE_OPTIONS'),
  );
  const seconds = async (extra: string[]) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        bin,
        'backtest',
        EXAMPLE,
        '--scenario',
        scenario,
        '--data-dir',
        join(dir, 'data'),
        '--out',
        join(dir, 'out'),
        '--no-report',
        ...extra,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`hindsight backtest ${extra.join(' ')} exited ${code}: ${stderr}`);
    return (performance.now() - started) / 1000;
  };
  const median3 = async (extra: string[]) => {
    const runs = [await seconds(extra), await seconds(extra), await seconds(extra)].sort((a, b) => a - b);
    return runs[1] as number;
  };
  await seconds([]); // fills the data dir's store with the bundled sample once
  const cold = await median3([]);
  console.log(`BENCH sdk_backtest_command_cold_seconds ${cold.toFixed(2)} s`);
  const wire = await median3(['--wire']);
  console.log(`BENCH sdk_backtest_command_wire_seconds ${wire.toFixed(2)} s`);
  console.log(`BENCH sdk_wire_sma_bars_per_s ${Math.round(131_040 / wire)} bars/s`);
  const sweep = await median3(['--grid', 'fast=5,10', '--grid', 'slow=30,50']);
  console.log(`BENCH sdk_sweep_2x2_seconds ${sweep.toFixed(2)} s`);
  console.log(`BENCH sdk_sweep_cells_per_minute ${(4 / (sweep / 60)).toFixed(1)} cells/min`);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The yardsticks: backtesting.py (`bench/backtesting-sma.py`) and backtrader (`bench/backtrader-sma.py`,
 * without its default observers) running the same crossover in-process on the same bars, one run each,
 * when the benchmark's python3 imports them (`BACKTESTING_PATH`, `BACKTRADER_PATH`:
 * `bench/python-yardsticks.ts`). `_bars_per_s` counts the library's run alone (`bt.run()`,
 * `cerebro.run()`), `_end_to_end` the whole process: the interpreter's start, the import, the data's read.
 */
async function yardsticks(bars: number): Promise<void> {
  const libraries: [PythonLibrary, string, string][] = [
    [BACKTESTING_PY, 'backtesting-sma.py', 'sdk_yardstick_backtesting_py_sma'],
    [BACKTRADER, 'backtrader-sma.py', 'sdk_yardstick_backtrader_sma'],
  ];
  const runs = libraries.flatMap(([library, script, name]) => {
    const env = pythonImporting(library);
    return env === undefined ? [] : [{ script, name, env }];
  });
  if (runs.length === 0) return;
  await withBtcCsv(BTC_QUARTER, async (csv) => {
    for (const { script, name, env } of runs) {
      const { result, processSeconds } = runYardstick(script, [csv], env);
      if (result.bars !== bars) throw new Error(`${script} ran on ${result.bars} bars, not ${bars}`);
      console.log(`BENCH ${name}_bars_per_s ${Math.round(bars / result.seconds)} bars/s`);
      console.log(`BENCH ${name}_end_to_end ${Math.round(bars / processSeconds)} bars/s`);
      console.log(`BENCH ${name}_orders ${result.orders} orders`);
      if (result.trades !== undefined) console.log(`BENCH ${name}_closed_trades ${result.trades} trades`);
    }
  });
}
