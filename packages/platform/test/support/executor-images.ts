import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ensureZstd, zstdCompress } from '@hindsight/marketdata';
import { issuePullToken, mediaTypes, RegistryPushClient } from '@hindsight/platform';
import tar from 'tar-stream';
import type { StrategyImage } from '../../src/executors/index.ts';
import type { TestPlatform } from './test-platform.ts';

/**
 * Images for the executor tests, built in memory layer by layer (files, folders, symbolic links,
 * whiteouts; gzip, plain or zstd) and pushed to a real platform's registry as a new version, with the
 * same push client `hindsight versions push` uses. Nothing comes from a public registry: full-rootfs
 * images carry Debian's static busybox (`busybox-static`, installed by `.ci/run`).
 */
export type LayerEntry =
  | { path: string; content: string | Buffer; mode?: number }
  | { path: string; dir: true }
  | { path: string; link: string };

export interface LayerSpec {
  entries: LayerEntry[];
  compression?: 'gzip' | 'none' | 'zstd';
}

export interface ImageSpec {
  layers: LayerSpec[];
  config: { Entrypoint?: string[]; Cmd?: string[]; Env?: string[]; WorkingDir?: string; User?: string };
  architecture?: string;
}

export const DEFAULT_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** An uncompressed tar of `entries`. */
export async function tarOf(entries: LayerEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk) => {
      chunks.push(chunk as Buffer);
    });
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  const base = { mtime: new Date(0), uid: 0, gid: 0 };
  for (const entry of entries) {
    if ('dir' in entry) pack.entry({ ...base, name: entry.path, type: 'directory', mode: 0o755 });
    else if ('link' in entry) {
      pack.entry({ ...base, name: entry.path, type: 'symlink', linkname: entry.link, mode: 0o777 });
    } else {
      pack.entry({ ...base, name: entry.path, mode: entry.mode ?? 0o644 }, Buffer.from(entry.content));
    }
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

interface Blob {
  mediaType: string;
  digest: string;
  size: number;
  bytes: Buffer;
}

const blob = (mediaType: string, bytes: Buffer): Blob => ({
  mediaType,
  digest: sha256(bytes),
  size: bytes.length,
  bytes,
});

async function layerBlob(spec: LayerSpec): Promise<{ layer: Blob; diffId: string }> {
  const plain = await tarOf(spec.entries);
  const compression = spec.compression ?? 'gzip';
  if (compression === 'none')
    return { layer: blob('application/vnd.oci.image.layer.v1.tar', plain), diffId: sha256(plain) };
  if (compression === 'zstd') {
    await ensureZstd();
    return {
      layer: blob('application/vnd.oci.image.layer.v1.tar+zstd', Buffer.from(zstdCompress(plain, 3))),
      diffId: sha256(plain),
    };
  }
  return { layer: blob(mediaTypes.ociLayerGzip, gzipSync(plain)), diffId: sha256(plain) };
}

/** The image's blobs and manifest (OCI). */
export async function buildLayeredImage(spec: ImageSpec): Promise<{ blobs: Blob[]; manifest: Blob }> {
  const layers = await Promise.all(spec.layers.map(layerBlob));
  const config = blob(
    mediaTypes.ociConfig,
    Buffer.from(
      JSON.stringify({
        architecture: spec.architecture ?? 'amd64',
        os: 'linux',
        config: spec.config,
        rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
      }),
    ),
  );
  const descriptor = ({ mediaType, digest, size }: Blob) => ({ mediaType, digest, size });
  const manifest = blob(
    mediaTypes.ociManifest,
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: mediaTypes.ociManifest,
        config: descriptor(config),
        layers: layers.map((l) => descriptor(l.layer)),
      }),
    ),
  );
  return { blobs: [config, ...layers.map((l) => l.layer)], manifest };
}

export interface PushedVersion {
  versionId: string;
  image: StrategyImage;
}

async function newVersion(t: TestPlatform, key: string) {
  const strategy = await t.api.post('/v1/strategies', { key, body: { name: 'Executor test' } });
  const created = await t.api.post(`/v1/strategies/${strategy.body.data.strategyId}/versions`, {
    key,
    body: {},
  });
  return created.body as { data: { versionId: string }; accessToken: string };
}

/** Pushes `specs` (one image, or one per architecture as an OCI index) as a new version of a new strategy. */
export async function pushVersion(
  t: TestPlatform,
  key: string,
  ...specs: ImageSpec[]
): Promise<PushedVersion> {
  const created = await newVersion(t, key);
  const versionId = created.data.versionId;
  const client = new RegistryPushClient({
    baseUrl: t.platform.url,
    repository: `v/${versionId}`,
    accessToken: created.accessToken,
  });
  const built = await Promise.all(specs.map(buildLayeredImage));
  for (const image of built) {
    for (const part of image.blobs) {
      await client.pushBlob(part.digest, part.size, (start, end) =>
        Readable.from([part.bytes.subarray(start, end + 1)]),
      );
    }
  }
  let digest: string;
  if (built.length === 1) {
    const only = built[0] as (typeof built)[number];
    digest = await client.pushManifest('latest', only.manifest.mediaType, only.manifest.bytes);
  } else {
    for (const image of built)
      await client.pushManifest(image.manifest.digest, image.manifest.mediaType, image.manifest.bytes);
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: mediaTypes.ociIndex,
        manifests: built.map((image, i) => ({
          mediaType: image.manifest.mediaType,
          digest: image.manifest.digest,
          size: image.manifest.size,
          platform: { os: 'linux', architecture: specs[i]?.architecture ?? 'amd64' },
        })),
      }),
    );
    digest = await client.pushManifest('latest', mediaTypes.ociIndex, index);
  }
  return { versionId, image: await strategyImage(t, versionId, digest) };
}

/** What a worker hands an executor for a version: the registry's URL and a pull-only token. */
export async function strategyImage(
  t: TestPlatform,
  versionId: string,
  digest: string,
): Promise<StrategyImage> {
  return {
    versionId,
    digest,
    registryUrl: t.platform.url,
    repository: `v/${versionId}`,
    pullToken: (await issuePullToken(t.platform.ctx.signingSecret, versionId)).token,
  };
}

/** An `/app` layer of `files` (the shape `hindsight versions push` builds). */
export const appLayer = (files: Record<string, string>): LayerSpec => ({
  entries: [
    { path: 'app/', dir: true },
    ...Object.entries(files).map(([name, content]) => ({ path: `app/${name}`, content, mode: 0o755 })),
  ],
});

/** Debian's static busybox as `/bin/busybox`, with `sh` and a few applets linked to it. */
export function busyboxLayer(applets = ['sh', 'ls', 'cat', 'echo', 'sleep', 'nc', 'id']): LayerSpec {
  let busybox: Buffer;
  try {
    busybox = readFileSync('/bin/busybox');
  } catch {
    throw new Error('/bin/busybox is missing: install the busybox-static package (.ci/run does)');
  }
  return {
    entries: [
      { path: 'bin/', dir: true },
      { path: 'bin/busybox', content: busybox, mode: 0o755 },
      ...applets.map((applet) => ({ path: `bin/${applet}`, link: 'busybox' })),
    ],
  };
}

/** A byte sink that keeps everything written, as text. */
export function textSink(): { write: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  return { write: (chunk) => chunks.push(chunk), text: () => Buffer.concat(chunks).toString('utf8') };
}
