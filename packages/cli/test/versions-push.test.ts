import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dataDir, run, start, stop } from './support/cli-process.ts';

/**
 * `hindsight versions push` end to end: the real CLI against a real `hindsight start`, the image pulled
 * back with skopeo and its layer listed with tar.
 */
const scratch = (label: string) => mkdtempSync(join(tmpdir(), `hindsight-push-${label}-`));

function strategyFolder(): string {
  const dir = scratch('strategy');
  mkdirSync(join(dir, 'lib'));
  mkdirSync(join(dir, '__pycache__'));
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, 'main.py'), 'from lib.signals import sma\nprint(sma([1, 2, 3], 2))\n');
  writeFileSync(join(dir, 'lib', 'signals.py'), 'def sma(values, n):\n    return sum(values[-n:]) / n\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec python3 main.py\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, '__pycache__', 'main.cpython-311.pyc'), 'bytecode');
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  symlinkSync('main.py', join(dir, 'entry.py'));
  return dir;
}

describe('hindsight versions push', () => {
  let child: ChildProcess | undefined;
  let url = '';
  let key = '';
  let strategyId = '';
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data: Record<string, string> } };
  };

  before(async () => {
    const started = await start({ HINDSIGHT_DATA_DIR: dataDir() });
    child = started.child;
    url = /running at (http:\/\/\S+) /.exec(started.banner)?.[1] ?? '';
    key = /API key:\s+(\S+)/.exec(started.banner)?.[1] ?? '';
    strategyId =
      (await api('POST', '/v1/strategies', { name: 'Pushed from a folder' })).body.data.strategyId ?? '';
  });
  after(async () => {
    if (child) await stop(child);
  });

  const push = (dir: string, ...flags: string[]) =>
    run(['versions', 'push', '--strategy', strategyId, dir, '--cmd', 'python3 -u main.py', ...flags], {
      HINDSIGHT_URL: url,
      HINDSIGHT_API_KEY: key,
    });
  const pushed = (stdout: string) => ({
    versionId: /Pushed version (\S+) of strategy/.exec(stdout)?.[1] ?? '',
    digest: /Digest:\s+(sha256:[0-9a-f]{64})/.exec(stdout)?.[1] ?? '',
    image: /Image:\s+(\S+)/.exec(stdout)?.[1] ?? '',
  });

  it('builds a one-layer image of a folder, pushes it as a new ready version, and prints id and digest', async () => {
    const dir = strategyFolder();
    const result = await push(
      dir,
      '--env',
      'MODE=fast',
      '--label',
      'from-cli',
      '--description',
      'pushed by the CLI',
    );
    assert.equal(result.code, 0, result.stderr);
    const { versionId, digest, image } = pushed(result.stdout);
    assert.match(versionId, /^[0-9a-f-]{36}$/);
    const version = await api('GET', `/v1/strategies/${strategyId}/versions/${versionId}`);
    assert.equal(version.body.data.imageStatus, 'ready');
    assert.equal(version.body.data.imageDigest, digest);
    assert.equal(version.body.data.label, 'from-cli');
    assert.equal(image, `${new URL(url).host}/v/${versionId}@${digest}`);

    const out = scratch('pulled');
    const pulled = execFileSync('skopeo', [
      '--insecure-policy',
      'copy',
      `docker://${new URL(url).host}/v/${versionId}:latest`,
      `dir:${out}`,
      '--src-tls-verify=false',
      '--src-creds',
      `x:${key}`,
    ]);
    assert.ok(pulled.length > 0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    assert.equal(manifest.mediaType, 'application/vnd.oci.image.manifest.v1+json');
    assert.equal(manifest.layers.length, 1, 'one layer');
    const config = JSON.parse(readFileSync(join(out, manifest.config.digest.slice(7)), 'utf8'));
    assert.deepEqual(config.config.Cmd, ['python3', '-u', 'main.py']);
    assert.equal(config.config.WorkingDir, '/app');
    assert.ok(config.config.Env.includes('MODE=fast'));
    assert.ok(config.config.Env.some((e: string) => e.startsWith('PATH=')));
    assert.equal(config.os, 'linux');

    const listing = execFileSync('tar', ['tvzf', join(out, manifest.layers[0].digest.slice(7))], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    const names = listing.map((line) => line.split(/\s+/).slice(5).join(' '));
    assert.deepEqual(names, [
      'app/',
      'app/entry.py -> main.py',
      'app/lib/',
      'app/lib/signals.py',
      'app/main.py',
      'app/run.sh',
    ]);
    for (const line of listing) assert.match(line, / 0\/0 /, 'owned by root');
    for (const line of listing) assert.match(line, / 1970-01-01 00:00 /, 'fixed mtimes');
    assert.match(
      listing.find((l) => l.endsWith('app/run.sh')) ?? '',
      /^-rwxr-xr-x/,
      'executables stay executable',
    );
    assert.match(listing.find((l) => l.endsWith('app/main.py')) ?? '', /^-rw-r--r--/);
  });

  it('gives the same digest for the same folder (deterministic build)', async () => {
    const dir = strategyFolder();
    const first = pushed((await push(dir)).stdout);
    const copy = strategyFolder(); // same content, other path, other mtimes
    const second = pushed((await push(copy)).stdout);
    assert.notEqual(first.versionId, second.versionId, 'each push is a new version');
    assert.equal(first.digest, second.digest);
    const different = pushed((await push(copy, '--env', 'MODE=slow')).stdout);
    assert.notEqual(different.digest, first.digest, 'the config is part of the image');
  });

  it('says what to fix: no key, no folder, a bad command or env, a refused strategy', async () => {
    const dir = strategyFolder();
    const noKey = await run(['versions', 'push', '--strategy', strategyId, dir, '--cmd', 'python3 main.py'], {
      HINDSIGHT_URL: url,
    });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /--api-key/);
    const noDir = await push(join(dir, 'missing'));
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /is not a directory/);
    const quote = await run(
      ['versions', 'push', '--strategy', strategyId, dir, '--cmd', 'python3 "main.py'],
      {
        HINDSIGHT_URL: url,
        HINDSIGHT_API_KEY: key,
      },
    );
    assert.equal(quote.code, 2);
    assert.match(quote.stderr, /--cmd: unterminated/);
    const reserved = await push(dir, '--env', 'PLATFORM_X=1');
    assert.equal(reserved.code, 2);
    assert.match(reserved.stderr, /PLATFORM_/);
    const wrongKey = await run(
      ['versions', 'push', '--strategy', strategyId, dir, '--cmd', 'python3 main.py'],
      {
        HINDSIGHT_URL: url,
        HINDSIGHT_API_KEY: 'not-a-key',
      },
    );
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /401 UNAUTHORIZED/);

    const archived = (await api('POST', '/v1/strategies', { name: 'Archived' })).body.data.strategyId ?? '';
    await fetch(`${url}/v1/strategies/${archived}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    const refused = await run(['versions', 'push', '--strategy', archived, dir, '--cmd', 'python3 main.py'], {
      HINDSIGHT_URL: url,
      HINDSIGHT_API_KEY: key,
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /409 CONFLICT .*archived/);
    const unreachable = await run(
      ['versions', 'push', '--strategy', strategyId, dir, '--cmd', 'python3 main.py'],
      {
        HINDSIGHT_URL: 'http://127.0.0.1:1',
        HINDSIGHT_API_KEY: key,
      },
    );
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /cannot reach the platform/);
  });
  it('bundles an SDK strategy with --bundle, which the platform runs to completion', async () => {
    const example = fileURLToPath(new URL('../../../examples/sma-crossover-typescript', import.meta.url));
    const result = await run(
      ['versions', 'push', '--strategy', strategyId, example, '--bundle', 'strategy.ts'],
      {
        HINDSIGHT_URL: url,
        HINDSIGHT_API_KEY: key,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Command: \["node","strategy.cjs"\]/);
    const { versionId } = pushed(result.stdout);
    const created = await api('POST', `/v1/strategies/${strategyId}/scenarios`, {
      strategyVersionId: versionId,
      subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
      startTime: '2024-01-02T00:00:00Z',
      endTime: '2024-01-02T12:00:00Z',
      env: { FAST: '5' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const scenarioId = created.body.data.scenarioId ?? '';
    let state = '';
    for (let i = 0; i < 600 && !['COMPLETE', 'FAILED', 'CANCELLED'].includes(state); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      state = (await api('GET', `/v1/scenarios/${scenarioId}`)).body.data.state ?? '';
    }
    assert.equal(state, 'COMPLETE');
    const metrics = await api('GET', `/v1/strategies/${strategyId}/scenarios/${scenarioId}/metrics`);
    assert.ok(
      Number((metrics.body.data as unknown as { totalTrades: number }).totalTrades) > 0,
      JSON.stringify(metrics.body),
    );

    const missing = await run(
      ['versions', 'push', '--strategy', strategyId, example, '--bundle', 'nope.ts'],
      {
        HINDSIGHT_URL: url,
        HINDSIGHT_API_KEY: key,
      },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--bundle: cannot bundle .*nope\.ts/);
  });
});
