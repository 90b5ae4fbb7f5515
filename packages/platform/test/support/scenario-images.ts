import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { ApiClient } from './api-client.ts';
import type { LayerEntry } from './executor-images.ts';
import { buildStrategyImage, type CreatedVersion, pushToVersion } from './images.ts';
import { imageLayout, skopeo } from './oci-layout.ts';
import { tempDir } from './storage-backends.ts';

/** Strategy images for scenario tests: the starter examples and small misbehaving strategies. */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const PYTHON_EXAMPLE = join(repoRoot, 'examples/sma-crossover-python');
export const TYPESCRIPT_EXAMPLE = join(repoRoot, 'examples/sma-crossover-typescript');

export async function createVersion(
  api: ApiClient,
  key: string,
  strategyId: string,
): Promise<CreatedVersion> {
  const created = await api.post(`/v1/strategies/${strategyId}/versions`, { key, body: {} });
  if (created.status !== 201) throw new Error(`version creation: ${created.status} ${created.text}`);
  return created.body;
}

/** The Python starter pushed with the platform's own image builder (what `versions push` does). */
export async function pushPythonExample(api: ApiClient, key: string, strategyId: string, env: string[] = []) {
  const version = await createVersion(api, key, strategyId);
  const { buildImage } = await import('@hindsight/platform');
  const image = await buildImage(
    { dir: PYTHON_EXAMPLE, cmd: ['python3', 'main.py'], env },
    join(tempDir('layer'), 'layer.tar.gz'),
  );
  await pushToVersion(api.baseUrl, version, image);
  return version;
}

/**
 * The TypeScript starter compiled by the TypeScript compiler to an ES module, with its one runtime
 * dependency (`ws`) beside it, pushed by skopeo from an OCI layout: it runs on the host's `node`.
 */
export async function pushTypeScriptExampleWithSkopeo(api: ApiClient, key: string, strategyId: string) {
  const dir = tempDir('ts-strategy');
  const source = readFileSync(join(TYPESCRIPT_EXAMPLE, 'main.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(join(dir, 'main.js'), outputText);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const wsDir = dirname(createRequire(import.meta.url).resolve('ws/package.json'));
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  cpSync(wsDir, join(dir, 'node_modules', 'ws'), { recursive: true });
  const layout = await imageLayout({ dir, cmd: ['node', 'main.js'] });
  const version = await createVersion(api, key, strategyId);
  const pushed = await skopeo([
    'copy',
    `oci:${layout.dir}:latest`,
    `docker://${version.repositoryUrl}:latest`,
    '--dest-tls-verify=false',
    '--dest-creds',
    `x:${version.accessToken}`,
  ]);
  if (pushed.code !== 0) throw new Error(`skopeo push failed: ${pushed.stderr}`);
  return version;
}

/** A one-file Python strategy (`main.py`), for runs that crash, hang or never connect. */
export async function pushPythonScript(api: ApiClient, key: string, strategyId: string, script: string) {
  const version = await createVersion(api, key, strategyId);
  await pushToVersion(api.baseUrl, version, await buildStrategyImage({ 'main.py': script }));
  return version;
}

/**
 * A Python strategy that connects to its gateway's socket (`ws`, with Debian's websockets of either
 * API) and then runs `body`, indented as the inside of `async def main()`.
 */
export const connectedPython = (body: string) => `
import asyncio, json, os, websockets
async def main():
    url = os.environ["PROXY_WS_URL"]
    headers = {"X-API-Key": os.environ["PLATFORM_GATEWAY_API_KEY"]}
    try:
        ws = await websockets.connect(url, additional_headers=headers)
    except TypeError:
        ws = await websockets.connect(url, extra_headers=headers)
${body}
asyncio.run(main())
`;

/** A strategy that connects and then acknowledges nothing (its run stalls). */
export const NEVER_ACKS = connectedPython(`    print("connected; acknowledging nothing", flush=True)
    await asyncio.sleep(600)`);

/** A strategy that acknowledges every batch 50 ms late (a run that lasts, to cancel or kill). */
export const SLOW_ACKS = connectedPython(`    async for message in ws:
        events = json.loads(message)
        events = events if isinstance(events, list) else [events]
        seqs = [e["seq"] for e in events if "seq" in e]
        if seqs:
            await asyncio.sleep(0.05)
            await ws.send(json.dumps({"type": "event_ack", "last_seq": seqs[-1]}))`);

/**
 * A layer with the host's `node` and the shared libraries it loads, at their own paths: a full-rootfs
 * runtime for images that must carry their interpreter (the docker executor; any executor).
 */
export function nodeRuntime(): LayerEntry[] {
  const node = realpathSync(process.execPath);
  const libraries = execFileSync('ldd', [node], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  const entries: LayerEntry[] = [];
  const dirs = new Set<string>();
  for (const file of [node, ...libraries]) {
    for (let dir = dirname(file); dir !== '/'; dir = dirname(dir)) dirs.add(dir);
    entries.push({ path: file.slice(1), content: readFileSync(file), mode: 0o755 });
  }
  entries.push({ path: 'usr/local/bin/node', link: `/${node.slice(1)}` });
  dirs.add('/usr/local/bin');
  dirs.add('/usr/local');
  dirs.add('/usr');
  dirs.add('/tmp');
  return [...[...dirs].sort().map((dir) => ({ path: `${dir.slice(1)}/`, dir: true as const })), ...entries];
}

/** The TypeScript starter compiled to an ES module in `/app`, with its one dependency (`ws`). */
export function typeScriptStarter(): LayerEntry[] {
  const source = readFileSync(join(TYPESCRIPT_EXAMPLE, 'main.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const entries: LayerEntry[] = [
    { path: 'app/', dir: true },
    { path: 'app/main.js', content: outputText },
    { path: 'app/package.json', content: JSON.stringify({ type: 'module' }) },
    { path: 'app/node_modules/', dir: true },
  ];
  const wsDir = dirname(createRequire(import.meta.url).resolve('ws/package.json'));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const inImage = `app/node_modules/ws/${relative(wsDir, path)}`;
      if (statSync(path).isDirectory()) {
        entries.push({ path: `${inImage}/`, dir: true });
        walk(path);
      } else entries.push({ path: inImage, content: readFileSync(path) });
    }
  };
  entries.push({ path: 'app/node_modules/ws/', dir: true });
  walk(wsDir);
  return entries;
}

/** The Python starter, 10 ms slower per candle, so that a run lasts long enough for a restart or a kill. */
const SLOWED_STARTER = `
import asyncio, logging, sys
import sma

on_bar = sma.SmaCrossover.on_bar

async def slow_on_bar(self, bar):
    await asyncio.sleep(0.01)
    await on_bar(self, bar)

sma.SmaCrossover.on_bar = slow_on_bar
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stdout)
sys.exit(asyncio.run(sma.run()))
`;

/** The files of an image running the slowed Python starter (`main.py`, with the starter as `sma.py`). */
export const slowedPythonStarter = (): Record<string, string> => ({
  'sma.py': readFileSync(join(PYTHON_EXAMPLE, 'main.py'), 'utf8'),
  'main.py': SLOWED_STARTER,
});
