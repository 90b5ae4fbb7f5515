import { z } from 'zod';
import { costsSchema } from './costs.ts';
import { envIssues } from './env.ts';
import { eventPatternRegex, parseEventPattern } from './events.ts';
import { describeValue, expecting, mustBe, strictObject } from './messages.ts';
import { compareInstants, ISO_TIMESTAMP_FORMAT, isoTimestampPattern, parseIsoInstant } from './timestamps.ts';

export const MAX_SUBSCRIPTIONS = 50;
export const MAX_EVENTS_PER_SUBSCRIPTION = 100;
export const MIN_INITIAL_CAPITAL = 1;
export const MAX_INITIAL_CAPITAL = 100_000_000;
export const DEFAULT_INITIAL_CAPITAL = 100_000;
export const POSITION_MODES = ['netting', 'hedging'] as const;
export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;

/**
 * ids.ts's uuidPattern spelled without the `i` flag, because a JSON Schema `pattern` cannot carry
 * flags and the published document must accept the same ids the server does.
 */
const UUID_ANY_CASE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const eventPatternSchema = z
  .string({ error: expecting('an event pattern string such as "candle_1m"') })
  .regex(eventPatternRegex, {
    error: (issue) => {
      const parsed = typeof issue.input === 'string' ? parseEventPattern(issue.input) : undefined;
      return parsed && !parsed.ok ? parsed.reason : mustBe('a valid event pattern', issue.input);
    },
  })
  .meta({
    description:
      'An event pattern: candle_<tf>, candle_*, candle_*m, candle_*h, candle_{a,b}m or an update event.',
  });

/** An empty list is left to the count rule, so that it gets one issue, not two. */
const hasCandle = (patterns: readonly string[]): boolean =>
  patterns.length === 0 ||
  patterns.some((pattern) => {
    const parsed = parseEventPattern(pattern);
    return parsed.ok && parsed.timeframes.length > 0;
  });

const countMessage = (what: string, min: number, max: number) => (issue: { input?: unknown }) =>
  `must hold ${min} to ${max} ${what}, got ${Array.isArray(issue.input) ? issue.input.length : describeValue(issue.input)}`;

const eventsSchema = z
  .array(eventPatternSchema, {
    error: expecting(`an array of 1 to ${MAX_EVENTS_PER_SUBSCRIPTION} event patterns`),
  })
  .min(1, { error: countMessage('event patterns', 1, MAX_EVENTS_PER_SUBSCRIPTION) })
  .max(MAX_EVENTS_PER_SUBSCRIPTION, { error: countMessage('event patterns', 1, MAX_EVENTS_PER_SUBSCRIPTION) })
  .refine(hasCandle, {
    error:
      'must include at least one candle timeframe (for example "candle_1m"); update events alone replay nothing',
  })
  .meta({
    description: `1 to ${MAX_EVENTS_PER_SUBSCRIPTION} event patterns, at least one of them a candle timeframe. Expansions are deduplicated.`,
    examples: [['candle_{1,5}m', 'order_update']],
  });

export const subscriptionSchema = strictObject(
  {
    instrument: z
      .string({ error: expecting('a platform symbol string such as "C:BTCUSD"') })
      .min(1, { error: 'must be a platform symbol such as "C:BTCUSD", not an empty string' })
      .meta({
        description: 'Exact platform symbol from GET /v1/instruments (not the dataSymbol).',
        examples: ['C:BTCUSD'],
      }),
    events: eventsSchema,
  },
  'a subscription object {instrument, events}',
);

/** Decision 21: an instrument appears once; the second occurrence is the one reported. */
function checkDuplicateInstruments(
  subscriptions: readonly { instrument: string }[],
  ctx: z.RefinementCtx<readonly { instrument: string }[]>,
): void {
  const firstIndex = new Map<string, number>();
  subscriptions.forEach(({ instrument }, index) => {
    const first = firstIndex.get(instrument);
    if (first === undefined) {
      firstIndex.set(instrument, index);
      return;
    }
    ctx.addIssue({
      code: 'custom',
      path: [index, 'instrument'],
      message: `${JSON.stringify(instrument)} is already subscribed in subscriptions[${first}]; an instrument may appear once per configuration (merge the events into one subscription)`,
    });
  });
}

