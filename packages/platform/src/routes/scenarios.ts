import {
  ApiError,
  badRequest,
  configurationFieldsSchema,
  costsSchema,
  ENV_KEY_PATTERN,
  ENV_MAX_KEYS,
  inlineConfigurationSchema,
  mergeEnv,
  newId,
} from '@hindsight/core';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SCENARIO_STATES } from '../db/schema.ts';
import { principalOf } from '../http/authentication.ts';
import type { PlatformContext } from '../http/context.ts';
import { withStoredJsonLimits } from '../http/json-limits.ts';
import { loadOwned, ownedOf } from '../http/owned-resource.ts';
import {
  booleanQuery,
  collection,
  envelope,
  errorBody,
  errorResponses,
  isoTimestamp,
  pageQuery,
  security,
  toWire,
  uuidParam,
} from '../http/schemas.ts';
import { type ConfigurationSettings, runSettingsOf } from '../repositories/configurations.ts';
import { type Scenario, ScenarioRepository } from '../repositories/scenarios.ts';
import type { Strategy } from '../repositories/strategies.ts';
import { alignCurves } from '../scenarios/equity-alignment.ts';
import type { IssuePath, PlannedScenario, ScenarioCreation } from '../scenarios/scenario-creation.ts';

/** Most scenarios one batch may ask for (after the env grid is expanded), and one compare may take. */
export const MAX_BATCH_SCENARIOS = 100;
export const MAX_FROM_CONFIGS = 50;
export const MAX_COMPARE = 20;

const settingsFields = {
  subscriptions: z.array(z.object({ instrument: z.string(), events: z.array(z.string()) })),
  startTime: z.string(),
  endTime: z.string(),
  positionMode: z.enum(['netting', 'hedging']),
  initialCapital: z.number(),
  env: z.record(z.string(), z.string()).optional(),
  costs: costsSchema.optional(),
};

const manifestSchema = z
  .object({
    imageDigest: z.string().meta({ description: 'Digest of the image manifest that ran.' }),
    dataFingerprint: z.string().meta({
      description: 'sha256 over the stored market-data chunks the window replays (bars and ticks).',
    }),
    engineVersion: z.string(),
    configuration: z.object(settingsFields).meta({ description: 'The resolved run settings.' }),
  })
  .meta({
    id: 'ScenarioManifest',
    description:
      'What the run depended on, recorded when a worker starts it: two runs with equal manifests produce byte-identical result files.',
  });

const attemptSchema = z
  .object({
    attempt: z.int().min(1).meta({ description: 'Its number: 1 for the first claim.' }),
    startedAt: isoTimestamp.meta({ description: 'When a worker claimed it.' }),
    runningAt: isoTimestamp.optional().meta({ description: 'When the strategy connected, if it did.' }),
    endedAt: isoTimestamp,
    end: z.enum(['worker_lost', 'worker_stopped', 'platform_error']).meta({
      description:
        '`worker_lost`: its worker stopped renewing its lease (crashed, killed, cut off from the database). `worker_stopped`: its worker was shut down and handed the run back (does not count towards the limit). `platform_error`: the run failed for a platform reason.',
    }),
    message: z.string().meta({ description: 'What happened, in words.' }),
  })
  .meta({
    id: 'ScenarioAttempt',
    description:
      'An attempt that ended without an outcome; the scenario went back to the queue and ran again from the start (decision 40).',
  });

