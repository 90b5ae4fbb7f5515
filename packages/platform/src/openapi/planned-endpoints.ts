/**
 * Endpoints of the spec that later work delivers (scenarios, results, compare). openapi.json documents
 * them now so clients can be written against the whole `/v1`, each marked `x-hindsight-availability: planned` and listed under the "Planned" tag until it is served.
 */
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface PlannedOperation {
  operationId: string;
  method: Method;
  path: string;
  summary: string;
  description?: string;
  statuses: number[];
  requestBody?: Record<string, unknown>;
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  success?: { status: number; description: string; content?: Record<string, unknown> };
}

const errorRef = { $ref: '#/components/schemas/Error' };
const statusText: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid credentials',
  403: 'Another account, or quota exceeded (QUOTA_EXCEEDED)',
  404: 'Not found',
  409: 'State conflict',
  410: 'Image evicted (IMAGE_EVICTED)',
};

const zstdFile = {
  'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/zstd' } },
};

const jsonBody = (description: string) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', description } } },
});

const scenarioListQuery = [
  {
    name: 'limit',
    description: 'Page size, 1 to 100 (default 20).',
    schema: { type: 'integer', minimum: 1, maximum: 100 },
  },
  { name: 'cursor', description: '`nextCursor` of the previous page.', schema: { type: 'string' } },
  {
    name: 'state',
    description: 'Filter by state.',
    schema: { type: 'string', enum: ['QUEUED', 'PENDING', 'RUNNING', 'COMPLETE', 'FAILED', 'CANCELLED'] },
  },
  {
    name: 'strategyVersionId',
    description: 'Filter by version.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'isCompleted',
    description: '`true` or `false`.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  { name: 'createdAfter', description: 'RFC 3339.', schema: { type: 'string', format: 'date-time' } },
  { name: 'createdBefore', description: 'RFC 3339.', schema: { type: 'string', format: 'date-time' } },
  { name: 'instruments', description: 'Comma-separated platform symbols.', schema: { type: 'string' } },
];

const scenarios = '/v1/strategies/{strategy_id}/scenarios';

export const plannedOperations: PlannedOperation[] = [
  {
    operationId: 'getScenario',
    method: 'get',
    path: '/v1/scenarios/{scenario_id}',
    summary: 'Get a scenario',
    statuses: [400, 401, 403, 404],
  },
  {
    operationId: 'listScenarios',
    method: 'get',
    path: scenarios,
    summary: 'List scenarios',
    statuses: [400, 401, 403, 404],
    query: scenarioListQuery,
  },
  {
    operationId: 'createScenario',
    method: 'post',
    path: scenarios,
    summary: 'Create a scenario',
    description: 'Body: the inline configuration (`InlineConfiguration`). The scenario starts QUEUED.',
    statuses: [400, 401, 403, 404, 409, 410],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/InlineConfiguration' } } },
    },
    success: { status: 201, description: 'Created scenario (QUEUED).' },
  },
  {
    operationId: 'createScenarioBatch',
    method: 'post',
    path: `${scenarios}/batch`,
    summary: 'Create several scenarios',
    description: 'The response adds `requested` and `dropped` counts beside `data`.',
    statuses: [400, 401, 403, 404],
    requestBody: jsonBody('Inline configurations and/or a base configuration with an env grid.'),
    success: { status: 201, description: 'Created scenarios plus requested and dropped.' },
  },
  {
    operationId: 'createScenariosFromConfigs',
    method: 'post',
    path: `${scenarios}/from-configs`,
    summary: 'Create one scenario per saved configuration',
    statuses: [400, 401, 403, 404],
    requestBody: jsonBody('A strategy version id and saved configuration ids.'),
    success: { status: 201, description: 'One labelled result per requested configuration, in order.' },
  },
  {
    operationId: 'getStrategyScenario',
    method: 'get',
    path: `${scenarios}/{scenario_id}`,
    summary: 'Get a scenario',
    statuses: [400, 401, 403, 404],
  },
  {
    operationId: 'deleteScenario',
    method: 'delete',
    path: `${scenarios}/{scenario_id}`,
    summary: 'Delete a scenario',
    statuses: [400, 401, 403, 404],
    success: { status: 204, description: 'Deleted.' },
  },
  {
    operationId: 'cancelScenario',
    method: 'post',
    path: `${scenarios}/{scenario_id}/cancel`,
    summary: 'Cancel a scenario',
    statuses: [400, 401, 403, 404],
  },
  ...(['metadata', 'trades', 'timeseries'] as const).map(
    (file): PlannedOperation => ({
      operationId: `download${file[0]?.toUpperCase()}${file.slice(1)}`,
      method: 'get',
      path: `${scenarios}/{scenario_id}/${file}`,
      summary: `Download the ${file} file (zstd)`,
      statuses: [400, 401, 403, 404],
      success: { status: 200, description: 'zstd-compressed JSON.', content: zstdFile },
    }),
  ),
  {
    operationId: 'getScenarioMetrics',
    method: 'get',
    path: `${scenarios}/{scenario_id}/metrics`,
    summary: 'Get the metrics of a completed scenario',
    statuses: [400, 401, 403, 404],
  },
  {
    operationId: 'compareScenarios',
    method: 'post',
    path: '/v1/scenarios/compare',
    summary: 'Compare completed scenarios',
    statuses: [400, 401, 403, 404],
    requestBody: jsonBody('{scenarioIds: 1..20 distinct completed scenario ids}'),
  },
];

const pathParameters = (path: string) =>
  [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));

function operationObject(op: PlannedOperation): Record<string, unknown> {
  const success = op.success ?? { status: 200, description: 'Success.' };
  const responses: Record<string, unknown> = {
    [success.status]: {
      description: success.description,
      ...(success.content && { content: success.content }),
    },
  };
  for (const status of op.statuses) {
    responses[status] = {
      description: statusText[status],
      content: { 'application/json': { schema: errorRef } },
    };
  }
  return {
    tags: ['Planned'],
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description ? `${op.description} ` : ''}Planned: documented by the spec, not yet served by this build.`,
    'x-hindsight-availability': 'planned',
    security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
    parameters: [
      ...pathParameters(op.path),
      ...(op.query ?? []).map((q) => ({
        name: q.name,
        in: 'query',
        description: q.description,
        schema: q.schema,
      })),
    ],
    ...(op.requestBody && { requestBody: op.requestBody }),
    responses,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is an open-ended JSON object.
export function addPlannedEndpoints<T extends { paths?: any }>(document: T): T {
  const paths = { ...(document.paths ?? {}) };
  for (const op of plannedOperations) {
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: operationObject(op) };
  }
  return { ...document, paths };
}
