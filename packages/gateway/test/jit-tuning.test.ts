import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  JIT_TUNING_APPLIES,
  missingGatewayV8Flags,
  SINGLE_THREADED_MAX_CORES,
  wantsSingleThreadedV8,
} from '../src/jit-tuning.ts';

const TUNING = fileURLToPath(new URL('../src/jit-tuning.ts', import.meta.url));

/**
 * How many calls a small function takes to be optimised in a fresh process, after the tuning when
 * `tune`. V8's natives report the optimisation; compiling on the main thread makes the count exact.
 */
function callsUntilOptimised(tune: boolean, extraFlags: string[] = []): number {
  const script = `
    const { tuneJitForBacktests } = await import(${JSON.stringify(TUNING)});
    if (${tune}) tuneJitForBacktests();
    function work(values) { let sum = 0; for (let i = 0; i < values.length; i++) sum += values[i] * 2; return sum; }
    const values = [1, 2, 3, 4, 5, 6, 7, 8];
    let calls = 0;
    for (; calls < 100000; calls++) { work(values); if ((%GetOptimizationStatus(work) & 16) !== 0) break; }
    console.log(calls);
  `;
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--allow-natives-syntax',
      '--no-concurrent-recompilation',
      ...extraFlags,
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8' },
  );
  return Number(out.trim());
}

// Measured for Node 20's V8 (11.x); elsewhere the tuning does nothing (`JIT_TUNING_APPLIES`).
describe('JIT tuning for processes that host gateways', {
  skip: !JIT_TUNING_APPLIES && 'V8 is not 11.x',
}, () => {
  it('has code optimised after fewer calls than V8 by default', () => {
    const byDefault = callsUntilOptimised(false);
    const tuned = callsUntilOptimised(true);
    assert.ok(byDefault < 100000, `optimised by default after ${byDefault} calls`);
    assert.ok(tuned * 2 < byDefault, `tuned: ${tuned} calls, by default: ${byDefault}`);
  });

  it('keeps a budget given on the command line, in either spelling', () => {
    for (const given of [['--interrupt-budget=67584'], ['--interrupt_budget=67584']]) {
      assert.equal(callsUntilOptimised(true, given), callsUntilOptimised(false, given), given[0]);
    }
  });
});

describe('GATEWAY_SINGLE_THREADED', () => {
  it('is on by default where the two pollers leave no core to spare, and as set otherwise', () => {
    assert.equal(wantsSingleThreadedV8({}, 1), true);
    assert.equal(wantsSingleThreadedV8({}, SINGLE_THREADED_MAX_CORES), true);
    assert.equal(wantsSingleThreadedV8({ GATEWAY_SINGLE_THREADED: 'auto' }, 4), false);
    assert.equal(wantsSingleThreadedV8({ GATEWAY_SINGLE_THREADED: 'true' }, 64), true);
    assert.equal(wantsSingleThreadedV8({ GATEWAY_SINGLE_THREADED: 'false' }, 2), false);
  });

  it('refuses any other value, naming the variable', () => {
    for (const value of ['', 'TRUE', '1', 'yes']) {
      assert.throws(
        () => wantsSingleThreadedV8({ GATEWAY_SINGLE_THREADED: value }, 2),
        new Error(`GATEWAY_SINGLE_THREADED: must be auto, true or false, not ${JSON.stringify(value)}`),
      );
    }
  });

  it('names the flag a gateway process lacks, and nothing once it has it or does not want it', () => {
    assert.deepEqual(missingGatewayV8Flags({}, ['--import', 'tsx'], 2), ['--single-threaded']);
    assert.deepEqual(missingGatewayV8Flags({}, ['--single-threaded', '--import', 'tsx'], 2), []);
    assert.deepEqual(missingGatewayV8Flags({}, [], 8), []);
    assert.deepEqual(missingGatewayV8Flags({ GATEWAY_SINGLE_THREADED: 'false' }, [], 1), []);
    assert.throws(
      () => missingGatewayV8Flags({ GATEWAY_SINGLE_THREADED: 'on' }, [], 2),
      /GATEWAY_SINGLE_THREADED/,
    );
  });
});
