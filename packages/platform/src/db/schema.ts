import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  char,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

/** Millisecond precision: the API renders ISO-8601 with milliseconds and cursors must round-trip exactly. */
const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: instant('created_at').notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    prefix: char('prefix', { length: 8 }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    /** SHA-256 of the whole key: the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    lastUsedAt: instant('last_used_at'),
    revokedAt: instant('revoked_at'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId, t.createdAt)],
);

export const strategies = pgTable(
  'strategies',
  {
    id: uuid('id').primaryKey(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    createdBy: text('created_by').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: ['active', 'archived'] })
      .notNull()
      .default('active'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('strategies_owner_page_idx').on(t.ownerId, t.createdAt, t.id)],
);

export const configurations = pgTable(
  'configurations',
  {
    id: uuid('id').primaryKey(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    /** The run settings exactly as validated (subscriptions, window, mode, capital, env, costs). */
    settings: jsonb('settings').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('configurations_owner_page_idx').on(t.ownerId, t.createdAt, t.id)],
);

export const autoRunBindings = pgTable(
  'auto_run_bindings',
  {
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id),
    configId: uuid('config_id')
      .notNull()
      .references(() => configurations.id),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.strategyId, t.configId] }), index('auto_run_config_idx').on(t.configId)],
);

export const instruments = pgTable('instruments', {
  symbol: text('symbol').primaryKey(),
  dataSymbol: text('data_symbol').notNull().unique(),
  name: text('name').notNull(),
  market: text('market').notNull(),
  underlying: text('underlying').notNull(),
  denomination: text('denomination').notNull(),
  tickSize: text('tick_size'),
  pricePrecision: integer('price_precision'),
  spreadModel: jsonb('spread_model').notNull().default(sql`'{"kind":"zero"}'::jsonb`),
});

/** Exact bytes (manifests must be served byte for byte as pushed: their digest is over the bytes). */
const bytes = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});

/** A strategy version (decision 34) and the state of its image in the built-in registry (19d). */
export const strategyVersions = pgTable(
  'strategy_versions',
  {
    id: uuid('id').primaryKey(),
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    label: text('label'),
    description: text('description'),
    metadata: jsonb('metadata'),
    imageStatus: text('image_status', { enum: ['awaiting_push', 'ready', 'evicted'] })
      .notNull()
      .default('awaiting_push'),
    /** The manifest that became the image: its digest and media type, set once by the first tagged push. */
    imageDigest: text('image_digest'),
    imageMediaType: text('image_media_type'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    evictedAt: instant('evicted_at'),
  },
  (t) => [index('strategy_versions_page_idx').on(t.strategyId, t.createdAt, t.id)],
);

/** Content-addressed blobs stored under `<data dir>/registry/blobs`, shared by every version that links them. */
export const registryBlobs = pgTable('registry_blobs', {
  digest: text('digest').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull(),
  createdAt: instant('created_at').notNull(),
});

/** Which blobs a version's repository holds; a blob no link names any more is deleted (eviction). */
export const registryBlobLinks = pgTable(
  'registry_blob_links',
  {
    versionId: uuid('version_id')
      .notNull()
      .references(() => strategyVersions.id),
    digest: text('digest')
      .notNull()
      .references(() => registryBlobs.digest),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.versionId, t.digest] }),
    index('registry_blob_links_digest_idx').on(t.digest),
  ],
);

/** Manifests pushed to a version's repository, kept byte for byte. */
export const registryManifests = pgTable(
  'registry_manifests',
  {
    versionId: uuid('version_id')
      .notNull()
      .references(() => strategyVersions.id),
    digest: text('digest').notNull(),
    mediaType: text('media_type').notNull(),
    content: bytes('content').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.versionId, t.digest] })],
);

export const registryTags = pgTable(
  'registry_tags',
  {
    versionId: uuid('version_id')
      .notNull()
      .references(() => strategyVersions.id),
    tag: text('tag').notNull(),
    digest: text('digest').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.versionId, t.tag] })],
);

/** Blob uploads in progress; the bytes so far are the file `<data dir>/registry/uploads/<id>`. */
export const registryUploads = pgTable(
  'registry_uploads',
  {
    id: uuid('id').primaryKey(),
    versionId: uuid('version_id')
      .notNull()
      .references(() => strategyVersions.id),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('registry_uploads_version_idx').on(t.versionId)],
);

