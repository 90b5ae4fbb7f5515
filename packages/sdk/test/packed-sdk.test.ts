import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RESULT_FILE_NAMES } from '@hindsight/gateway';
import { SAMPLE_DIR } from '../../gateway/test/support/sample-store.ts';
import { startTestGateway } from '../../gateway/test/support/test-gateway.ts';

/**
 * A fresh temporary project installs the packed SDK (and the workspaces it needs at runtime) and runs
 * a plain JavaScript strategy both ways, with plain `node` and no source condition: in-process, and
 * over the wire with the installed `hindsight-strategy` bin against a gateway. The result files are
 * byte for byte the same. A TypeScript strategy type-checks against the packed declarations.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SAMPLE = join(SAMPLE_DIR, 'crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst');
/** A user's strict NodeNext project; the packed declarations are checked too (no skipLibCheck). */
const TSC_FLAGS =
  '--noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --skipLibCheck false'.split(
    ' ',
  );
/** What the SDK needs at runtime: its own dependencies and theirs (the package.json files). */
const WORKSPACES = ['core', 'engine', 'marketdata', 'gateway', 'sdk'];

/** What the SDK tarball must hold: the entry points' JavaScript and declarations. */
const SDK_FILES = ['dist/index.js', 'dist/index.d.ts', 'dist/in-process/index.js', 'dist/wire/main.js'];

const SCENARIO = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-03T00:00:00Z',
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
};

const STRATEGY_JS = `import { defineStrategy } from '@hindsight/sdk';

export default defineStrategy({
  name: 'packed-count',
  params: { quantity: '0.01' },
  create({ quantity }) {
    let candles = 0;
    return {
      async onCandle(candle, ctx) {
        candles += 1;
        if (candles === 5) await ctx.buy(candle.symbol, quantity);
        if (candles === 50) await ctx.sell(candle.symbol, quantity);
      },
    };
  },
});
`;

const IN_PROCESS_JS = `import { readFile } from 'node:fs/promises';
import { checkScenario, writeRunResults } from '@hindsight/gateway';
import { openFileBarStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import { runInProcess } from '@hindsight/sdk/in-process';
import strategy from './strategy.mjs';

const [scenarioFile, sampleFile, dataDir, resultsDir] = process.argv.slice(2);
const store = openFileBarStore(dataDir);
const imported = await importFiles('binance', [sampleFile], { symbol: 'C:BTCUSD' });
await store.writeBars('C:BTCUSD', imported.bars);
const scenario = await checkScenario('scenario', JSON.parse(await readFile(scenarioFile, 'utf8')), store);
const end = await runInProcess(strategy, { scenario, store });
if (end.outcome.kind !== 'completed') throw new Error(JSON.stringify(end.outcome));
await writeRunResults(resultsDir, end.files);
process.stdout.write(JSON.stringify(end.files.metrics) + '\\n');
`;

const strategyTs = (quantity: string) => `import { defineStrategy } from '@hindsight/sdk';

export default defineStrategy({
  params: { quantity: '0.01' },
  create({ quantity }) {
    let candles = 0;
    return {
      async onCandle(candle, ctx) {
        candles += 1;
        const close: number = candle.number('close');
        if (candles === 5 && close > 0) await ctx.buy('C:BTCUSD', ${quantity});
      },
    };
  },
});
`;