const subscriptionsSchema = z
  .array(subscriptionSchema, {
    error: expecting(`an array of 1 to ${MAX_SUBSCRIPTIONS} subscription objects`),
  })
  .min(1, { error: countMessage('subscriptions', 1, MAX_SUBSCRIPTIONS) })
  .max(MAX_SUBSCRIPTIONS, { error: countMessage('subscriptions', 1, MAX_SUBSCRIPTIONS) })
  .superRefine(checkDuplicateInstruments)
  .meta({ description: `1 to ${MAX_SUBSCRIPTIONS} subscriptions, each instrument at most once.` });

const timestampSchema = (description: string, example: string) =>
  z
    .string({ error: expecting(`a timestamp ${ISO_TIMESTAMP_FORMAT}`) })
    .regex(isoTimestampPattern, {
      abort: true,
      error: (issue) =>
        mustBe(`a timestamp ${ISO_TIMESTAMP_FORMAT}, e.g. "2024-01-01T00:00:00Z"`, issue.input),
    })
    .refine((value) => parseIsoInstant(value) !== undefined, {
      error: (issue) =>
        `${describeValue(issue.input)} is not a real date and time (check the day of the month, hours 00-23, minutes and seconds 00-59, offset up to 23:59)`,
    })
    .meta({ description, examples: [example] });

const positionModeSchema = z
  .enum(POSITION_MODES, { error: expecting('"netting" or "hedging"') })
  .default('netting')
  .meta({
    description:
      'netting (default): every fill on a symbol collapses into one position; hedging: separate positions.',
  });

const capitalRule = `a number from ${MIN_INITIAL_CAPITAL} to ${MAX_INITIAL_CAPITAL}`;
const initialCapitalSchema = z
  .number({ error: expecting(capitalRule) })
  .min(MIN_INITIAL_CAPITAL, { error: (issue) => mustBe(capitalRule, issue.input) })
  .max(MAX_INITIAL_CAPITAL, { error: (issue) => mustBe(capitalRule, issue.input) })
  .default(DEFAULT_INITIAL_CAPITAL)
  .meta({
    description: `Starting capital in USD, ${MIN_INITIAL_CAPITAL} to ${MAX_INITIAL_CAPITAL}. Default ${DEFAULT_INITIAL_CAPITAL}.`,
  });