export const SCENARIO_STATES = ['QUEUED', 'PENDING', 'RUNNING', 'COMPLETE', 'FAILED', 'CANCELLED'] as const;
export type ScenarioState = (typeof SCENARIO_STATES)[number];

/**
 * Scenarios (backtest runs), which are also the work queue: workers claim QUEUED rows with
 * `FOR UPDATE SKIP LOCKED` and hold a lease (`worker_id`, `lease_expires_at`) that they renew while
 * the run lasts; a lapsed lease means the worker died (docs/scenarios.md).
 */
export const scenarios = pgTable(
  'scenarios',
  {
    id: uuid('id').primaryKey(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id),
    versionId: uuid('version_id')
      .notNull()
      .references(() => strategyVersions.id),
    /** Provenance only: the saved configuration it was created from (the configuration may be gone since). */
    configId: uuid('config_id'),
    /** Set by batch creation: which cell of the sweep this run is. */
    label: text('label'),
    /** Set by batch creation: one id per batch call, shared by its scenarios (the web app's sweeps). */
    batchId: uuid('batch_id'),
    /** The run settings as validated, `env` being the configuration's and the run's layers merged. */
    settings: jsonb('settings').notNull(),
    /** Symbols of the subscriptions (the `instruments` filter). */
    instruments: text('instruments').array().notNull(),
    state: text('state', { enum: SCENARIO_STATES }).notNull(),
    errorType: text('error_type', { enum: ['strategy', 'platform'] }),
    errorMessage: text('error_message'),
    workerId: text('worker_id'),
    leaseExpiresAt: instant('lease_expires_at'),
    /** What makes the run reproducible (image digest, data fingerprint, engine version, resolved config). */
    manifest: jsonb('manifest'),
    metrics: jsonb('metrics'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    startedAt: instant('started_at'),
    runningAt: instant('running_at'),
    finishedAt: instant('finished_at'),
    /**
     * Simulated time the run has reached, written with each lease renewal and at completion (the web
     * app's progress); null until the replay starts.
     */
    progressAt: instant('progress_at'),
    /** Claims so far: the number of the attempt running now, or of the last one (decision 40). */
    attempt: integer('attempt').notNull().default(0),
    /** Attempts that ended for a platform fault (a lost worker, a platform error): bounded by the max. */
    platformFailures: integer('platform_failures').notNull().default(0),
    /** The attempts that ended without an outcome and were requeued, oldest first (`AttemptRecord`s). */
    attempts: jsonb('attempts').notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [
    index('scenarios_strategy_page_idx').on(t.strategyId, t.createdAt, t.id),
    index('scenarios_owner_page_idx').on(t.ownerId, t.createdAt, t.id),
    index('scenarios_batch_idx').on(t.batchId).where(sql`batch_id IS NOT NULL`),
    index('scenarios_owner_state_idx').on(t.ownerId, t.state),
    index('scenarios_queue_idx').on(t.createdAt, t.id).where(sql`state = 'QUEUED'`),
    index('scenarios_lease_idx').on(t.leaseExpiresAt).where(sql`state IN ('PENDING', 'RUNNING')`),
  ],
);

/** The three result files of a COMPLETE scenario, zstd-compressed as they are served. */
export const scenarioResults = pgTable('scenario_results', {
  scenarioId: uuid('scenario_id')
    .primaryKey()
    .references(() => scenarios.id, { onDelete: 'cascade' }),
  metadata: bytes('metadata').notNull(),
  timeseries: bytes('timeseries').notNull(),
  trades: bytes('trades').notNull(),
});

/** The strategy's output, bounded (head and tail kept), per stream. */
export const scenarioLogs = pgTable(
  'scenario_logs',
  {
    scenarioId: uuid('scenario_id')
      .notNull()
      .references(() => scenarios.id, { onDelete: 'cascade' }),
    stream: text('stream', { enum: ['stdout', 'stderr'] }).notNull(),
    content: bytes('content').notNull(),
    /** Bytes the strategy wrote, including those dropped from the middle. */
    totalBytes: bigint('total_bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scenarioId, t.stream] })],
);
