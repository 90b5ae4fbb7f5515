import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuiltImage, buildImage, RegistryPushClient } from '@hindsight/platform';
import { tempDir } from './storage-backends.ts';

/** A strategy folder on disk: `files` maps relative paths to contents. */
export function strategyDir(files: Record<string, string>): string {
  const dir = tempDir('strategy');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** Builds a one-layer image of `files` with the platform's builder. */
export const buildStrategyImage = (
  files: Record<string, string>,
  cmd = ['python3', 'main.py'],
  env: string[] = [],
): Promise<BuiltImage> =>
  buildImage({ dir: strategyDir(files), cmd, env }, join(tempDir('layer'), 'layer.tar.gz'));

export interface CreatedVersion {
  data: {
    versionId: string;
    strategyId: string;
    imageStatus: string;
    imageDigest?: string;
    updatedAt: string;
  };
  repositoryUrl: string;
  accessToken: string;
}

/** Pushes `image` to a created version over real HTTP with its accessToken; returns the manifest digest. */
export async function pushToVersion(
  baseUrl: string,
  created: CreatedVersion,
  image: BuiltImage,
): Promise<string> {
  const client = new RegistryPushClient({
    baseUrl,
    repository: `v/${created.data.versionId}`,
    accessToken: created.accessToken,
  });
  return (await client.pushImage(image)).digest;
}
