import { envFromEntries } from '../executors/image-command.ts';
import type { RegistryStore } from './registry-store.ts';

/**
 * The parts of a version's image configuration the platform itself reads: its `Env` is the lowest layer
 * of a run's environment, checked with the configuration's on top before a scenario is accepted
 * (decision 25). A multi-platform index is resolved to linux/amd64 (else its first entry), as the
 * executors do.
 */
export interface ImageRunConfig {
  env: Record<string, string>;
}

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);

interface IndexEntry {
  digest: string;
  platform?: { os?: string; architecture?: string };
}

export async function readImageRunConfig(
  registry: RegistryStore,
  versionId: string,
  digest: string,
): Promise<ImageRunConfig> {
  let manifest = await registry.manifest(versionId, { kind: 'digest', digest });
  if (manifest && INDEX_TYPES.has(manifest.mediaType)) {
    const entries = (JSON.parse(manifest.content.toString('utf8')) as { manifests: IndexEntry[] }).manifests;
    const chosen =
      entries.find((e) => e.platform?.os === 'linux' && e.platform.architecture === 'amd64') ?? entries[0];
    manifest = chosen && (await registry.manifest(versionId, { kind: 'digest', digest: chosen.digest }));
  }
  if (!manifest) throw new Error(`the image ${digest} of version ${versionId} is not in the registry`);
  const configDigest = (JSON.parse(manifest.content.toString('utf8')) as { config: { digest: string } })
    .config.digest;
  const config = JSON.parse((await registry.blobs.readBytes(configDigest)).toString('utf8')) as {
    config?: { Env?: string[] | null };
  };
  return { env: envFromEntries(config.config?.Env ?? []) };
}
