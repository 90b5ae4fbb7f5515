import { cpSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Python SDK strategy as an image folder (`versions push --bundle strategy.py`): the strategy's folder
 * with the `hindsight` package vendored beside the strategy file, so that `python3 -u strategy.py`
 * imports it with no install (the image needs only python3 and websockets, which the local sandbox
 * lends from the host and a Docker image carries).
 *
 * The package is the repository's `sdk/python/hindsight` in a checkout, else the copy that the CLI's
 * `prepack` script puts in its tarball (`python-sdk/hindsight`).
 */
const SKIPPED = new Set(['.git', '__pycache__']);

/** Where the Python SDK's `hindsight` package is, from this module (src/commands or dist/commands). */
export function pythonSdkDir(): string {
  const cliRoot = fileURLToPath(new URL('../../', import.meta.url));
  const candidates = [
    join(cliRoot, '..', '..', 'sdk', 'python', 'hindsight'),
    join(cliRoot, 'python-sdk', 'hindsight'),
  ];
  const found = candidates.find((dir) => existsSync(join(dir, '__init__.py')));
  if (found === undefined) {
    throw new Error(`the Python SDK is not installed with this CLI (looked in ${candidates.join(' and ')})`);
  }
  return found;
}

/**
 * Copies `folder` to `outDir` with the SDK beside `entry` (a path relative to `folder`), and returns
 * the command that runs it from the image's working directory (the folder's root).
 */
export function bundlePythonStrategy(folder: string, entry: string, outDir: string): string[] {
  const entryPath = resolve(folder, entry);
  const inFolder = relative(folder, entryPath);
  if (inFolder.startsWith(`..${sep}`) || inFolder === '..' || inFolder === '') {
    throw new Error(`${entry} is not a file in ${folder}`);
  }
  let isFile = false;
  try {
    isFile = statSync(entryPath).isFile();
  } catch {
    // reported below
  }
  if (!isFile) throw new Error(`${entry} does not exist in ${folder}`);
  const vendored = join(dirname(entryPath), 'hindsight');
  if (existsSync(vendored) || existsSync(`${vendored}.py`)) {
    throw new Error(
      `${relative(folder, vendored)} already exists beside ${entry}; the SDK is vendored there: remove it, or push with --cmd`,
    );
  }
  const sdk = pythonSdkDir();
  const keep = (source: string) => !SKIPPED.has(basename(source));
  cpSync(folder, outDir, { recursive: true, verbatimSymlinks: true, filter: keep });
  cpSync(sdk, join(outDir, relative(folder, vendored)), { recursive: true, filter: keep });
  return ['python3', '-u', inFolder.split(sep).join('/')];
}
