import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';

/**
 * The Python yardsticks of the benchmarks: a Python backtesting library running the SMA crossover
 * in-process on the same bars as Hindsight (`bench/backtrader-sma.py`, `bench/backtesting-sma.py`).
 * Neither library is a dependency of Hindsight: a yardstick runs when the benchmark's python3
 * (`/usr/bin/python3` where it exists) imports the library, from its own site-packages or from the
 * folder in the library's environment variable, put ahead of PYTHONPATH.
 */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** The sample's months of BTCUSDT 1m bars that the engine and SDK figures run on: 131,040 bars. */
export const BTC_QUARTER = ['2024-01', '2024-02', '2024-03'];

const SAMPLE = fileURLToPath(new URL('../data/sample/crypto/', import.meta.url));

export interface PythonLibrary {
  /** What `import` names. */
  module: string;
  /** What the skip line calls it. */
  name: string;
  /** The environment variable naming a folder that holds it. */
  pathVariable: string;
  /** The skip line's advice. */
  hint: string;
}

export const BACKTRADER: PythonLibrary = {
  module: 'backtrader',
  name: 'backtrader',
  pathVariable: 'BACKTRADER_PATH',
  hint: 'set BACKTRADER_PATH to a folder holding it',
};

export const BACKTESTING_PY: PythonLibrary = {
  module: 'backtesting',
  name: 'backtesting.py',
  pathVariable: 'BACKTESTING_PATH',
  hint: 'it needs pandas, numpy and bokeh; set BACKTESTING_PATH to a folder holding them',
};

/**
 * The environment in which PYTHON imports `library`, or undefined (and a line saying its figures
 * are left out) when it does not.
 */
export function pythonImporting(library: PythonLibrary): NodeJS.ProcessEnv | undefined {
  const pythonPath = [process.env[library.pathVariable], process.env.PYTHONPATH].filter(Boolean).join(':');
  const env = { ...process.env, PYTHONPATH: pythonPath };
  try {
    execFileSync(PYTHON, ['-c', `import ${library.module}`], { env, stdio: 'ignore' });
    return env;
  } catch {
    console.log(
      `# ${library.name} is not importable by ${PYTHON} (${library.hint}): its figures are left out`,
    );
    return undefined;
  }
}

/**
 * Calls `use` with the sample's `months` of BTCUSDT 1m bars as one Binance kline CSV (the months'
 * files decompressed, one header) in a temporary folder, removed after.
 */
export async function withBtcCsv<T>(months: string[], use: (csv: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-bench-python-'));
  try {
    const csv = join(dir, 'BTCUSDT-1m.csv');
    await ensureZstd();
    const lines: string[] = [];
    for (const [i, month] of months.entries()) {
      const file = join(SAMPLE, `binance_spot_BTCUSDT_1m_${month}.csv.zst`);
      const text = new TextDecoder().decode(zstdDecompress(readFileSync(file)));
      lines.push(i === 0 ? text.trimEnd() : text.slice(text.indexOf('\n') + 1).trimEnd());
    }
    await writeFile(csv, `${lines.join('\n')}\n`);
    return await use(csv);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a yardstick script prints: `seconds` is the library's run alone. */
export interface YardstickResult {
  bars: number;
  seconds: number;
  orders: number;
  /** Closed trades, where the script counts them. */
  trades?: number;
  version?: string | null;
}

/**
 * Runs the yardstick `script` (a file of this folder) with `args` in `env`, and times its whole
 * process too: the interpreter's start, the library's import and the data's read included.
 */
export function runYardstick(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { result: YardstickResult; processSeconds: number } {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const started = performance.now();
  const result = JSON.parse(execFileSync(PYTHON, [file, ...args], { env }).toString()) as YardstickResult;
  return { result, processSeconds: (performance.now() - started) / 1000 };
}
