import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../http/authentication.ts';
import type { PlatformContext } from '../http/context.ts';
import { descriptionField, nameField, notNullMessage } from '../http/fields.ts';
import { MAX_JSON_DEPTH, STORED_JSON_BYTES, withStoredJsonLimits } from '../http/json-limits.ts';
import { loadOwned, ownedOf } from '../http/owned-resource.ts';
import {
  collection,
  envelope,
  errorResponses,
  isoTimestamp,
  pageQuery,
  security,
  toWire,
  uuidParam,
} from '../http/schemas.ts';
import { ACCESS_TOKEN_TTL_SECONDS, issueVersionAccessToken, repositoryName } from '../registry/access.ts';
import type { Strategy } from '../repositories/strategies.ts';
import type { Version } from '../repositories/versions.ts';

const imageStatuses = ['awaiting_push', 'ready', 'evicted'] as const;

export const versionSchema = z
  .object({
    versionId: z.uuid(),
    strategyId: z.uuid(),
    label: z.string().optional(),
    description: z.string().optional(),
    imageStatus: z.enum(imageStatuses).meta({
      description:
        '`awaiting_push` until the first manifest is pushed under a tag to `repositoryUrl`; then `ready` (the image is fixed for good); `evicted` once `DELETE .../image` removed it (never restorable).',
    }),
    imageDigest: z.string().optional().meta({
      description: 'Digest of the image manifest, once pushed (kept after eviction, for provenance).',
    }),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Your own JSON object, when set (PATCH replaces it whole; `{}` clears it).' }),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Version' });

