import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
    versionId: /Pushed version ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? '',
    digest: /Digest:\s+(sha256:[0-9a-f]{64})/.exec(stdout)?.[1] ?? '',
    image: /Image:\s+(\S+)/.exec(stdout)?.[1] ?? '',
  });
  /** Half a day of BTC with FAST=5 on the version, run to its end; resolves with its metrics once COMPLETE. */
  const runToCompletion = async (versionId: string) => {
    const created = await api('POST', `/v1/strategies/${strategyId}/scenarios`, {
      strategyVersionId: versionId,
      subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
      startTime: '2024-01-02T00:00:00Z',
      endTime: '2024-01-02T12:00:00Z',
      env: { FAST: '5' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const scenarioId = created.body.data.scenarioId ?? '';
    let scenario: Record<string, string> = {};
    for (let i = 0; i < 600 && !['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.state ?? ''); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      scenario = (await api('GET', `/v1/scenarios/${scenarioId}`)).body.data;
    }
    assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
    const metrics = await api('GET', `/v1/strategies/${strategyId}/scenarios/${scenarioId}/metrics`);
    assert.equal(metrics.status, 200);
    return metrics.body.data as unknown as { totalTrades: number };
  };
  /** A pushed version's image pulled back with skopeo: its folder, manifest and first layer's `tar tv` lines. */
  const pull = (versionId: string) => {
    const out = scratch('pulled');
    execFileSync('skopeo', [
      '--insecure-policy',
      'copy',
      `docker://${new URL(url).host}/v/${versionId}:latest`,
      `dir:${out}`,
      '--src-tls-verify=false',
      '--src-creds',
      `x:${key}`,
    ]);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const listing = execFileSync('tar', ['tvzf', join(out, manifest.layers[0].digest.slice(7))], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    return { out, manifest, listing };
  };
  const fileName = (line: string) => line.split(/\s+/).slice(5).join(' ');

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

    const { out, manifest, listing } = pull(versionId);
    assert.equal(manifest.mediaType, 'application/vnd.oci.image.manifest.v1+json');
    assert.equal(manifest.layers.length, 1, 'one layer');
    const config = JSON.parse(readFileSync(join(out, manifest.config.digest.slice(7)), 'utf8'));
    assert.deepEqual(config.config.Cmd, ['python3', '-u', 'main.py']);
    assert.equal(config.config.WorkingDir, '/app');
    assert.ok(config.config.Env.includes('MODE=fast'));
    assert.ok(config.config.Env.some((e: string) => e.startsWith('PATH=')));
    assert.equal(config.os, 'linux');

    const names = listing.map(fileName);
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
  it('pushes into a version created elsewhere with its repository and access token, no API key', async () => {
    const created = (await api('POST', `/v1/strategies/${strategyId}/versions`, { label: 'from-the-app' }))
      .body as unknown as { data: { versionId: string }; repositoryUrl: string; accessToken: string };
    const into = (...flags: string[]) =>
      run(['versions', 'push', strategyFolder(), '--cmd', 'python3 -u main.py', ...flags], {
        HINDSIGHT_URL: url,
      });
    const result = await into('--repository', created.repositoryUrl, '--token', created.accessToken);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(pushed(result.stdout).versionId, created.data.versionId);
    const version = await api('GET', `/v1/strategies/${strategyId}/versions/${created.data.versionId}`);
    assert.equal(version.body.data.imageStatus, 'ready');
    assert.equal(version.body.data.imageDigest, pushed(result.stdout).digest);

    const both = await into('--strategy', strategyId, '--repository', created.repositoryUrl, '--token', 'x');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /not both/);
    const alone = await into('--repository', created.repositoryUrl);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--repository and --token go together/);
    const neither = await into();
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /give --strategy <id>/);
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
    const metrics = await runToCompletion(pushed(result.stdout).versionId);
    assert.ok(Number(metrics.totalTrades) > 0, JSON.stringify(metrics));

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

  it('pushes a Python SDK strategy with --bundle, the SDK vendored beside it, which the platform runs to completion', async () => {
    const example = fileURLToPath(new URL('../../../examples/sma-crossover-python', import.meta.url));
    const push = (...flags: string[]) =>
      run(['versions', 'push', '--strategy', strategyId, example, ...flags], {
        HINDSIGHT_URL: url,
        HINDSIGHT_API_KEY: key,
      });
    const result = await push('--bundle', 'strategy.py');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Command: \["python3","-u","strategy.py"\]/);
    const { versionId } = pushed(result.stdout);
    const names = pull(versionId).listing.map(fileName);
    for (const name of [
      'app/strategy.py',
      'app/main.py',
      'app/hindsight/__init__.py',
      'app/hindsight/runner.py',
    ]) {
      assert.ok(names.includes(name), `${name} is in the image: ${names.join(', ')}`);
    }
    assert.ok(!names.some((name) => name.includes('__pycache__')), 'no bytecode caches');
    const metrics = await runToCompletion(versionId);
    assert.ok(Number(metrics.totalTrades) > 0, JSON.stringify(metrics));

    const missing = await push('--bundle', 'nope.py');
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    assert.match(missing.stderr, /^hindsight: --bundle: nope\.py does not exist in /);
    const outside = await push('--bundle', '../sma-crossover-typescript/main.py');
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /is not a file in/);
  });
});

describe('the packed CLI', () => {
  it('ships the Python SDK, which --bundle strategy.py vendors from the installed package', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    assert.ok(
      existsSync(join(root, 'packages/cli/dist/commands/bundle-python.js')),
      'packages/cli/dist is not built: run `npm run build` first',
    );
    const tmp = scratch('packed-cli');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', tmp, '-w', 'packages/cli'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    for (const file of ['bin/hindsight.js', 'dist/main.js', 'python-sdk/hindsight/__init__.py']) {
      assert.ok(files.includes(file), `the CLI tarball lacks ${file}`);
    }
    assert.deepEqual(
      files.filter((f) => /^(src|test)\/|__pycache__/.test(f)),
      [],
      'no sources, tests or caches',
    );
    assert.ok(!existsSync(join(root, 'packages/cli/python-sdk')), 'postpack removes the copy');

    // Installed: node_modules/@hindsight/cli, no repository around it.
    const installed = join(tmp, 'project', 'node_modules', '@hindsight', 'cli');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', [
      'xzf',
      join(tmp, packed[0]?.filename ?? ''),
      '-C',
      installed,
      '--strip-components=1',
    ]);
    const { bundlePythonStrategy, pythonSdkDir } = (await import(
      pathToFileURL(join(installed, 'dist/commands/bundle-python.js')).href
    )) as typeof import('../src/commands/bundle-python.ts');
    assert.equal(pythonSdkDir(), join(installed, 'python-sdk', 'hindsight'));
    const out = join(tmp, 'bundle');
    const example = join(root, 'examples/sma-crossover-python');
    assert.deepEqual(bundlePythonStrategy(example, 'strategy.py', out), ['python3', '-u', 'strategy.py']);
    assert.equal(
      readFileSync(join(out, 'hindsight', 'runner.py'), 'utf8'),
      readFileSync(join(root, 'sdk/python/hindsight/runner.py'), 'utf8'),
    );
  });
});