/** The environment of a user's shell: no npm lifecycle variables, no NODE_OPTIONS (no tsx, no source condition). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'),
  );
  return { ...env, ...extra };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function ok(ran: Ran, what: string): string {
  assert.equal(ran.code, 0, `${what} exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
  return ran.stdout;
}

test('a fresh temporary project installs the packed SDK and runs a strategy both ways', {
  timeout: 300_000,
}, async (t) => {
  for (const name of WORKSPACES) {
    const dist = join(ROOT, 'packages', name, 'dist/index.js');
    assert.ok(existsSync(dist), `${dist} is missing: run \`npm run build\` first (npm ci builds too)`);
  }
  const tmp = await mkdtemp(join(tmpdir(), 'hindsight-packed-sdk-'));
  const cleanup = [tmp];
  try {
    // Pack: the SDK ships its compiled JavaScript and declarations, not its sources or tests.
    const packs = join(tmp, 'packs');
    await mkdir(packs);
    const pack = [
      'pack',
      '--json',
      '--pack-destination',
      packs,
      ...WORKSPACES.flatMap((w) => ['-w', `packages/${w}`]),
    ];
    const packed = JSON.parse(ok(await run('npm', pack, ROOT), 'npm pack')) as {
      name: string;
      filename: string;
      files: { path: string }[];
    }[];
    assert.deepEqual(packed.map((p) => p.name).sort(), WORKSPACES.map((w) => `@hindsight/${w}`).sort());
    const sdk = packed.find((p) => p.name === '@hindsight/sdk');
    const sdkFiles = sdk?.files.map((f) => f.path) ?? [];
    for (const file of SDK_FILES) {
      assert.ok(sdkFiles.includes(file), `the SDK tarball lacks ${file}`);
    }
    const stray = sdkFiles.filter((f) => /^(src|test)\//.test(f));
    assert.deepEqual(stray, [], 'the SDK tarball ships sources or tests');
    for (const p of packed) {
      const extra = p.files.filter((f) => /^(src|test)\//.test(f.path)).length;
      if (extra > 0) t.diagnostic(`${p.name} packs ${extra} src/ and test/ files (no "files" field)`);
    }

    // A fresh project outside the repository installs the tarballs; third-party packages come from npm.
    const project = join(tmp, 'project');
    await mkdir(project);
    ok(await run('npm', ['init', '-y'], project), 'npm init');
    ok(await run('npm', ['pkg', 'set', 'type=module'], project), 'npm pkg set');
    const tarballs = packed.map((p) => join(packs, p.filename));
    ok(
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], project),
      'npm install',
    );
    await writeFile(join(project, 'strategy.mjs'), STRATEGY_JS);
    await writeFile(join(project, 'inprocess.mjs'), IN_PROCESS_JS);
    await writeFile(join(project, 'scenario.json'), JSON.stringify(SCENARIO));

    // In-process, with plain node: the published JavaScript.
    const localDir = join(tmp, 'results-in-process');
    const args = ['inprocess.mjs', 'scenario.json', SAMPLE, join(tmp, 'data'), localDir];
    const metrics = JSON.parse(ok(await run(process.execPath, args, project), 'node inprocess.mjs'));
    assert.equal(metrics.totalTrades, 1, JSON.stringify(metrics));

    // Over the wire: the installed bin against a gateway on loopback, the same scenario.
    const { gateway, resultsDir } = await startTestGateway({ scenario: SCENARIO });
    cleanup.push(dirname(resultsDir));
    const url = new URL(gateway.url);
    const bin = join(project, 'node_modules/.bin/hindsight-strategy');
    const env = cleanEnv({ PROXY_WS_URL: `ws://${url.host}/v1/ws`, PROXY_REST_URL: `${gateway.url}/v1` });
    // A strategy that fails ends the test at once, not at the timeout waiting for the run's end.
    const wire = run(bin, ['strategy.mjs'], project, env).then((ran) => ok(ran, 'hindsight-strategy'));
    const end = await Promise.race([gateway.done, wire.then(() => gateway.done)]).finally(() =>
      gateway.close(),
    );
    await wire;
    assert.equal(end.outcome.kind, 'completed', JSON.stringify(end.outcome));
    const wireDir = end.resultsDir ?? resultsDir;
    assert.deepEqual((await readdir(localDir)).sort(), [...RESULT_FILE_NAMES].sort());
    for (const name of RESULT_FILE_NAMES) {
      const [a, b] = await Promise.all([readFile(join(localDir, name)), readFile(join(wireDir, name))]);
      assert.ok(a.equals(b), `${name} differs in-process and over the wire`);
    }

    // TypeScript: a strategy type-checks against the packed declarations; a float quantity does not.
    await writeFile(join(project, 'strategy.ts'), strategyTs('quantity'));
    await writeFile(join(project, 'wrong.ts'), strategyTs('0.5'));
    const tsc = (file: string) => run(process.execPath, [TSC, ...TSC_FLAGS, file], project);
    const [right, wrong] = await Promise.all([tsc('strategy.ts'), tsc('wrong.ts')]);
    await t.test('a TypeScript strategy type-checks against the packed declarations', () => {
      ok(right, 'tsc strategy.ts');
    });
    await t.test('a number quantity fails type-checking', () => {
      assert.notEqual(wrong.code, 0, 'ctx.buy with a number quantity type-checked');
      assert.match(wrong.stdout, /wrong\.ts\(\d+,\d+\): error TS2345/);
    });
  } finally {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  }
});
