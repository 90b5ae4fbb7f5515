import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * An SDK strategy module as one JavaScript file that runs it over the wire (`versions push --bundle`):
 * the module, the SDK and every dependency bundled by esbuild, so that the image needs only `node`
 * (which the local sandbox lends from the host, and a Docker image carries). The SDK is found from the
 * strategy's folder first, else from this CLI's own installation.
 */
export const BUNDLE_FILE = 'strategy.cjs';

export async function bundleStrategy(entry: string, outDir: string): Promise<string> {
  const { build } = await import('esbuild');
  const entryPath = resolve(entry);
  const sdkPackage = createRequire(import.meta.url).resolve('@hindsight/sdk/package.json');
  // <prefix>/node_modules/@hindsight/sdk/package.json -> <prefix>/node_modules
  const cliModules = dirname(dirname(dirname(sdkPackage)));
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, BUNDLE_FILE);
  const file = JSON.stringify(`./${basename(entryPath)}`);
  const result = await build({
    stdin: {
      contents: `import * as module from ${file};\nimport { run, strategyOf } from '@hindsight/sdk';\nrun(strategyOf(module, ${file}));\n`,
      resolveDir: dirname(entryPath),
      sourcefile: 'hindsight-strategy-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    // The workspace's TypeScript sources when there are any (a checkout), else the published files.
    conditions: ['source'],
    nodePaths: [cliModules],
    // ws's optional native helpers: absent, ws uses its JavaScript fallbacks.
    external: ['bufferutil', 'utf-8-validate'],
    legalComments: 'none',
    logLevel: 'silent',
  }).catch((error: { errors?: { text: string; location?: { file: string; line: number } | null }[] }) => {
    const first = error.errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    throw new Error(`cannot bundle ${entry}: ${first?.text ?? String(error)}${where}`);
  });
  if (result.errors.length > 0) throw new Error(`cannot bundle ${entry}: ${result.errors[0]?.text}`);
  return outfile;
}
