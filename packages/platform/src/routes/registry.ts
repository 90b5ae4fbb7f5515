import type { IncomingMessage } from 'node:http';
import { ApiError, isUuid, RegistryError } from '@hindsight/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { PlatformContext } from '../http/context.ts';
import {
  type CredentialResolver,
  issueRepositoryToken,
  parseScopes,
  presentedSecret,
  REGISTRY_TOKEN_TTL_SECONDS,
  type RegistryAction,
  type RegistryCredential,
  type RepositoryAccess,
  repositoryName,
  resolveCredential,
  tokenActions,
} from '../registry/access.ts';
import { LengthMismatchError, UploadGoneError } from '../registry/blob-store.ts';
import { MAX_MANIFEST_BYTES, parseDigest, parseManifest, parseReference } from '../registry/manifests.ts';
import type { Repository } from '../registry/registry-store.ts';

/**
 * The built-in OCI Distribution registry under `/v2/` (decision 19d; docs/registry.md): one repository
 * per strategy version, `v/<versionId>`. It speaks the distribution spec's own HTTP (headers, status
 * codes, `{errors: [...]}` bodies), not the management API's envelope, and is left out of openapi.json,
 * which describes `/v1`.
 */
const SERVICE = 'hindsight-registry';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Registry routes: the action they need on the repository in the path, or none for the version check. */
    registryAction?: RegistryAction | 'none';
  }
  interface FastifyRequest {
    registryCredential: RegistryCredential | null;
    repository: Repository | null;
  }
}

interface RepositoryParams {
  version_id: string;
}

const repositoryPath = (versionId: string) => `/v2/${repositoryName(versionId)}`;

/** `Range: 0-<last byte>`; the distribution spec's reference implementation says `0-0` when empty. */
const rangeHeader = (size: number) => `0-${Math.max(size - 1, 0)}`;

function challenge(request: FastifyRequest, invalid: boolean): string {
  const realm = `${request.protocol}://${request.host}/v2/token`;
  const versionId = (request.params as Partial<RepositoryParams>)?.version_id;
  const action = request.routeOptions.config?.registryAction;
  const scope =
    versionId && isUuid(versionId) && action && action !== 'none'
      ? `,scope="repository:${repositoryName(versionId)}:${action === 'push' ? 'pull,push' : 'pull'}"`
      : '';
  return `Bearer realm="${realm}",service="${SERVICE}"${scope}${invalid ? ',error="invalid_token"' : ''}`;
}

function toRegistryError(error: unknown, request: FastifyRequest): RegistryError {
  if (error instanceof RegistryError) return error;
  if (error instanceof UploadGoneError) {
    return new RegistryError('BLOB_UPLOAD_UNKNOWN', `Upload ${error.uploadId} is unknown or was closed.`);
  }
  if (error instanceof LengthMismatchError) {
    return new RegistryError(
      'SIZE_INVALID',
      `The request announced ${error.expected} bytes but sent ${error.received}; nothing of it was kept.`,
    );
  }
  if (error instanceof ApiError && error.status < 500) {
    return new RegistryError(error.status === 401 ? 'UNAUTHORIZED' : 'DENIED', error.message);
  }
  request.log.error({ err: error }, 'registry failure');
  return new RegistryError('UNKNOWN', `Unexpected registry failure. Request id: ${request.id}.`);
}