function nullPath(value: unknown, path: string): string | undefined {
  if (value === null) return path;
  if (typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value as object)) {
    const found = nullPath(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/** Its depth and size are checked before this runs (withStoredJsonLimits on the bodies below). */
const metadataField = z
  .record(z.string(), z.unknown(), { error: notNullMessage('a JSON object') })
  .superRefine((metadata, check) => {
    const found = nullPath(metadata, 'metadata');
    if (found) {
      check.addIssue({
        code: 'custom',
        message: `${found} is null; omit the key instead (null is never stored)`,
      });
    }
  });

const fields = {
  label: nameField(200).meta({ description: 'Short name of the version, e.g. `v1.2` (1-200 characters).' }),
  description: descriptionField(),
  metadata: metadataField.meta({
    description: `A JSON object of your own (at most ${STORED_JSON_BYTES.metadata / 1024} KiB as JSON, nested at most ${MAX_JSON_DEPTH} levels, no null values).`,
  }),
};

const createBody = withStoredJsonLimits(
  z
    .strictObject({
      label: fields.label.optional(),
      description: fields.description.optional(),
      metadata: fields.metadata.optional(),
    })
    .meta({ id: 'VersionCreateRequest' }),
  ['metadata'],
);
const updateBody = withStoredJsonLimits(
  z
    .strictObject({
      label: fields.label.optional(),
      description: fields.description.optional(),
      metadata: fields.metadata.optional(),
    })
    .refine(
      (b) => b.label !== undefined || b.description !== undefined || b.metadata !== undefined,
      'give at least one of label, description and metadata',
    )
    .meta({ id: 'VersionUpdateRequest' }),
  ['metadata'],
);

const created = z.object({
  data: versionSchema,
  repositoryUrl: z.string().meta({
    description:
      'Where to push the image: `<host>:<port>/v/<versionId>` on this platform (the host the API was called on). Push any tag there, e.g. `docker push <repositoryUrl>:latest`.',
  }),
  accessToken: z.string().meta({
    description: `Registry credential for this version's repository only: push (and pull) for ${ACCESS_TOKEN_TTL_SECONDS / 60} minutes. Use it as the password of basic auth with any user name (\`docker login\`, \`skopeo --dest-creds x:<token>\`) or as a bearer token. It is no API key.`,
  }),
  accessTokenExpiresAt: isoTimestamp,
});

const strategyParams = z.object({ strategy_id: uuidParam });
const versionParams = z.object({ strategy_id: uuidParam, version_id: uuidParam });
const tags = ['Versions'];

interface OwnedVersion {
  strategy: Strategy;
  version: Version;
}

export async function versionRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const loadStrategy = loadOwned('strategy_id', (owner, id) => ctx.strategies.get(owner, id));
  const loadVersion = loadOwned(
    ['strategy_id', 'version_id'],
    async (owner, strategyId, versionId): Promise<OwnedVersion> => ({
      strategy: await ctx.strategies.get(owner, strategyId),
      version: await ctx.versions.get(owner, strategyId, versionId),
    }),
  );
  const present = (v: Version) => toWire(v);
  const config = { auth: 'key' as const };
  const versionOf = (request: FastifyRequest) => ownedOf<OwnedVersion>(request).version;

  api.get(
    '/v1/strategies/:strategy_id/versions',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'listVersions',
        summary: 'List the versions of a strategy',
        description: 'Newest first, paginated like every collection; `imageStatus` filters by image status.',
        security: security.key,
        params: strategyParams,
        querystring: z.object({
          ...pageQuery,
          imageStatus: z
            .enum(imageStatuses)
            .optional()
            .meta({ description: 'Only versions in this image status.' }),
        }),
        response: { 200: collection(versionSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, cursor, imageStatus } = request.query;
      const page = await ctx.versions.list(ownedOf<Strategy>(request).strategyId, {
        limit,
        cursor,
        imageStatus,
      });
      return { data: page.items.map(present), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    },
  );

  api.post(
    '/v1/strategies/:strategy_id/versions',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'createVersion',
        summary: 'Create a version',
        description:
          'Every field is optional (`{}` is a valid body). The version starts `awaiting_push`; push its container image to `repositoryUrl` with `accessToken` (decision 19d; docs/registry.md, or `npx hindsight versions push`). The first manifest pushed under a tag becomes the image (status `ready`), and the version is immutable from then on. An archived strategy takes no new versions (409).',
        security: security.key,
        params: strategyParams,
        body: createBody,
        response: { 201: created, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const strategy = ownedOf<Strategy>(request);
      const version = await ctx.versions.create(
        principalOf(request).userId,
        strategy.strategyId,
        request.body,
      );
      const access = await issueVersionAccessToken(ctx.signingSecret, version.versionId);
      return reply.code(201).send({
        data: present(version),
        repositoryUrl: `${request.host}/${repositoryName(version.versionId)}`,
        accessToken: access.token,
        accessTokenExpiresAt: access.expiresAt.toISOString(),
      });
    },
  );

  api.get(
    '/v1/strategies/:strategy_id/versions/:version_id',
    {
      config,
      onRequest: loadVersion,
      schema: {
        tags,
        operationId: 'getVersion',
        summary: 'Get a version',
        security: security.key,
        params: versionParams,
        response: { 200: envelope(versionSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: present(versionOf(request)) }),
  );

  api.patch(
    '/v1/strategies/:strategy_id/versions/:version_id',
    {
      config,
      onRequest: loadVersion,
      schema: {
        tags,
        operationId: 'updateVersion',
        summary: 'Update version metadata',
        description:
          'Changes any of `label`, `description` and `metadata` (replaced whole; `{}` clears it); fields not named keep their value. The image itself never changes. Versions of an archived strategy cannot be changed (409).',
        security: security.key,
        params: versionParams,
        body: updateBody,
        response: { 200: envelope(versionSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { strategy_id, version_id } = request.params;
      const version = await ctx.versions.update(
        principalOf(request).userId,
        strategy_id,
        version_id,
        request.body,
      );
      return { data: present(version) };
    },
  );

  api.delete(
    '/v1/strategies/:strategy_id/versions/:version_id/image',
    {
      config,
      onRequest: loadVersion,
      schema: {
        tags,
        operationId: 'evictVersionImage',
        summary: 'Evict the version image for good',
        description:
          "Deletes the version's image from the registry: its manifests and tags, and every blob no other version uses. The version stays (status `evicted`, `imageDigest` kept for provenance) but can never run again (`IMAGE_EVICTED`, 410) nor be pushed to; upload a new version instead. Allowed in any status (an `awaiting_push` version is closed to pushes) and for archived strategies; evicting again changes nothing. Answers 200 with the version.",
        security: security.key,
        params: versionParams,
        response: { 200: envelope(versionSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { strategy_id, version_id } = request.params;
      const owner = principalOf(request).userId;
      await ctx.registry.evict(versionOf(request).versionId);
      return { data: present(await ctx.versions.get(owner, strategy_id, version_id)) };
    },
  );
}
