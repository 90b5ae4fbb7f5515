import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ExecutorError, ImageRunError, type StrategyImage } from './executor.ts';
import { checkPlatform, hostArchitecture, type ImageConfigFields } from './image-command.ts';

/**
 * Pulls an image from the built-in registry over HTTP, the way any OCI client does
 * (`GET /v2/<repository>/manifests/<digest>`, then the config and layer blobs), with the version's pull
 * token as a bearer credential: a worker on another machine reaches it the same way. Every manifest and
 * blob is checked against its digest; a multi-platform index is resolved to linux and this machine's
 * architecture (`amd64` on x64).
 */
export interface LayerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
}

export interface PulledImage {
  /** The digest asked for (the version's image; an index when the image is multi-platform). */
  digest: string;
  /** The image manifest that runs (the index's entry for this platform, or `digest` itself). */
  manifestDigest: string;
  config: { os?: string; architecture?: string; config?: ImageConfigFields };
  layers: LayerDescriptor[];
}

const ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');
const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);
/** Manifests and configs are small; a larger answer is not an image of ours. */
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

const hashOf = (digest: string) => createHash(digest.startsWith('sha512:') ? 'sha512' : 'sha256');
const hexOf = (digest: string) => digest.slice(digest.indexOf(':') + 1);

export class RegistryPuller {
  private readonly authorization: string;

  constructor(
    private readonly image: StrategyImage,
    private readonly signal?: AbortSignal,
  ) {
    this.authorization = `Bearer ${image.pullToken}`;
  }

  private get label(): string {
    return `${this.image.repository}@${this.image.digest}`;
  }

  private async get(path: string, accept?: string): Promise<Response> {
    const url = new URL(`/v2/${this.image.repository}/${path}`, this.image.registryUrl);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: this.authorization, ...(accept && { accept }) },
        signal: this.signal ?? null,
      });
    } catch (error) {
      this.signal?.throwIfAborted();
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ExecutorError(
        `the image registry at ${this.image.registryUrl} is unreachable (${cause?.code ?? cause?.message ?? (error as Error).message})`,
        { cause: error },
      );
    }
    if (response.status !== 200) {
      const text = (await response.text().catch(() => '')).slice(0, 300);
      throw new ExecutorError(
        `the image registry answered ${response.status} to GET ${url.pathname} for ${this.label}: ${text}`,
      );
    }
    return response;
  }

  /** A small document (manifest, config), verified against `digest`. */
  private async document(
    path: string,
    digest: string,
    accept?: string,
  ): Promise<{ bytes: Buffer; type: string }> {
    const response = await this.get(path, accept);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new ExecutorError(`${path} of ${this.label} is ${bytes.length} bytes, over the 4 MiB limit`);
    }
    const actual = `${digest.slice(0, digest.indexOf(':'))}:${hashOf(digest).update(bytes).digest('hex')}`;
    if (actual !== digest) {
      throw new ExecutorError(`${path} of ${this.label} does not match its digest (got ${actual})`);
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    return { bytes, type };
  }

  private parse<T>(bytes: Buffer, what: string): T {
    try {
      return JSON.parse(bytes.toString('utf8')) as T;
    } catch (error) {
      throw new ImageRunError(`the ${what} of ${this.label} is not JSON`, { cause: error });
    }
  }

  /** Fetches and checks the manifest (through the index when there is one) and the config. */
  async pull(): Promise<PulledImage> {
    if (!DIGEST.test(this.image.digest)) {
      throw new ExecutorError(`"${this.image.digest}" is not a sha256 or sha512 digest`);
    }
    let manifestDigest = this.image.digest;
    let { bytes, type } = await this.document(`manifests/${manifestDigest}`, manifestDigest, ACCEPT);
    let manifest = this.parse<{
      mediaType?: string;
      manifests?: { digest: string; platform?: { os?: string; architecture?: string } }[];
      config?: LayerDescriptor;
      layers?: LayerDescriptor[];
    }>(bytes, 'manifest');
    if (INDEX_TYPES.has(manifest.mediaType ?? type) || Array.isArray(manifest.manifests)) {
      const arch = hostArchitecture();
      const entries = manifest.manifests ?? [];
      const chosen = entries.find((e) => e.platform?.os === 'linux' && e.platform.architecture === arch);
      if (!chosen || !DIGEST.test(chosen.digest)) {
        const platforms = entries.map((e) => `${e.platform?.os}/${e.platform?.architecture}`).join(', ');
        throw new ImageRunError(
          `the image ${this.label} has no linux/${arch} manifest (it has ${platforms || 'none'})`,
        );
      }
      manifestDigest = chosen.digest;
      ({ bytes, type } = await this.document(`manifests/${manifestDigest}`, manifestDigest, ACCEPT));
      manifest = this.parse(bytes, 'manifest');
    }
    const config = manifest.config;
    if (!config || !DIGEST.test(config.digest) || !Array.isArray(manifest.layers)) {
      throw new ImageRunError(`the manifest ${manifestDigest} of ${this.label} is not an image manifest`);
    }
    for (const layer of manifest.layers) {
      if (!DIGEST.test(layer.digest)) {
        throw new ImageRunError(`the manifest of ${this.label} names an invalid layer digest`);
      }
    }
    const configJson = this.parse<PulledImage['config']>(
      (await this.document(`blobs/${config.digest}`, config.digest)).bytes,
      'config',
    );
    checkPlatform(configJson, this.label);
    return { digest: this.image.digest, manifestDigest, config: configJson, layers: manifest.layers };
  }

  /**
   * A layer's bytes as a stream that fails (instead of ending) when the bytes do not match the digest or
   * the size, so whatever consumed them is discarded.
   */
  async layer(layer: LayerDescriptor): Promise<Readable> {
    const response = await this.get(`blobs/${layer.digest}`);
    if (!response.body) throw new ExecutorError(`the registry sent no body for ${layer.digest}`);
    const hash = hashOf(layer.digest);
    let size = 0;
    const label = this.label;
    const verify = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
      flush(done) {
        const hex = hash.digest('hex');
        if (hex !== hexOf(layer.digest) || (layer.size > 0 && size !== layer.size)) {
          done(new ExecutorError(`the layer ${layer.digest} of ${label} does not match its digest or size`));
        } else done();
      },
    });
    const source = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    source.on('error', (error) => verify.destroy(error));
    return source.pipe(verify);
  }
}
