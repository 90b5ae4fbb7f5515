import { createHash } from 'node:crypto';
import { RegistryError } from '@hindsight/core';
import { z } from 'zod';

/**
 * Digests, references and the manifest formats the registry accepts: OCI image manifest and index, and
 * their Docker v2 schema 2 twins (manifest and manifest list). Schema 1 (signed) manifests are refused.
 */
export const mediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

const imageManifestTypes: readonly string[] = [mediaTypes.ociManifest, mediaTypes.dockerManifest];
const indexTypes: readonly string[] = [mediaTypes.ociIndex, mediaTypes.dockerList];

/** Manifests larger than this are refused (the OCI spec asks registries to take at least 4 MiB). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export type DigestAlgorithm = 'sha256' | 'sha512';
const digestPattern = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;
/** Tag grammar of the distribution spec. */
const tagPattern = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;

export const isDigest = (value: string): boolean => digestPattern.test(value);

export function parseDigest(
  value: string | undefined,
  field = 'digest',
): { algorithm: DigestAlgorithm; hex: string } {
  if (value === undefined || value === '') {
    throw new RegistryError('DIGEST_INVALID', `${field} is missing; send ?digest=sha256:<64 hex digits>.`);
  }
  if (!isDigest(value)) {
    throw new RegistryError(
      'DIGEST_INVALID',
      `${field} "${value}" is not a supported digest; use sha256:<64 lower-case hex digits> (or sha512:<128>).`,
      { digest: value },
    );
  }
  const [algorithm, hex] = value.split(':') as [DigestAlgorithm, string];
  return { algorithm, hex };
}

export const digestOf = (bytes: Uint8Array, algorithm: DigestAlgorithm = 'sha256'): string =>
  `${algorithm}:${createHash(algorithm).update(bytes).digest('hex')}`;

export type Reference = { kind: 'tag'; tag: string } | { kind: 'digest'; digest: string };

export function parseReference(reference: string): Reference {
  if (reference.includes(':')) {
    parseDigest(reference, 'reference');
    return { kind: 'digest', digest: reference };
  }
  if (!tagPattern.test(reference)) {
    throw new RegistryError(
      'MANIFEST_INVALID',
      `tag "${reference}" is invalid; a tag is [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}.`,
      { tag: reference },
    );
  }
  return { kind: 'tag', tag: reference };
}

const descriptor = z.looseObject({
  mediaType: z.string().min(1),
  digest: z.string().regex(digestPattern, 'must be a sha256 or sha512 digest'),
  size: z.number().int().nonnegative(),
});
export type Descriptor = z.infer<typeof descriptor>;

const imageManifest = z.looseObject({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  config: descriptor,
  layers: z.array(descriptor),
});
const imageIndex = z.looseObject({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  manifests: z.array(descriptor),
});

export interface ParsedManifest {
  mediaType: string;
  /** Blobs the manifest needs in the repository (config and layers). */
  blobs: Descriptor[];
  /** Manifests an index needs in the repository. */
  manifests: Descriptor[];
}

const generic = new Set(['', 'application/json', 'application/octet-stream']);

/**
 * Checks a pushed manifest: its media type (the Content-Type, else the `mediaType` field; they must agree
 * when both are given) and its shape, and lists what it references.
 */
export function parseManifest(bytes: Buffer, contentType: string | undefined): ParsedManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new RegistryError('MANIFEST_INVALID', `the manifest is not JSON: ${(error as Error).message}`);
  }
  const declared = (json as { mediaType?: unknown } | null)?.mediaType;
  const header = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const mediaType = generic.has(header) ? (typeof declared === 'string' ? declared : '') : header;
  if (typeof declared === 'string' && declared !== mediaType) {
    throw new RegistryError(
      'MANIFEST_INVALID',
      `Content-Type ${mediaType} does not match the manifest's mediaType ${declared}.`,
    );
  }
  const isIndex = indexTypes.includes(mediaType);
  if (!isIndex && !imageManifestTypes.includes(mediaType)) {
    throw new RegistryError(
      'MANIFEST_INVALID',
      `unsupported manifest media type "${mediaType || '(none)'}"; push an OCI image manifest or index, or a Docker v2 schema 2 manifest or manifest list.`,
      { mediaType },
    );
  }
  const result = (isIndex ? imageIndex : imageManifest).safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue?.path.join('.') || 'manifest';
    throw new RegistryError('MANIFEST_INVALID', `${path}: ${issue?.message ?? 'invalid'}`, {
      mediaType,
    });
  }
  if (isIndex) {
    return { mediaType, blobs: [], manifests: (result.data as z.infer<typeof imageIndex>).manifests };
  }
  const manifest = result.data as z.infer<typeof imageManifest>;
  return { mediaType, blobs: [manifest.config, ...manifest.layers], manifests: [] };
}
