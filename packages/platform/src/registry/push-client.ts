import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { BuiltImage } from './image-builder.ts';

/**
 * A minimal OCI Distribution push client (what `hindsight versions push` uses; docker or skopeo do the
 * same). Blobs the repository already holds are skipped (HEAD); others go up in chunks
 * (POST, PATCH with Content-Range, PUT with the digest), streamed from disk; then the manifest under a tag.
 */
export interface PushTarget {
  /** The platform's base URL, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** `v/<versionId>`. */
  repository: string;
  /** The version's accessToken (sent as basic auth with user name `hindsight`). */
  accessToken: string;
}

export class RegistryPushError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** 16 MiB chunks: small enough to retry, large enough that a request's overhead does not matter. */
export const PUSH_CHUNK_BYTES = 16 * 1024 * 1024;

async function failure(what: string, response: Response): Promise<RegistryPushError> {
  const text = await response.text();
  let code: string | undefined;
  let message = text.slice(0, 300);
  try {
    const first = (JSON.parse(text) as { errors?: { code?: string; message?: string }[] }).errors?.[0];
    code = first?.code;
    message = first?.message ?? message;
  } catch {
    // not a registry error body: keep the text
  }
  return new RegistryPushError(
    response.status,
    code,
    `${what}: ${response.status} ${code ?? ''} ${message}`.trim(),
  );
}

export class RegistryPushClient {
  private readonly authorization: string;

  constructor(private readonly target: PushTarget) {
    this.authorization = `Basic ${Buffer.from(`hindsight:${target.accessToken}`).toString('base64')}`;
  }

  private url(path: string): string {
    return new URL(path, this.target.baseUrl).toString();
  }

  private request(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: RequestInit['body'] } = {},
  ) {
    return fetch(this.url(path), {
      method,
      headers: { authorization: this.authorization, ...init.headers },
      ...(init.body !== undefined && { body: init.body, duplex: 'half' }),
    } as RequestInit);
  }

  async hasBlob(digest: string): Promise<boolean> {
    const response = await this.request('HEAD', `/v2/${this.target.repository}/blobs/${digest}`);
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw await failure(`HEAD blob ${digest}`, response);
  }

  /** Uploads `size` bytes read by `open(start, end)` (inclusive end) in chunks; returns bytes sent. */
  async pushBlob(
    digest: string,
    size: number,
    open: (start: number, end: number) => Readable,
    chunkBytes = PUSH_CHUNK_BYTES,
  ): Promise<number> {
    if (await this.hasBlob(digest)) return 0;
    const started = await this.request('POST', `/v2/${this.target.repository}/blobs/uploads/`);
    if (started.status !== 202) throw await failure(`start upload of ${digest}`, started);
    let location = started.headers.get('location') ?? '';
    for (let start = 0; start < size; start += chunkBytes) {
      const end = Math.min(start + chunkBytes, size) - 1;
      const chunk = await this.request('PATCH', location, {
        headers: {
          'content-type': 'application/octet-stream',
          'content-range': `${start}-${end}`,
          'content-length': String(end - start + 1),
        },
        body: Readable.toWeb(open(start, end)) as ReadableStream,
      });
      if (chunk.status !== 202) throw await failure(`upload ${digest} bytes ${start}-${end}`, chunk);
      location = chunk.headers.get('location') ?? location;
    }
    const separator = location.includes('?') ? '&' : '?';
    const done = await this.request('PUT', `${location}${separator}digest=${encodeURIComponent(digest)}`, {
      headers: { 'content-length': '0' },
    });
    if (done.status !== 201) throw await failure(`finish upload of ${digest}`, done);
    return size;
  }

  async pushManifest(tag: string, mediaType: string, bytes: Buffer): Promise<string> {
    const response = await this.request('PUT', `/v2/${this.target.repository}/manifests/${tag}`, {
      headers: { 'content-type': mediaType },
      body: bytes,
    });
    if (response.status !== 201) throw await failure(`push manifest ${tag}`, response);
    return response.headers.get('docker-content-digest') ?? '';
  }

  /** Pushes a built image (layer, config, manifest) under `tag`; returns the manifest digest. */
  async pushImage(image: BuiltImage, tag = 'latest'): Promise<{ digest: string; bytesSent: number }> {
    let bytesSent = await this.pushBlob(image.layer.digest, image.layer.size, (start, end) =>
      createReadStream(image.layer.path, { start, end }),
    );
    bytesSent += await this.pushBlob(image.config.digest, image.config.size, (start, end) =>
      Readable.from([image.config.bytes.subarray(start, end + 1)]),
    );
    const digest = await this.pushManifest(tag, image.manifest.mediaType, image.manifest.bytes);
    return { digest, bytesSent };
  }
}