export const scenarioSchema = z
  .object({
    scenarioId: z.uuid(),
    strategyId: z.uuid(),
    strategyVersionId: z.uuid(),
    ownerId: z.uuid(),
    configId: z.uuid().optional().meta({
      description:
        'Provenance only: the saved configuration the scenario was created from (from-configs, auto-run). The configuration may have changed or gone since; the scenario keeps its own copy of the settings.',
    }),
    label: z.string().optional().meta({
      description: 'Set by batch creation: which item or env-grid cell this run is, e.g. `FAST=5,SLOW=20`.',
    }),
    state: z.enum(SCENARIO_STATES).meta({
      description:
        'QUEUED (waiting for a worker), PENDING (claimed; image and data being prepared), RUNNING (the strategy is connected), then COMPLETE, FAILED or CANCELLED (terminal).',
    }),
    errorType: z.enum(['strategy', 'platform']).optional().meta({
      description:
        'FAILED only. `strategy`: the strategy exited non-zero, crashed, never connected, or stalled without acknowledging events. `platform`: a fault on our side.',
    }),
    errorMessage: z.string().optional().meta({ description: 'FAILED only: what happened, in words.' }),
    attempt: z.int().min(0).meta({
      description:
        'The attempt running now or the last one: 0 until a worker claims it. A run that ends for a platform reason runs again, up to HINDSIGHT_MAX_ATTEMPTS (3) such attempts; strategy failures never do.',
    }),
    attempts: z.array(attemptSchema).meta({
      description: 'Earlier attempts that ended without an outcome and were requeued, oldest first.',
    }),
    ...settingsFields,
    manifest: manifestSchema.optional(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    startedAt: isoTimestamp.optional().meta({ description: 'When a worker claimed it (PENDING).' }),
    runningAt: isoTimestamp.optional().meta({ description: 'When the strategy connected (RUNNING).' }),
    finishedAt: isoTimestamp.optional().meta({ description: 'When it reached its terminal state.' }),
  })
  .meta({ id: 'Scenario' });

const present = (s: Scenario) => toWire(s);

const envValues = z
  .record(
    z.string().regex(ENV_KEY_PATTERN, 'env keys match [A-Za-z_][A-Za-z0-9_]*'),
    z.array(z.string()).min(1, 'give at least one value').max(MAX_BATCH_SCENARIOS),
  )
  .refine((grid) => Object.keys(grid).length > 0, 'give at least one key')
  .refine(
    (grid) => Object.keys(grid).length <= ENV_MAX_KEYS,
    `at most ${ENV_MAX_KEYS} keys, as an env holds`,
  );

/** A configuration in a request body, behind the size limits of its stored JSON fields. */
const limitedConfiguration = <T extends z.ZodType>(schema: T) =>
  withStoredJsonLimits(schema, ['subscriptions', 'costs']);

const batchFields = z
  .strictObject({
    strategyVersionId: z.uuid('must be a strategy version id (UUID)'),
    configurations: z
      .array(limitedConfiguration(configurationFieldsSchema))
      .min(1)
      .max(MAX_BATCH_SCENARIOS)
      .optional()
      .meta({ description: 'Inline configurations (without strategyVersionId), one scenario each.' }),
    base: limitedConfiguration(configurationFieldsSchema).optional().meta({
      description: 'One configuration the env grid is applied to; without `envGrid` it is one more scenario.',
    }),
    envGrid: envValues.optional().meta({
      description:
        'Parameter sweep: each key lists values; one scenario per combination (the cartesian product, keys in the order given), its env = base env with that combination on top.',
    }),
  })
  .refine((b) => b.configurations !== undefined || b.base !== undefined, {
    message: 'give `configurations`, or `base` (optionally with `envGrid`), or both',
  })
  .refine((b) => b.envGrid === undefined || b.base !== undefined, {
    message: '`envGrid` needs `base`, the configuration it sweeps',
    path: ['envGrid'],
  })
  .meta({ id: 'ScenarioBatchRequest' });
const batchBody = withStoredJsonLimits(batchFields, ['envGrid']);
const inlineBody = limitedConfiguration(inlineConfigurationSchema);

const fromConfigsBody = z
  .strictObject({
    strategyVersionId: z.uuid('must be a strategy version id (UUID)'),
    configIds: z
      .array(z.uuid('must be a configuration id (UUID)'))
      .min(1, 'give at least one configuration id')
      .max(MAX_FROM_CONFIGS, `at most ${MAX_FROM_CONFIGS} configurations per call`),
    env: z.record(z.string(), z.string()).optional().meta({
      description:
        'Per-run env layer, over each configuration env (itself over the image env). Same rules as a configuration env.',
    }),
  })
  .meta({ id: 'ScenariosFromConfigsRequest' });

const fromConfigsResult = z
  .discriminatedUnion('status', [
    z.object({ configId: z.uuid(), status: z.literal('created'), scenario: scenarioSchema }),
    z.object({ configId: z.uuid(), status: z.literal('failed'), error: errorBody.shape.error }),
  ])
  .meta({ id: 'FromConfigResult' });

const compareBody = z
  .strictObject({
    scenarioIds: z
      .array(z.uuid('must be a scenario id (UUID)'))
      .min(1, 'give at least one scenario id')
      .max(MAX_COMPARE, `at most ${MAX_COMPARE} scenarios per comparison`)
      .refine(
        (ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length,
        'ids must be distinct',
      ),
  })
  .meta({ id: 'CompareRequest' });

const comparison = z
  .object({
    scenarios: z.array(
      z.object({
        scenarioId: z.uuid(),
        strategyId: z.uuid(),
        strategyVersionId: z.uuid(),
        label: z.string().optional(),
        startTime: z.string(),
        endTime: z.string(),
        initialCapital: z.number(),
        metrics: z.record(z.string(), z.unknown()).meta({ description: 'As GET .../metrics answers.' }),
      }),
    ),
    equity: z
      .object({
        timestamps: z
          .array(z.number().int())
          .meta({ description: 'Union of every run’s samples, epoch ms.' }),
        nav: z.record(z.string(), z.array(z.string())).meta({
          description:
            'Per scenario id, its NAV at each timestamp (decimal strings): the last sample at or before it, or the initial capital before the run’s first sample.',
        }),
      })
      .meta({ description: 'The equity curves on one time axis.' }),
  })
  .meta({ id: 'ScenarioComparison' });

const resultFile = {
  description: 'The zstd-compressed JSON file.',
  content: {
    'application/octet-stream': {
      schema: z.string().meta({ format: 'binary', contentMediaType: 'application/zstd' }),
    },
  },
};

const listQuery = z.object({
  ...pageQuery,
  state: z.enum(SCENARIO_STATES).optional(),
  strategyVersionId: z.uuid('must be a version id (UUID)').optional(),
  isCompleted: booleanQuery
    .optional()
    .meta({ description: '`true`: COMPLETE only; `false`: every other state.' }),
  createdAfter: z.iso
    .datetime({ offset: true, message: 'must be an RFC 3339 timestamp' })
    .optional()
    .meta({ description: 'RFC 3339; strictly after.' }),
  createdBefore: z.iso
    .datetime({ offset: true, message: 'must be an RFC 3339 timestamp' })
    .optional()
    .meta({ description: 'RFC 3339; strictly before.' }),
  instruments: z
    .string()
    .min(1)
    // Blanks around commas are trimmed: a value of blanks and commas names no symbol.
    .refine((text) => text.split(',').some((symbol) => symbol.trim() !== ''), {
      message: 'must name at least one symbol, e.g. C:BTCUSD or C:BTCUSD,F:EURUSD',
    })
    .optional()
    .meta({ description: 'Comma-separated platform symbols: scenarios subscribed to any of them.' }),
});

const strategyParams = z.object({ strategy_id: uuidParam });
const scenarioParams = z.object({ strategy_id: uuidParam, scenario_id: uuidParam });
const flatParams = z.object({ scenario_id: uuidParam });
const tags = ['Scenarios'];

/** The cartesian product of an env grid, keys in the order given. */
function expandGrid(grid: Record<string, string[]>): Record<string, string>[] {
  let cells: Record<string, string>[] = [{}];
  for (const [key, values] of Object.entries(grid)) {
    cells = cells.flatMap((cell) => values.map((value) => ({ ...cell, [key]: value })));
    if (cells.length > MAX_BATCH_SCENARIOS) {
      throw badRequest(
        `envGrid expands to more than ${MAX_BATCH_SCENARIOS} scenarios; a batch takes at most ${MAX_BATCH_SCENARIOS}.`,
      );
    }
  }
  return cells;
}

/** A validated configuration body as run settings (the schema's output is the stored shape). */
const settingsOf = (config: z.output<typeof configurationFieldsSchema>) =>
  runSettingsOf(config as ConfigurationSettings);

export async function scenarioRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const creation = ctx.scenarioCreation;
  const config = { auth: 'key' as const };
  const loadStrategy = loadOwned('strategy_id', (owner, id) => ctx.strategies.get(owner, id));
  const loadScenario = loadOwned(['strategy_id', 'scenario_id'], async (owner, strategyId, id) => {
    await ctx.strategies.get(owner, strategyId);
    return ctx.scenarios.getOfStrategy(owner, strategyId, id);
  });
  const loadFlat = loadOwned('scenario_id', (owner, id) => ctx.scenarios.get(owner, id));
  const scenarioOf = (request: FastifyRequest) => ownedOf<Scenario>(request);
  const ownerOf = (request: FastifyRequest) => principalOf(request).userId;

  const getDescription =
    'The scenario record. Poll it while `state` is QUEUED, PENDING or RUNNING; stop at COMPLETE, FAILED or CANCELLED.';
  api.get(
    '/v1/scenarios/:scenario_id',
    {
      config,
      onRequest: loadFlat,
      schema: {
        tags,
        operationId: 'getScenario',
        summary: 'Get a scenario',
        description: `${getDescription} Same payload as the strategy-scoped path.`,
        security: security.key,
        params: flatParams,
        response: { 200: envelope(scenarioSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: present(scenarioOf(request)) }),
  );

  api.get(
    '/v1/strategies/:strategy_id/scenarios/:scenario_id',
    {
      config,
      onRequest: loadScenario,
      schema: {
        tags,
        operationId: 'getStrategyScenario',
        summary: 'Get a scenario of a strategy',
        description: getDescription,
        security: security.key,
        params: scenarioParams,
        response: { 200: envelope(scenarioSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ data: present(scenarioOf(request)) }),
  );

  api.get(
    '/v1/strategies/:strategy_id/scenarios',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'listScenarios',
        summary: 'List the scenarios of a strategy',
        description: 'Newest first; every filter narrows the list (they combine with AND).',
        security: security.key,
        params: strategyParams,
        querystring: listQuery,
        response: { 200: collection(scenarioSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await ctx.scenarios.list(ownedOf<Strategy>(request).strategyId, {
        limit: q.limit,
        cursor: q.cursor,
        state: q.state,
        strategyVersionId: q.strategyVersionId?.toLowerCase(),
        isCompleted: q.isCompleted,
        createdAfter: q.createdAfter ? new Date(q.createdAfter) : undefined,
        createdBefore: q.createdBefore ? new Date(q.createdBefore) : undefined,
        instruments: q.instruments
          ?.split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      });
      return { data: page.items.map(present), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    },
  );

  api.post(
    '/v1/strategies/:strategy_id/scenarios',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'createScenario',
        summary: 'Create a scenario (one backtest run)',
        description:
          'Takes the inline configuration. Checks in order (decisions 25 and 35): the body (every rule of the schema, the `env` rules on the inline env alone, the catalog rules), then the version (404 unknown, 409 image not pushed yet, 410 evicted), then the env merged over the image `Env` (400), then the archived strategy (409) and the quota (403 `QUOTA_EXCEEDED`). Answers 201 with the QUEUED scenario.',
        security: security.key,
        params: strategyParams,
        body: inlineBody,
        response: { 201: envelope(scenarioSchema), ...errorResponses(400, 401, 403, 404, 409, 410) },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const strategyId = ownedOf<Strategy>(request).strategyId;
      const { strategyVersionId, ...fields } = request.body;
      const settings = settingsOf(fields);
      await creation.assertCatalogRules(settings);
      const version = await creation.runnableVersion(owner, strategyId, strategyVersionId);
      creation.assertMergedEnv(version.imageEnv, settings.env);
      const scenario = await creation.create(owner, strategyId, { versionId: version.versionId, settings });
      return reply.code(201).send({ data: present(scenario) });
    },
  );

  api.post(
    '/v1/strategies/:strategy_id/scenarios/batch',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'createScenarioBatch',
        summary: 'Create several scenarios of one version (a list and/or a parameter sweep)',
        description: `The scenarios are \`configurations\` in order, then the \`base\` configuration once per cell of \`envGrid\` (or once without a grid), at most ${MAX_BATCH_SCENARIOS} in all. Every one is validated before any is created (400 names the item, e.g. \`configurations[2].endTime\`, \`envGrid["FAST=5,SLOW=20"].env\`), then the version is resolved (404, 409, 410) and each env merged over the image's is checked (400). Then they are created in order while the quota has slots: \`requested\` is how many the body asked for, \`dropped\` how many were not created because the quota ran out (403 \`QUOTA_EXCEEDED\` when none could be).`,
        security: security.key,
        params: strategyParams,
        body: batchBody,
        response: {
          201: z.object({
            data: z.array(scenarioSchema),
            requested: z
              .number()
              .int()
              .meta({ description: 'Scenarios the body asked for (grid expanded).' }),
            dropped: z.number().int().meta({
              description:
                'Of those, how many were not created: the account quota ran out (the rest were created).',
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const strategyId = ownedOf<Strategy>(request).strategyId;
      const body = request.body;
      const items: { label: string; path: IssuePath; settings: ConfigurationSettings }[] = [];
      body.configurations?.forEach((item, index) => {
        const path = ['configurations', index];
        items.push({ label: `configurations[${index}]`, path, settings: settingsOf(item) });
      });
      if (body.base) {
        const base = settingsOf(body.base);
        if (!body.envGrid) items.push({ label: 'base', path: ['base'], settings: base });
        else {
          for (const cell of expandGrid(body.envGrid)) {
            const label = Object.entries(cell)
              .map(([k, v]) => `${k}=${v}`)
              .join(',');
            items.push({
              label,
              path: ['envGrid', label],
              settings: { ...base, env: mergeEnv(base.env, cell) },
            });
          }
        }
      }
      if (items.length > MAX_BATCH_SCENARIOS) {
        throw badRequest(
          `the batch asks for ${items.length} scenarios; at most ${MAX_BATCH_SCENARIOS} are allowed per call.`,
        );
      }
      for (const item of items) {
        creation.assertMergedEnv({}, item.settings.env, item.path);
        await creation.assertCatalogRules(item.settings, item.path);
      }
      const version = await creation.runnableVersion(owner, strategyId, body.strategyVersionId);
      for (const item of items) creation.assertMergedEnv(version.imageEnv, item.settings.env, item.path);
      // One id per call, shared by its scenarios: the web app groups them as a sweep (`/app-api/sweeps`).
      const batchId = newId();
      const plans: PlannedScenario[] = items.map((item) => ({
        versionId: version.versionId,
        settings: item.settings,
        label: item.label,
        batchId,
      }));
      const outcomes = await createUntilQuota(creation, owner, strategyId, plans);
      return reply.code(201).send({
        data: outcomes.map(present),
        requested: plans.length,
        dropped: plans.length - outcomes.length,
      });
    },
  );

  api.post(
    '/v1/strategies/:strategy_id/scenarios/from-configs',
    {
      config,
      onRequest: loadStrategy,
      schema: {
        tags,
        operationId: 'createScenariosFromConfigs',
        summary: 'Create one scenario per saved configuration',
        description:
          "Rules of the spec, in order: (1) each configuration is resolved, owner-scoped (404 unknown, 403 another account's); (2) one scenario per configuration with its subscriptions, window, position mode, initial capital and costs, plus the version; (3) unknown configuration ids and an invalid merged env (image, then configuration, then the body's `env`) are rejected (400) before any scenario is created, as are the version checks (404, 409, 410); (4) launch is best effort: each takes its own quota slot, and a later failure keeps those created; (5) 201 with one result per requested configuration, in order: `created` with the QUEUED scenario or `failed` with the error; (6) the call errors (with the first failure's status and code) only when no scenario was created; (7) configurations are never changed.",
        security: security.key,
        params: strategyParams,
        body: fromConfigsBody,
        response: {
          201: z.object({ data: z.array(fromConfigsResult) }),
          ...errorResponses(400, 401, 403, 404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const strategyId = ownedOf<Strategy>(request).strategyId;
      const { strategyVersionId, configIds, env } = request.body;
      creation.assertMergedEnv({}, env);
      const configurations = [];
      for (const id of configIds) configurations.push(await ctx.configurations.get(owner, id));
      const version = await creation.runnableVersion(owner, strategyId, strategyVersionId);
      const plans: PlannedScenario[] = configurations.map((c, index) => {
        const { env: configEnv, ...rest } = runSettingsOf(c);
        const merged = mergeEnv(configEnv, env);
        const settings: ConfigurationSettings = {
          ...rest,
          ...(Object.keys(merged).length > 0 && { env: merged }),
        };
        creation.assertMergedEnv(version.imageEnv, settings.env, ['configIds', index]);
        return { versionId: version.versionId, settings, configId: c.configId };
      });
      for (const [index, plan] of plans.entries()) {
        await creation.assertCatalogRules(plan.settings, ['configIds', index]);
      }
      const outcomes = await creation.createEach(owner, strategyId, plans);
      if (!outcomes.some((o) => o.ok)) {
        const first = outcomes.find((o) => !o.ok);
        if (first && !first.ok) throw first.error;
      }
      return reply.code(201).send({
        data: outcomes.map((outcome, index) =>
          outcome.ok
            ? {
                configId: plans[index]?.configId as string,
                status: 'created' as const,
                scenario: present(outcome.scenario),
              }
            : {
                configId: plans[index]?.configId as string,
                status: 'failed' as const,
                error: outcome.error.toBody().error,
              },
        ),
      });
    },
  );

  api.delete(
    '/v1/strategies/:strategy_id/scenarios/:scenario_id',
    {
      config,
      onRequest: loadScenario,
      schema: {
        tags,
        operationId: 'deleteScenario',
        summary: 'Delete a scenario',
        description:
          'Deletes the scenario with its results and logs, in any state: a run still going is stopped (as by cancel) and its worker lets it go.',
        security: security.key,
        params: scenarioParams,
        response: { 204: z.null().meta({ description: 'Deleted.' }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const id = scenarioOf(request).scenarioId;
      await ctx.scenarios.delete(ownerOf(request), id);
      ctx.signals.stopped(id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/v1/strategies/:strategy_id/scenarios/:scenario_id/cancel',
    {
      config,
      onRequest: loadScenario,
      schema: {
        tags,
        operationId: 'cancelScenario',
        summary: 'Cancel a scenario',
        description:
          'QUEUED, PENDING or RUNNING become CANCELLED at once (200 with the scenario); the worker stops the strategy and the simulation within 2 seconds. A terminal scenario is 400.',
        security: security.key,
        params: scenarioParams,
        response: { 200: envelope(scenarioSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const scenario = await ctx.scenarios.cancel(ownerOf(request), scenarioOf(request).scenarioId);
      ctx.signals.stopped(scenario.scenarioId);
      return { data: present(scenario) };
    },
  );

  for (const file of ['metadata', 'timeseries', 'trades'] as const) {
    api.get(
      `/v1/strategies/:strategy_id/scenarios/:scenario_id/${file}`,
      {
        config,
        onRequest: loadScenario,
        schema: {
          tags,
          operationId: `download${file[0]?.toUpperCase()}${file.slice(1)}`,
          summary: `Download the ${file} file`,
          description: `The ${file} result file of a COMPLETE scenario: zstd-compressed JSON as \`application/octet-stream\` (docs/results.md). Errors are JSON envelopes, so check the status before decompressing; a scenario that is not COMPLETE is 400.`,
          security: security.key,
          params: scenarioParams,
          response: { 200: resultFile, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const scenario = scenarioOf(request);
        ScenarioRepository.assertComplete(scenario, 'result files');
        const bytes = await ctx.scenarios.resultFile(scenario.scenarioId, file);
        if (!bytes)
          throw new ApiError('INTERNAL_ERROR', `The ${file} file of ${scenario.scenarioId} is missing.`);
        return sendFile(reply, bytes, `${scenario.scenarioId}-${file}.json.zst`);
      },
    );
  }

  api.get(
    '/v1/strategies/:strategy_id/scenarios/:scenario_id/metrics',
    {
      config,
      onRequest: loadScenario,
      schema: {
        tags,
        operationId: 'getScenarioMetrics',
        summary: 'Get the metrics of a completed scenario',
        description:
          'The metrics of the spec (docs/results.md), computed from the result files: money as decimal strings, percentages and ratios as numbers, an omitted metric with its `...Reason`. A scenario that is not COMPLETE is 400.',
        security: security.key,
        params: scenarioParams,
        response: {
          200: envelope(z.record(z.string(), z.unknown()).meta({ id: 'Metrics' })),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const scenario = scenarioOf(request);
      ScenarioRepository.assertComplete(scenario, 'metrics');
      return { data: (await ctx.scenarios.metrics(scenario.scenarioId)) as Record<string, unknown> };
    },
  );

  api.get(
    '/v1/strategies/:strategy_id/scenarios/:scenario_id/logs',
    {
      config,
      onRequest: loadScenario,
      schema: {
        tags,
        operationId: 'getScenarioLogs',
        summary: "Download the strategy's output",
        description:
          'What the strategy wrote to `stream` (stdout, the default, or stderr), stored when the run ends, in any terminal state: the first and the last 512 KiB, with a marker line where the middle was dropped. Header `x-hindsight-output-bytes` is the total the strategy wrote. Empty (200) until the run has ended.',
        security: security.key,
        params: scenarioParams,
        querystring: z.object({ stream: z.enum(['stdout', 'stderr']).default('stdout') }),
        response: {
          200: {
            description: 'The output as UTF-8 text.',
            content: { 'text/plain': { schema: z.string() } },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const log = await ctx.scenarios.log(scenarioOf(request).scenarioId, request.query.stream);
      return reply
        .type('text/plain; charset=utf-8')
        .header('x-hindsight-output-bytes', String(log?.totalBytes ?? 0))
        .send(log?.content.toString('utf8') ?? '');
    },
  );

  api.post(
    '/v1/scenarios/compare',
    {
      config,
      schema: {
        tags,
        operationId: 'compareScenarios',
        summary: 'Compare completed scenarios',
        description: `1 to ${MAX_COMPARE} distinct COMPLETE scenarios of your account (any strategies): their metrics side by side, in the order given, and their equity curves on one time axis. 400 for an empty list, more than ${MAX_COMPARE}, duplicates or a scenario that is not COMPLETE; 404 when any is missing; 403 when any is another account's.`,
        security: security.key,
        body: compareBody,
        response: { 200: envelope(comparison), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const found = await ctx.scenarios.getMany(ownerOf(request), request.body.scenarioIds);
      for (const scenario of found) ScenarioRepository.assertComplete(scenario, 'comparisons');
      await ensureZstd();
      const curves = [];
      for (const scenario of found) {
        const bytes = await ctx.scenarios.resultFile(scenario.scenarioId, 'timeseries');
        const file = JSON.parse(Buffer.from(zstdDecompress(bytes ?? Buffer.alloc(0))).toString('utf8')) as {
          timestamps: number[];
          nav: string[];
        };
        curves.push({
          id: scenario.scenarioId,
          initialCapital: String(scenario.initialCapital),
          timestamps: file.timestamps,
          nav: file.nav,
        });
      }
      const metrics = await Promise.all(found.map((s) => ctx.scenarios.metrics(s.scenarioId)));
      return {
        data: {
          scenarios: found.map((s, index) => ({
            scenarioId: s.scenarioId,
            strategyId: s.strategyId,
            strategyVersionId: s.strategyVersionId,
            ...(s.label !== undefined && { label: s.label }),
            startTime: s.startTime,
            endTime: s.endTime,
            initialCapital: s.initialCapital,
            metrics: metrics[index] as Record<string, unknown>,
          })),
          equity: alignCurves(curves),
        },
      };
    },
  );
}

/** Creates in order until the quota refuses; answers the created ones (403 if none could be). */
async function createUntilQuota(
  creation: ScenarioCreation,
  owner: string,
  strategyId: string,
  plans: PlannedScenario[],
): Promise<Scenario[]> {
  const created: Scenario[] = [];
  for (const plan of plans) {
    try {
      created.push(await creation.create(owner, strategyId, plan));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'QUOTA_EXCEEDED' && created.length > 0) break;
      throw error;
    }
  }
  return created;
}

function sendFile(reply: FastifyReply, bytes: Buffer, name: string) {
  return reply
    .type('application/octet-stream')
    .header('content-disposition', `attachment; filename="${name}"`)
    .send(bytes);
}
