import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run } from './support/cli-process.ts';

/**
 * `hindsight backtest` as a user runs it: the SDK example in-process and over the wire (the same
 * files), a parameter, a sweep, and the errors a user can make. Two days of the bundled BTC sample.
 */
const EXAMPLE = fileURLToPath(
  new URL('../../../examples/sma-crossover-typescript/strategy.ts', import.meta.url),
);
const dir = mkdtempSync(join(tmpdir(), 'hindsight-backtest-'));
const dataDir = join(dir, 'data');
const scenario = join(dir, 'scenario.json');
writeFileSync(
  scenario,
  JSON.stringify({
    subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
    startTime: '2024-01-02T00:00:00Z',
    endTime: '2024-01-04T00:00:00Z',
    costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
  }),
);
const backtest = (args: string[]) =>
  run(['backtest', ...args, '--scenario', scenario, '--data-dir', dataDir]);
const trades = (out: string) => Number(/Trades\s+(\d+)/.exec(out)?.[1]);
const files = (out: string) =>
  ['metadata.json.zst', 'timeseries.json.zst', 'trades.json.zst', 'metrics.json'].map((f) =>
    readFileSync(join(out, f)),
  );

describe('hindsight backtest', () => {
  it('runs a strategy in-process and over the wire with byte-identical files, and writes the report', async () => {
    const here = join(dir, 'here');
    const first = await backtest([EXAMPLE, '--out', here]);
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stderr, /warning:/, 'the scenario delivers what the strategy declares');
    assert.ok(trades(first.stdout) > 20, first.stdout);
    assert.match(first.stdout, /Net P&L \(USD\)\s+-?\d/);
    const report = readFileSync(join(here, 'report.html'), 'utf8');
    assert.match(report, /^<!DOCTYPE html>/i);
    assert.doesNotMatch(report, /(src|href)="https?:/);

    const wire = join(dir, 'wire');
    const second = await backtest([EXAMPLE, '--wire', '--out', wire, '--no-report']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(trades(second.stdout), trades(first.stdout));
    const [a, b] = [files(here), files(wire)];
    for (const [i, bytes] of a.entries()) assert.ok(bytes.equals(b[i] as Buffer), `file ${i} differs`);
  });

  it('takes parameters, and sweeps a grid into a sorted table whose cells differ', async () => {
    const fast = await backtest([EXAMPLE, '--param', 'fast=5', '--out', join(dir, 'fast5'), '--no-report']);
    assert.equal(fast.code, 0, fast.stderr);
    const sweep = await backtest([
      EXAMPLE,
      '--grid',
      'fast=5,10',
      '--param',
      'slow=40',
      '--sort',
      'totalTrades',
      '--out',
      join(dir, 'sweep'),
    ]);
    assert.equal(sweep.code, 0, sweep.stderr);
    const rows = sweep.stdout.split('\n').filter((line) => /^40\s+(5|10)\s/.test(line));
    assert.equal(rows.length, 2, sweep.stdout);
    const counts = rows.map((row) => Number(row.trim().split(/\s+/)[6]));
    assert.ok((counts[0] as number) > (counts[1] as number), `sorted by trades: ${counts}`);
    assert.match(sweep.stdout, /2 cells on \d+ threads/);
  });

  it("takes the strategy's subscriptions for a scenario without them: in-process, --wire and --grid", async () => {
    const bare = join(dir, 'bare.json');
    writeFileSync(
      bare,
      JSON.stringify({ startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-02T12:00:00Z' }),
    );
    const args = (strategy: string, out: string, ...more: string[]) =>
      run([
        'backtest',
        strategy,
        '--scenario',
        bare,
        '--data-dir',
        dataDir,
        '--out',
        join(dir, out),
        ...more,
      ]);
    const [here, wire, grid] = await Promise.all([
      args(EXAMPLE, 'bare-here', '--no-report'),
      args(EXAMPLE, 'bare-wire', '--no-report', '--wire'),
      args(EXAMPLE, 'bare-grid', '--grid', 'fast=5'),
    ]);
    for (const done of [here, wire, grid]) assert.equal(done.code, 0, done.stderr);
    assert.ok(trades(here.stdout) > 0, here.stdout);
    const [a, b] = [files(join(dir, 'bare-here')), files(join(dir, 'bare-wire'))];
    for (const [i, bytes] of a.entries()) assert.ok(bytes.equals(b[i] as Buffer), `file ${i} differs`);
    assert.match(grid.stdout, /1 cells on 1 threads/);

    // Neither the scenario nor the strategy: the scenario's error says the strategy can declare them.
    const throwing = fileURLToPath(new URL('fixtures/throwing-strategy.ts', import.meta.url));
    const neither = await args(throwing, 'neither');
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /bare\.json: subscriptions: is required.*; or the strategy declares them/);
  });

  it('stops with one line for what the user can fix, and with the stack when the strategy throws', async () => {
    const unknown = await backtest([EXAMPLE, '--param', 'fats=5']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /declares no parameter fats; its parameters: fast, slow, quantity/);

    const badAxis = await backtest([EXAMPLE, '--grid', 'fats=5,10']);
    assert.equal(badAxis.code, 2);
    assert.match(badAxis.stderr, /declares no parameter fats/);

    const badValue = await backtest([EXAMPLE, '--param', 'fast=ten']);
    assert.equal(badValue.code, 2);
    assert.match(badValue.stderr, /--param fast: "ten" is not a number/);

    const throwing = fileURLToPath(new URL('fixtures/throwing-strategy.ts', import.meta.url));
    const thrown = await backtest([throwing]);
    assert.equal(thrown.code, 1);
    assert.match(thrown.stderr, /the strategy failed: Error: boom at bar 10\n\s+at .*throwing-strategy\.ts/);

    const noStrategy = join(dir, 'plain.ts');
    writeFileSync(noStrategy, 'export const x = 1;\n');
    const plain = await backtest([noStrategy]);
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /exports no strategy/);
  });
});
