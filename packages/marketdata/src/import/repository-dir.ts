import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository that holds the packages (its `data/sample/`, `examples/`): the nearest folder above
 * this module whose package.json lists `workspaces`. Found by walking up rather than by a fixed
 * `../../..`, so the answer is the same from the sources and from compiled output at any depth.
 * Outside a checkout (no such folder) it is the working directory.
 */
export function repositoryDir(): string {
  cached ??= findWorkspaceRoot(dirname(fileURLToPath(import.meta.url))) ?? process.cwd();
  return cached;
}

let cached: string | undefined;

function findWorkspaceRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && listsWorkspaces(manifest)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function listsWorkspaces(manifest: string): boolean {
  try {
    return JSON.parse(readFileSync(manifest, 'utf8')).workspaces !== undefined;
  } catch {
    return false;
  }
}
