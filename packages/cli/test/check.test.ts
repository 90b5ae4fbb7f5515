import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fileStoreWithSample } from '@hindsight/gateway';
import { run } from './support/cli-process.ts';

/**
 * `hindsight check` as a user runs it, a real CLI process each time: the SDK example in TypeScript,
 * the Python SDK example and both hand-written starters (main.py, main.ts; through --cmd) pass every
 * check with every check exercised, the socket cut and resumed included; --no-drop leaves `resume`
 * not exercised; raw-protocol fixtures with one fault each (fixtures/check/) are each caught by the
 * matching check and by no other; mistakes in the command are exit 2 with one line. Each run is one
 * day of the BTC sample.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SDK_EXAMPLE = join(ROOT, 'examples', 'sma-crossover-typescript', 'strategy.ts');
const PYTHON_EXAMPLE_DIR = join(ROOT, 'examples', 'sma-crossover-python');
const TYPESCRIPT_EXAMPLE_DIR = join(ROOT, 'examples', 'sma-crossover-typescript');
const FIXTURES = fileURLToPath(new URL('./fixtures/check/', import.meta.url));
const PYTHON =
  process.env.HINDSIGHT_TEST_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const dataDir = join(mkdtempSync(join(tmpdir(), 'hindsight-check-')), 'data');

interface Report {
  checks: { id: string; verdict: 'pass' | 'FAIL' | 'not exercised'; detail: string }[];
  faults: number;
}

async function check(args: string[], env: Record<string, string> = {}) {
  const done = await run(['check', ...args, '--json', '--data-dir', dataDir], env);
  assert.ok(done.code === 0 || done.code === 1, `exit ${done.code}: ${done.stderr}`);
  const report = JSON.parse(done.stdout) as Report;
  const verdicts = Object.fromEntries(report.checks.map((c) => [c.id, c.verdict]));
  const detail = (id: string) => report.checks.find((c) => c.id === id)?.detail ?? '';
  return { code: done.code, report, verdicts, detail, stdout: done.stdout };
}

const fixture = (name: string) => check([FIXTURES, '--cmd', `"${process.execPath}" ${name}.mjs`]);

/** Every check but the named ones passed, and those failed. */
function onlyFails(verdicts: Record<string, string>, failing: string[], report: string) {
  for (const [id, verdict] of Object.entries(verdicts)) {
    if (failing.includes(id)) assert.equal(verdict, 'FAIL', `${id} should fail: ${report}`);
    else assert.notEqual(verdict, 'FAIL', `${id} should not fail: ${report}`);
  }
}