const envSchema = z
  .record(z.string(), z.string({ error: expecting('a string value') }), {
    error: expecting('an object mapping variable names to string values'),
  })
  .superRefine((env, ctx) => {
    for (const issue of envIssues(env, []))
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .meta({
    description:
      'Environment variables for the strategy (stored in plain text: no secrets). Keys match [A-Za-z_][A-Za-z0-9_]*, ' +
      'not PLATFORM_*, PROXY_WS_URL, PROXY_REST_URL or TRADING_GATEWAY_URL; at most 100 keys, 4096 bytes per value, ' +
      '65536 bytes in total; no control characters; "<redacted>" is refused.',
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    maxProperties: 100,
  });

/** The fields both schemas share, in the order their errors are reported. */
export const configurationFieldsShape = {
  subscriptions: subscriptionsSchema,
  startTime: timestampSchema(
    'Inclusive start of the replay window, any time of day.',
    '2024-01-01T00:00:00Z',
  ),
  endTime: timestampSchema(
    'Exclusive end of the replay window; must be after startTime.',
    '2024-02-01T00:00:00Z',
  ),
  positionMode: positionModeSchema,
  initialCapital: initialCapitalSchema,
  env: envSchema.optional(),
  costs: costsSchema.optional(),
};

/** `endTime` after `startTime`, compared exactly (sub-millisecond digits included). */
function checkWindow(value: { startTime: string; endTime: string }, ctx: z.RefinementCtx<unknown>): void {
  // Zod may still run this after continuable issues elsewhere; a bad timestamp has its own issue.
  if (typeof value.startTime !== 'string' || typeof value.endTime !== 'string') return;
  const start = parseIsoInstant(value.startTime);
  const end = parseIsoInstant(value.endTime);
  if (start === undefined || end === undefined || compareInstants(end, start) > 0) return;
  ctx.addIssue({
    code: 'custom',
    path: ['endTime'],
    message: `must be after startTime (${value.startTime}); the window is [startTime, endTime), got ${JSON.stringify(value.endTime)}`,
  });
}

export const configurationFieldsSchema = strictObject(
  configurationFieldsShape,
  'a JSON object',
  undefined,
  true,
).superRefine(checkWindow);

const savedOnlyHint = (key: string): string | undefined =>
  key === 'name' || key === 'description' || key === 'isActive'
    ? `${key} belongs to saved configurations; scenario creation does not take it`
    : undefined;

const inlineOnlyHint = (key: string): string | undefined =>
  key === 'strategyVersionId'
    ? 'a saved configuration does not pin a version; pass strategyVersionId when creating a scenario'
    : undefined;

export const inlineConfigurationSchema = strictObject(
  {
    strategyVersionId: z
      .string({ error: expecting('a strategy version id (UUID)') })
      .regex(UUID_ANY_CASE, {
        error: (issue) => mustBe('a UUID such as "00000000-0000-4000-8000-000000000001"', issue.input),
      })
      .meta({ description: 'The strategy version to run.', format: 'uuid' }),
    ...configurationFieldsShape,
  },
  'a JSON object',
  savedOnlyHint,
  true,
)
  .superRefine(checkWindow)
  .meta({
    description:
      'Inline scenario configuration (POST .../scenarios). Unknown keys and null values are rejected.',
  });

export const savedConfigurationSchema = strictObject(
  {
    name: z
      .string({ error: expecting(`a name (1 to ${MAX_NAME_LENGTH} characters, not only spaces)`) })
      .max(MAX_NAME_LENGTH, {
        error: (issue) =>
          `must be at most ${MAX_NAME_LENGTH} characters, got ${typeof issue.input === 'string' ? issue.input.length : describeValue(issue.input)}`,
      })
      .refine((name) => name.trim().length > 0, { error: 'must not be empty or only whitespace' })
      .meta({ description: `Display name, 1 to ${MAX_NAME_LENGTH} characters, not only whitespace.` }),
    description: z
      .string({ error: expecting(`a string of at most ${MAX_DESCRIPTION_LENGTH} characters`) })
      .max(MAX_DESCRIPTION_LENGTH, {
        error: (issue) =>
          `must be at most ${MAX_DESCRIPTION_LENGTH} characters, got ${typeof issue.input === 'string' ? issue.input.length : describeValue(issue.input)}`,
      })
      .optional()
      .meta({ description: `Free text, at most ${MAX_DESCRIPTION_LENGTH} characters.` }),
    isActive: z
      .boolean({ error: expecting('true or false') })
      .default(true)
      .meta({ description: 'Whether the configuration is active (listed with activeOnly). Default true.' }),
    ...configurationFieldsShape,
  },
  'a JSON object',
  inlineOnlyHint,
  true,
)
  .superRefine(checkWindow)
  .meta({
    description:
      'Saved scenario configuration (/v1/configurations). Unknown keys and null values are rejected.',
  });

/** What a client sends (defaults may be omitted). */
export type InlineConfigurationInput = z.input<typeof inlineConfigurationSchema>;
export type SavedConfigurationInput = z.input<typeof savedConfigurationSchema>;
/** A validated configuration, with `positionMode`, `initialCapital` (and `isActive`) defaulted. */
export type InlineConfiguration = z.output<typeof inlineConfigurationSchema>;
export type SavedConfiguration = z.output<typeof savedConfigurationSchema>;
export type Subscription = z.output<typeof subscriptionSchema>;
