import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BuiltImage, buildImage, type ImageSpec, mediaTypes } from '@hindsight/platform';
import { tempDir } from './storage-backends.ts';

/**
 * Images for registry tests, as OCI image layouts on disk (the `oci:` transport of skopeo), built from
 * real directories with the platform's image builder, and the `skopeo` command itself.
 */
export interface Layout {
  dir: string;
  /** Digest of the manifest (or index) the layout's `latest` names. */
  digest: string;
  images: BuiltImage[];
}

const blobPath = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));

function writeBlob(layout: string, digest: string, bytes: Buffer | string): void {
  const path = blobPath(layout, digest);
  mkdirSync(join(path, '..'), { recursive: true });
  if (typeof bytes === 'string') copyFileSync(bytes, path);
  else writeFileSync(path, bytes);
}

function writeIndex(layout: string, descriptor: { mediaType: string; digest: string; size: number }): void {
  writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(
    join(layout, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ ...descriptor, annotations: { 'org.opencontainers.image.ref.name': 'latest' } }],
    }),
  );
}

function addImage(layout: string, image: BuiltImage): void {
  writeBlob(layout, image.layer.digest, image.layer.path);
  writeBlob(layout, image.config.digest, image.config.bytes);
  writeBlob(layout, image.manifest.digest, image.manifest.bytes);
}

/** A layout holding one image built from `spec`. */
export async function imageLayout(spec: ImageSpec): Promise<Layout> {
  const dir = tempDir('oci');
  const image = await buildImage(spec, join(tempDir('layer'), 'layer.tar.gz'));
  addImage(dir, image);
  writeIndex(dir, image.manifest);
  return { dir, digest: image.manifest.digest, images: [image] };
}

/** A layout whose `latest` is an OCI index of one image per architecture. */
export async function indexLayout(spec: ImageSpec, architectures: string[]): Promise<Layout> {
  const dir = tempDir('oci-index');
  const images: BuiltImage[] = [];
  for (const architecture of architectures) {
    const image = await buildImage({ ...spec, architecture }, join(tempDir('layer'), 'layer.tar.gz'));
    addImage(dir, image);
    images.push(image);
  }
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: mediaTypes.ociIndex,
      manifests: images.map((image, i) => ({
        mediaType: image.manifest.mediaType,
        digest: image.manifest.digest,
        size: image.manifest.size,
        platform: { architecture: architectures[i], os: 'linux' },
      })),
    }),
  );
  const digest = `sha256:${(await import('node:crypto')).createHash('sha256').update(index).digest('hex')}`;
  writeBlob(dir, digest, index);
  writeIndex(dir, { mediaType: mediaTypes.ociIndex, digest, size: index.length });
  return { dir, digest, images };
}

/** Every blob file of a layout, by digest, as bytes. */
export function layoutBlobs(dir: string): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  const root = join(dir, 'blobs');
  for (const algorithm of readdirSync(root)) {
    for (const hex of readdirSync(join(root, algorithm))) {
      blobs.set(`${algorithm}:${hex}`, readFileSync(join(root, algorithm, hex)));
    }
  }
  return blobs;
}

export const layoutIndex = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as {
    manifests: { digest: string; mediaType: string }[];
  };

const run = promisify(execFile);

export interface SkopeoResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `skopeo` (Debian package; `.ci/run` installs it) with its own temp dirs. */
export async function skopeo(args: string[]): Promise<SkopeoResult> {
  try {
    const { stdout, stderr } = await run(
      'skopeo',
      ['--insecure-policy', '--tmpdir', tempDir('skopeo'), ...args],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}