describe('hindsight check', { concurrency: 2 }, () => {
  // The market data once, before runs that would otherwise all take in the sample at once.
  before(() => fileStoreWithSample(dataDir));

  it('passes the TypeScript SDK example on every check, each one exercised', async () => {
    const { code, report, verdicts, stdout } = await check([SDK_EXAMPLE]);
    assert.equal(code, 0, stdout);
    assert.equal(report.faults, 0);
    for (const [id, verdict] of Object.entries(verdicts)) assert.equal(verdict, 'pass', `${id}: ${stdout}`);
  });

  it('passes the Python SDK example, run through --cmd', async () => {
    const { code, verdicts, stdout } = await check([PYTHON_EXAMPLE_DIR, '--cmd', `"${PYTHON}" strategy.py`], {
      PYTHONPATH: join(ROOT, 'sdk', 'python'),
      PYTHONDONTWRITEBYTECODE: '1',
    });
    assert.equal(code, 0, stdout);
    for (const [id, verdict] of Object.entries(verdicts)) assert.equal(verdict, 'pass', `${id}: ${stdout}`);
  });

  // The protocol by hand, as a port to another language starts from: resuming the cut socket too.
  const starters: [string, string, string][] = [
    ['Python', PYTHON_EXAMPLE_DIR, `"${PYTHON}" main.py`],
    ['TypeScript', TYPESCRIPT_EXAMPLE_DIR, `"${process.execPath}" --import tsx main.ts`],
  ];
  for (const [language, folder, cmd] of starters) {
    it(`passes the hand-written ${language} starter on every check, resume included`, async () => {
      const { code, verdicts, detail, stdout } = await check([folder, '--cmd', cmd]);
      assert.equal(code, 0, stdout);
      for (const [id, verdict] of Object.entries(verdicts)) assert.equal(verdict, 'pass', `${id}: ${stdout}`);
      assert.match(detail('resume'), /after the cut with resume_from_seq=\d+/);
    });
  }

  it('leaves resume not exercised with --no-drop, and judges the rest', async () => {
    const { code, verdicts, detail, stdout } = await check([SDK_EXAMPLE, '--no-drop']);
    assert.equal(code, 0, stdout);
    assert.equal(verdicts.resume, 'not exercised');
    assert.match(detail('resume'), /--no-drop/);
    for (const [id, verdict] of Object.entries(verdicts)) {
      if (id !== 'resume') assert.equal(verdict, 'pass', `${id}: ${stdout}`);
    }
  });

  it('catches a strategy that never acknowledges', async () => {
    const { code, verdicts, detail, stdout } = await fixture('never-acks');
    assert.equal(code, 1);
    assert.equal(verdicts.ack, 'FAIL', stdout);
    assert.match(detail('ack'), /no event_ack at all/);
    assert.equal(verdicts.run, 'FAIL', 'the gateway ended the stalled run');
  });

  it('catches acks ahead of what was received', async () => {
    const { verdicts, detail, stdout } = await fixture('acks-ahead');
    onlyFails(verdicts, ['ack-seq'], stdout);
    assert.match(detail('ack-seq'), /last_seq (\d+) .* the highest seq sent was (\d+)/);
  });

  it('catches a strategy that does not answer ping', async () => {
    const { verdicts, detail, stdout } = await fixture('no-pong');
    onlyFails(verdicts, ['pong'], stdout);
    assert.match(detail('pong'), /after 20 events\); no pong/);
  });

  it('catches money sent as JSON numbers, with the body', async () => {
    const { verdicts, detail, stdout } = await fixture('sends-floats');
    onlyFails(verdicts, ['decimals'], stdout);
    assert.match(detail('decimals'), /"quantity":0\.01/);
  });

  it('catches a non-retryable 4xx sent again', async () => {
    const { verdicts, detail, stdout } = await fixture('retries-4xx');
    onlyFails(verdicts, ['no-retry-4xx'], stdout);
    assert.match(detail('no-retry-4xx'), /answered 422 ORDER_REJECTED .* sent again/);
  });

  it('catches a 429 retried before retry_after_seconds', async () => {
    const { verdicts, detail, stdout } = await fixture('ignores-retry-after');
    onlyFails(verdicts, ['retry-after'], stdout);
    assert.match(detail('retry-after'), /sent again 0\.\d+ s after the 429 \(retry_after_seconds 2\)/);
  });

  it('catches a client_order_id reused with another body', async () => {
    const { verdicts, detail, stdout } = await fixture('reuses-client-order-id');
    onlyFails(verdicts, ['client-order-id'], stdout);
    assert.match(detail('client-order-id'), /"raw-1"/);
  });

  it('catches REST calls without the API key', async () => {
    const { verdicts, detail, stdout } = await fixture('omits-key');
    onlyFails(verdicts, ['auth'], stdout);
    assert.match(detail('auth'), /^POST \/v1\/orders .* had no valid key/);
  });

  it('stops with one line on a mistake in the command (exit 2)', async () => {
    const folder = await run(['check', FIXTURES, '--data-dir', dataDir]);
    assert.equal(folder.code, 2);
    assert.match(folder.stderr, /^hindsight check: .*a folder with --cmd/);
    assert.equal(folder.stderr.trim().split('\n').length, 1);
    const missing = await run(['check', join(FIXTURES, 'nothing-here.ts'), '--data-dir', dataDir]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such file or folder/);
    const timeout = await run(['check', SDK_EXAMPLE, '--timeout', 'soon', '--data-dir', dataDir]);
    assert.equal(timeout.code, 2);
    assert.match(timeout.stderr, /--timeout soon/);
  });
});