/** Reads a small body (a manifest) whole, refusing more than `limit` bytes. */
async function readSmallBody(raw: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(raw.headers['content-length']);
  const tooLarge = () =>
    new RegistryError('SIZE_INVALID', `The manifest is larger than ${limit} bytes.`, { limit }, 413);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `Content-Range: <start>-<end>` of a chunk (also accepted with a `bytes ` prefix and `/<total>`). */
function parseContentRange(header: string | undefined): { start: number; end: number } | undefined {
  if (header === undefined) return undefined;
  const match = /^(?:bytes[ =])?(\d+)-(\d+)(?:\/(?:\d+|\*))?$/.exec(header.trim());
  const start = Number(match?.[1]);
  const end = Number(match?.[2]);
  if (!match || end < start) {
    throw new RegistryError(
      'BLOB_UPLOAD_INVALID',
      `Content-Range "${header}" is not <start>-<end> with end >= start.`,
      undefined,
      416,
    );
  }
  return { start, end };
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export async function registryRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const resolver: CredentialResolver = {
    secret: ctx.signingSecret,
    apiKeyUser: (key) => ctx.apiKeys.authenticate(key),
    userExists: async (userId) => (await ctx.users.findById(userId)) !== undefined,
  };
  const store = ctx.registry;

  app.decorateRequest('registryCredential', null);
  app.decorateRequest('repository', null);
  // Layers stream straight to disk: no body is parsed or buffered by the framework here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const registryError = toRegistryError(error, request);
    if (registryError.code === 'UNAUTHORIZED') {
      reply.header(
        'www-authenticate',
        challenge(request, presentedSecret(request.headers.authorization) !== undefined),
      );
    }
    return reply
      .code(registryError.status)
      .type('application/json; charset=utf-8')
      .serializer(JSON.stringify)
      .send(registryError.toBody());
  });

  // Authentication, then the repository in the path: 401, unknown name 404, no access 403, evicted 410.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('docker-distribution-api-version', 'registry/2.0');
    const action = request.routeOptions.config.registryAction;
    if (action === undefined) return; // the token endpoint authenticates on its own
    const secret = presentedSecret(request.headers.authorization);
    const credential = secret ? await resolveCredential(resolver, secret) : undefined;
    if (!credential) {
      throw new RegistryError(
        'UNAUTHORIZED',
        secret
          ? 'The credential is invalid or expired; push with the accessToken of the version, pull with it or an API key.'
          : 'Authenticate with the accessToken of the version (any user name) or an API key.',
      );
    }
    request.registryCredential = credential;
    if (action === 'none') return;
    const versionId = (request.params as RepositoryParams).version_id;
    request.repository = await authorize(credential, versionId, action);
  });

  async function authorize(
    credential: RegistryCredential,
    versionId: string,
    action: RegistryAction,
  ): Promise<Repository> {
    const name = repositoryName(versionId);
    const unknown = () => new RegistryError('NAME_UNKNOWN', `Repository ${name} does not exist.`, { name });
    if (credential.kind === 'token' && !tokenActions(credential, name).has(action)) {
      throw new RegistryError(
        'DENIED',
        `This token does not grant ${action} on ${name}; each version's accessToken works only for its own repository.`,
        { name, action },
      );
    }
    const repository = isUuid(versionId) ? await store.repository(versionId.toLowerCase()) : undefined;
    if (!repository) throw unknown();
    if (credential.kind === 'user') {
      if (repository.ownerId !== credential.userId) {
        throw new RegistryError('DENIED', `Repository ${name} belongs to another account.`, { name });
      }
      if (action === 'push') {
        throw new RegistryError(
          'DENIED',
          `Pushing to ${name} needs the accessToken returned when the version was created (an API key only pulls).`,
          { name, action },
        );
      }
    }
    if (repository.imageStatus === 'evicted') {
      throw new RegistryError(
        'IMAGE_EVICTED',
        `The image of version ${repository.versionId} was evicted for good; create a new version.`,
        { name },
      );
    }
    return repository;
  }

  /** Route options: hidden from openapi.json (it describes `/v1`), with the action the route needs. */
  const on = (registryAction?: RegistryAction | 'none'): RouteShorthandOptions => ({
    schema: { hide: true },
    exposeHeadRoute: false,
    config: registryAction === undefined ? {} : { registryAction },
  });

  /** GET and HEAD of one resource: `describe` sets the headers (or throws); GET then sends `body`. */
  function readable<T>(
    url: string,
    describe: (request: FastifyRequest, reply: FastifyReply) => Promise<T>,
    body: (found: T) => unknown,
  ) {
    app.head(url, on('pull'), async (request, reply) => {
      await describe(request, reply);
      return reply.code(200).send();
    });
    app.get(url, on('pull'), async (request, reply) =>
      reply.code(200).send(await body(await describe(request, reply))),
    );
  }

  const repositoryOf = (request: FastifyRequest): Repository => {
    if (!request.repository) throw new RegistryError('UNKNOWN', 'Route is missing its registry action.');
    return request.repository;
  };

  app.get('/v2/', { ...on('none'), exposeHeadRoute: true }, async (_request, reply) =>
    reply.type('application/json').send({}),
  );

  // The Docker token flow: basic auth with the accessToken (or an API key) as password, for the scopes
  // asked; a token never grants more than its credential.
  app.get('/v2/token', on(), async (request, reply) => {
    const secret = presentedSecret(request.headers.authorization);
    const credential = secret ? await resolveCredential(resolver, secret) : undefined;
    if (!credential) {
      reply.header('www-authenticate', `Basic realm="${SERVICE}"`);
      throw new RegistryError(
        'UNAUTHORIZED',
        'Send basic auth with any user name and the version accessToken (or an API key) as password.',
      );
    }
    const query = request.query as { scope?: string | string[] };
    const scopes = parseScopes(query.scope === undefined ? [] : [query.scope].flat());
    const access: RepositoryAccess[] = [];
    for (const { name, actions } of scopes) {
      let granted: RegistryAction[] = [];
      if (credential.kind === 'token') {
        const allowed = tokenActions(credential, name);
        granted = actions.filter((a) => allowed.has(a));
      } else if (actions.includes('pull')) {
        const versionId = /^v\/(.+)$/.exec(name)?.[1];
        const repository = versionId && isUuid(versionId) ? await store.repository(versionId) : undefined;
        if (repository?.ownerId === credential.userId) granted = ['pull'];
      }
      if (granted.length > 0) access.push({ type: 'repository', name, actions: granted });
    }
    const now = new Date();
    const cap = new Date(now.getTime() + REGISTRY_TOKEN_TTL_SECONDS * 1000);
    const expiresAt = credential.kind === 'token' && credential.expiresAt < cap ? credential.expiresAt : cap;
    const issued = await issueRepositoryToken(ctx.signingSecret, 'token', access, expiresAt, now);
    const expiresIn = Math.max(1, Math.round((issued.expiresAt.getTime() - now.getTime()) / 1000));
    return reply.send({
      token: issued.token,
      access_token: issued.token,
      expires_in: expiresIn,
      issued_at: now.toISOString(),
    });
  });

  const blobRoute = '/v2/v/:version_id/blobs/:digest';
  const sendBlobHeaders = async (request: FastifyRequest, reply: FastifyReply) => {
    const { versionId } = repositoryOf(request);
    const { digest } = request.params as { digest: string };
    parseDigest(digest);
    const size = await store.blobSize(versionId, digest);
    const onDisk = size === undefined ? undefined : await store.blobs.size(digest);
    if (size === undefined || onDisk !== size) {
      throw new RegistryError(
        'BLOB_UNKNOWN',
        `Repository ${repositoryName(versionId)} holds no blob ${digest}.`,
        {
          digest,
        },
      );
    }
    reply
      .header('docker-content-digest', digest)
      .header('content-length', size)
      .header('accept-ranges', 'none')
      .type('application/octet-stream');
    return digest;
  };
  readable(blobRoute, sendBlobHeaders, (digest) => store.blobs.read(digest));
  app.delete(blobRoute, on('push'), async () => {
    throw new RegistryError(
      'UNSUPPORTED',
      'Blobs are not deleted one by one; evict the version image with DELETE /v1/strategies/{strategy_id}/versions/{version_id}/image.',
    );
  });

  const uploadLocation = (versionId: string, uploadId: string) =>
    `${repositoryPath(versionId)}/blobs/uploads/${uploadId}`;
  const blobCreated = (reply: FastifyReply, versionId: string, digest: string) =>
    reply
      .code(201)
      .header('location', `${repositoryPath(versionId)}/blobs/${digest}`)
      .header('docker-content-digest', digest)
      .header('content-length', 0)
      .send();
  const uploadAccepted = (
    reply: FastifyReply,
    versionId: string,
    uploadId: string,
    size: number,
    status = 202,
  ) =>
    reply
      .code(status)
      .header('location', uploadLocation(versionId, uploadId))
      .header('range', rangeHeader(size))
      .header('docker-upload-uuid', uploadId)
      .header('content-length', 0)
      .send();

  /** Appends the request body to an upload, checking Content-Range and Content-Length (416/400 otherwise). */
  async function appendBody(
    request: FastifyRequest,
    reply: FastifyReply,
    versionId: string,
    uploadId: string,
  ) {
    const range = parseContentRange(headerValue(request.headers['content-range']));
    const lengthHeader = headerValue(request.headers['content-length']);
    const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
    if (range && declared !== undefined && declared !== range.end - range.start + 1) {
      throw new RegistryError(
        'BLOB_UPLOAD_INVALID',
        `Content-Range ${range.start}-${range.end} is ${range.end - range.start + 1} bytes but Content-Length is ${declared}.`,
        undefined,
        416,
      );
    }
    return store.appendToUpload(
      uploadId,
      request.raw,
      (current) => {
        if (range && range.start !== current) {
          reply
            .header('location', uploadLocation(versionId, uploadId))
            .header('range', rangeHeader(current))
            .header('docker-upload-uuid', uploadId);
          throw new RegistryError(
            'BLOB_UPLOAD_INVALID',
            `This chunk starts at byte ${range.start} but the upload has ${current} bytes; send the chunk starting at ${current}.`,
            { size: current },
            416,
          );
        }
      },
      range ? range.end - range.start + 1 : declared,
    );
  }

  const refuseIfImmutable = (repository: Repository) => {
    if (repository.imageStatus === 'ready') {
      throw new RegistryError(
        'DENIED',
        `Version ${repository.versionId} is immutable: its image is ${repository.imageDigest}. Create a new version to push another image.`,
        { imageDigest: repository.imageDigest },
      );
    }
  };

  app.post('/v2/v/:version_id/blobs/uploads/', on('push'), async (request, reply) => {
    const repository = repositoryOf(request);
    refuseIfImmutable(repository);
    const { versionId, ownerId } = repository;
    const query = request.query as { digest?: string; mount?: string; from?: string };
    if (query.mount !== undefined) {
      parseDigest(query.mount, 'mount');
      if (query.from && (await store.mountBlob(versionId, ownerId, query.mount, query.from))) {
        return blobCreated(reply, versionId, query.mount);
      }
    } else if (query.digest !== undefined) {
      // Monolithic upload: the whole blob in this one request.
      parseDigest(query.digest);
      const uploadId = await store.startUpload(versionId);
      try {
        await appendBody(request, reply, versionId, uploadId);
        await store.completeUpload(versionId, uploadId, query.digest);
      } catch (error) {
        await store.cancelUpload(uploadId);
        throw error;
      }
      return blobCreated(reply, versionId, query.digest);
    }
    const uploadId = await store.startUpload(versionId);
    return uploadAccepted(reply, versionId, uploadId, 0);
  });

  const uploadRoute = '/v2/v/:version_id/blobs/uploads/:upload_id';
  const openUpload = async (request: FastifyRequest) => {
    const { versionId } = repositoryOf(request);
    const { upload_id: uploadId } = request.params as { upload_id: string };
    if (!(await store.hasUpload(versionId, uploadId))) {
      throw new RegistryError('BLOB_UPLOAD_UNKNOWN', `Upload ${uploadId} is unknown or was closed.`, {
        uploadId,
      });
    }
    return { versionId, uploadId };
  };

  app.get(uploadRoute, on('push'), async (request, reply) => {
    const { versionId, uploadId } = await openUpload(request);
    const size = await store.blobs.uploadSize(uploadId);
    if (size === undefined) throw new UploadGoneError(uploadId);
    return uploadAccepted(reply, versionId, uploadId, size, 204);
  });

  app.patch(uploadRoute, on('push'), async (request, reply) => {
    const { versionId, uploadId } = await openUpload(request);
    const size = await appendBody(request, reply, versionId, uploadId);
    return uploadAccepted(reply, versionId, uploadId, size);
  });

  app.put(uploadRoute, on('push'), async (request, reply) => {
    const { versionId, uploadId } = await openUpload(request);
    const { digest } = request.query as { digest?: string };
    parseDigest(digest);
    await appendBody(request, reply, versionId, uploadId);
    await store.completeUpload(versionId, uploadId, digest as string);
    return blobCreated(reply, versionId, digest as string);
  });

  app.delete(uploadRoute, on('push'), async (request, reply) => {
    const { uploadId } = await openUpload(request);
    await store.cancelUpload(uploadId);
    return reply.code(204).send();
  });

  const manifestRoute = '/v2/v/:version_id/manifests/:reference';
  const findManifest = async (request: FastifyRequest, reply: FastifyReply) => {
    const { versionId } = repositoryOf(request);
    const { reference } = request.params as { reference: string };
    let manifest: Awaited<ReturnType<typeof store.manifest>>;
    try {
      manifest = await store.manifest(versionId, parseReference(reference));
    } catch {
      manifest = undefined; // not a valid tag or digest: it cannot name a manifest
    }
    if (!manifest) {
      throw new RegistryError(
        'MANIFEST_UNKNOWN',
        `Repository ${repositoryName(versionId)} has no manifest ${reference}.`,
        { reference },
      );
    }
    reply
      .type(manifest.mediaType)
      .header('docker-content-digest', manifest.digest)
      .header('etag', `"${manifest.digest}"`)
      .header('content-length', manifest.content.length);
    return manifest;
  };
  readable(manifestRoute, findManifest, (manifest) => manifest.content);
  app.put(manifestRoute, on('push'), async (request, reply) => {
    const { versionId } = repositoryOf(request);
    const reference = parseReference((request.params as { reference: string }).reference);
    const bytes = await readSmallBody(request.raw, MAX_MANIFEST_BYTES);
    const manifest = parseManifest(bytes, headerValue(request.headers['content-type']));
    const digest = await store.putManifest(versionId, reference, bytes, manifest);
    return reply
      .code(201)
      .header('location', `${repositoryPath(versionId)}/manifests/${digest}`)
      .header('docker-content-digest', digest)
      .header('content-length', 0)
      .send();
  });
  app.delete(manifestRoute, on('push'), async () => {
    throw new RegistryError(
      'UNSUPPORTED',
      'Versions are immutable; evict the image with DELETE /v1/strategies/{strategy_id}/versions/{version_id}/image.',
    );
  });

  app.get('/v2/v/:version_id/tags/list', on('pull'), async (request, reply) => {
    const { versionId } = repositoryOf(request);
    const { n, last } = request.query as { n?: string; last?: string };
    const all = await store.tags(versionId);
    const after = last === undefined ? all : all.filter((tag) => tag > last);
    const limit = n === undefined ? after.length : Number(n);
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RegistryError('UNSUPPORTED', `n=${n} is not a page size (a whole number >= 0).`);
    }
    const tags = after.slice(0, limit);
    if (after.length > limit && tags.length > 0) {
      reply.header(
        'link',
        `<${repositoryPath(versionId)}/tags/list?n=${limit}&last=${tags.at(-1)}>; rel="next"`,
      );
    }
    return reply.send({ name: repositoryName(versionId), tags });
  });

  // Any other repository name: every repository here is `v/<versionId>` (decision 19d).
  app.all('/v2/*', on('none'), async (request) => {
    const path = request.url.split('?')[0] ?? '';
    const name = /^\/v2\/(.+?)\/(?:blobs|manifests|tags)\//.exec(path)?.[1];
    throw new RegistryError(
      'NAME_UNKNOWN',
      name
        ? `Repository ${name} does not exist; repositories are v/<versionId> (repositoryUrl of the version).`
        : `No registry endpoint ${request.method} ${path}.`,
      name ? { name } : undefined,
    );
  });
}
