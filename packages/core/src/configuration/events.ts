import {
  HOUR_TIMEFRAMES,
  isTimeframe,
  MINUTE_TIMEFRAMES,
  TIMEFRAMES,
  type Timeframe,
} from '../timeframes.ts';

/** The non-candle events a subscription may name (spec: Valid events). */
export const UPDATE_EVENTS = ['order_update', 'position_update', 'account_update', 'trade_update'] as const;
export type UpdateEvent = (typeof UPDATE_EVENTS)[number];

/** Every event kind a configuration can subscribe to; `candle` stands for the twelve `candle_<tf>`. */
export const EVENT_KINDS = ['candle', ...UPDATE_EVENTS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const CANDLE_PREFIX = 'candle_';
/** Minute timeframes by the number a brace list uses: `{1,5,15}` means 1m, 5m, 15m. */
const MINUTE_NUMBERS = MINUTE_TIMEFRAMES.map((tf) => tf.slice(0, -1));

const isUpdateEvent = (value: string): value is UpdateEvent =>
  (UPDATE_EVENTS as readonly string[]).includes(value);

/**
 * The whole grammar as one regex. It is what the OpenAPI document publishes as the `pattern` of an
 * event, and the test suite checks that it accepts exactly what `parseEventPattern` accepts.
 */
export const eventPatternRegex = new RegExp(
  `^(?:${CANDLE_PREFIX}(?:${[...TIMEFRAMES, '\\*', '\\*m', '\\*h'].join('|')}` +
    `|\\{(?:${MINUTE_NUMBERS.join('|')})(?:,(?:${MINUTE_NUMBERS.join('|')}))*\\}m)` +
    `|${UPDATE_EVENTS.join('|')})$`,
);

export type EventPatternResult =
  | { ok: true; timeframes: Timeframe[]; updates: UpdateEvent[] }
  | { ok: false; reason: string };

const GRAMMAR_HINT =
  'use candle_<timeframe> (1m 2m 5m 10m 15m 30m 1h 2h 4h 12h 1d 1w), candle_*, candle_*m, candle_*h, ' +
  'candle_{a,b,...}m, order_update, position_update, account_update or trade_update';

const invalid = (pattern: string, why: string): EventPatternResult => ({
  ok: false,
  reason: `${JSON.stringify(pattern)} is not a valid event pattern: ${why}`,
});

/** `candle_{a,b,c}m`: the braces list minute numbers, comma-separated, nothing else (decision 22). */
function parseBraceList(pattern: string, body: string): EventPatternResult {
  const inner = /^\{(.*)\}m$/s.exec(body)?.[1];
  if (inner === undefined) {
    return invalid(pattern, 'a brace list is written candle_{a,b,...}m and lists minute timeframes only');
  }
  if (/\s/.test(inner)) return invalid(pattern, 'whitespace is not allowed inside the braces');
  const timeframes: Timeframe[] = [];
  for (const element of inner.split(',')) {
    const tf = `${element}m`;
    if (!MINUTE_NUMBERS.includes(element) || !isTimeframe(tf)) {
      const shown = element === '' ? 'an empty element' : JSON.stringify(element);
      return invalid(
        pattern,
        `${shown} is not a minute timeframe; list some of ${MINUTE_NUMBERS.join(', ')}`,
      );
    }
    timeframes.push(tf);
  }
  return { ok: true, timeframes, updates: [] };
}

/** The timeframes after `candle_`: one of the five shapes, otherwise a literal timeframe. */
function parseCandleBody(pattern: string, body: string): EventPatternResult {
  if (body === '*') return { ok: true, timeframes: [...TIMEFRAMES], updates: [] };
  if (body === '*m') return { ok: true, timeframes: [...MINUTE_TIMEFRAMES], updates: [] };
  if (body === '*h') return { ok: true, timeframes: [...HOUR_TIMEFRAMES], updates: [] };
  if (body.startsWith('{')) return parseBraceList(pattern, body);
  if (isTimeframe(body)) return { ok: true, timeframes: [body], updates: [] };
  if (body === '') return invalid(pattern, `a timeframe must follow "candle_"; ${GRAMMAR_HINT}`);
  return invalid(pattern, `${JSON.stringify(body)} is not a timeframe; ${GRAMMAR_HINT}`);
}

function parseExact(pattern: string): EventPatternResult {
  if (isUpdateEvent(pattern)) return { ok: true, timeframes: [], updates: [pattern] };
  if (pattern.startsWith(CANDLE_PREFIX)) return parseCandleBody(pattern, pattern.slice(CANDLE_PREFIX.length));
  if (pattern === 'tick')
    return invalid(pattern, `tick data is in the catalog but is not subscribable; ${GRAMMAR_HINT}`);
  return invalid(pattern, GRAMMAR_HINT);
}

/** Parses one event pattern without throwing; `reason` says what is wrong and what is accepted. */
export function parseEventPattern(pattern: string): EventPatternResult {
  const result = parseExact(pattern);
  if (result.ok) return result;
  // Patterns are case-sensitive; a near miss in the wrong case deserves the exact fix.
  const lower = pattern.toLowerCase();
  if (lower !== pattern && parseExact(lower).ok) {
    return invalid(pattern, `event patterns are lower-case; write ${JSON.stringify(lower)}`);
  }
  return result;
}

export class EventPatternError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'EventPatternError';
  }
}

function parseOrThrow(pattern: string): { timeframes: Timeframe[]; updates: UpdateEvent[] } {
  const result = parseEventPattern(pattern);
  if (!result.ok) throw new EventPatternError(result.reason);
  return result;
}

/** The concrete events one pattern stands for, candles smallest first. Throws `EventPatternError`. */
export function expandEventPattern(pattern: string): string[] {
  const { timeframes, updates } = parseOrThrow(pattern);
  return [...timeframes.map((tf) => `${CANDLE_PREFIX}${tf}`), ...updates];
}

/**
 * Expands and deduplicates a subscription's patterns. The order is canonical, not the order given:
 * candles in TIMEFRAMES order (smallest first), then update events in UPDATE_EVENTS order, so that
 * two equivalent subscriptions expand identically. Throws `EventPatternError` on an invalid pattern.
 */
export function expandEvents(patterns: readonly string[]): { events: string[]; timeframes: Timeframe[] } {
  const timeframes = new Set<Timeframe>();
  const updates = new Set<UpdateEvent>();
  for (const pattern of patterns) {
    const parsed = parseOrThrow(pattern);
    for (const tf of parsed.timeframes) timeframes.add(tf);
    for (const update of parsed.updates) updates.add(update);
  }
  const orderedTimeframes = TIMEFRAMES.filter((tf) => timeframes.has(tf));
  const orderedUpdates = UPDATE_EVENTS.filter((update) => updates.has(update));
  return {
    events: [...orderedTimeframes.map((tf) => `${CANDLE_PREFIX}${tf}`), ...orderedUpdates],
    timeframes: orderedTimeframes,
  };
}

/** A payload field of an event, as `GET /v1/events` documents it (types name the gateway's resources). */
export interface EventFieldDefinition {
  name: string;
  type: string;
  optional?: boolean;
  description?: string;
  fields?: readonly EventFieldDefinition[];
}

export interface EventDefinition {
  /** What a configuration subscribes with; `candle_<timeframe>` stands for the candle grammar. */
  kind: string;
  /** The WebSocket message `type` the event arrives with. */
  wireType: string;
  description: string;
  /** Values of the message's `event` field, when it has one. */
  eventTypes: readonly string[];
  payload: readonly EventFieldDefinition[];
}

export interface CandlePatternRule {
  pattern: string;
  expandsTo: readonly string[];
  description: string;
}

/** The five shapes of the candle grammar (spec: Candle event pattern grammar). */
export const candlePatternGrammar: readonly CandlePatternRule[] = [
  {
    pattern: 'candle_<tf>',
    expandsTo: TIMEFRAMES.map((tf) => `${CANDLE_PREFIX}${tf}`),
    description: 'That timeframe only; <tf> is one of 1m 2m 5m 10m 15m 30m 1h 2h 4h 12h 1d 1w.',
  },
  { pattern: 'candle_*', expandsTo: expandEventPattern('candle_*'), description: 'All twelve timeframes.' },
  { pattern: 'candle_*m', expandsTo: expandEventPattern('candle_*m'), description: 'The minute timeframes.' },
  { pattern: 'candle_*h', expandsTo: expandEventPattern('candle_*h'), description: 'The hour timeframes.' },
  {
    pattern: 'candle_{a,b,c}m',
    expandsTo: expandEventPattern('candle_{1,5,15}m'),
    description:
      'Exactly the listed minute timeframes (example: candle_{1,5,15}m). Elements are 1, 2, 5, 10, 15 or 30, ' +
      'comma-separated without spaces; one element (candle_{5}m) is allowed.',
  },
];

const decimal = 'decimal string';
const datetime = 'datetime (ISO-8601 UTC)';

/** Envelope fields every event message carries (spec Events; `seq` is decision 19a). */
const envelope = (wireType: string): EventFieldDefinition[] => [
  { name: 'type', type: 'string', description: `Always "${wireType}".` },
  { name: 'seq', type: 'integer', description: 'Monotonic sequence number; acknowledge it as last_seq.' },
  { name: 'timestamp', type: datetime },
];

const barFields: EventFieldDefinition[] = [
  { name: 'symbol', type: 'string' },
  { name: 'provider', type: 'string' },
  { name: 'timeframe', type: 'Timeframe', description: TIMEFRAMES.join(', ') },
  { name: 'timestamp', type: datetime, description: 'Bar start.' },
  { name: 'open', type: decimal },
  { name: 'high', type: decimal },
  { name: 'low', type: decimal },
  { name: 'close', type: decimal },
  { name: 'volume', type: decimal },
];

const nullable = (name: string, type: string, description?: string): EventFieldDefinition =>
  description === undefined
    ? { name, type: `${type} or null` }
    : { name, type: `${type} or null`, description };

const orderFields: EventFieldDefinition[] = [
  { name: 'id', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'side', type: 'Side', description: 'BUY, SELL' },
  { name: 'order_type', type: 'OrderType', description: 'MARKET, LIMIT, STOP, STOP_LIMIT, TRAILING_STOP' },
  { name: 'quantity', type: decimal },
  { name: 'filled_quantity', type: decimal },
  { name: 'remaining_quantity', type: decimal },
  nullable('average_fill_price', decimal, 'Null if unfilled.'),
  {
    name: 'status',
    type: 'OrderStatus',
    description: 'PENDING, PENDING_CANCEL, OPEN, PARTIALLY_FILLED, FILLED, CANCELLED, REJECTED, EXPIRED',
  },
  { name: 'time_in_force', type: 'TimeInForce', description: 'GTC, DAY, IOC, FOK' },
  nullable('limit_price', decimal),
  nullable('stop_price', decimal),
  nullable('stop_loss', decimal),
  nullable('take_profit', decimal),
  nullable('client_order_id', 'string'),
  nullable('correlation_id', 'string'),
  nullable('reject_reason', 'RejectReason', 'Set when status is REJECTED.'),
  nullable('trailing_distance', decimal),
  nullable('trailing_type', 'TrailingType', 'ABSOLUTE, PERCENT'),
  nullable('display_quantity', decimal),
  nullable('oco_group_id', 'string'),
  nullable('position_id', 'string', 'Hedging accounts.'),
  nullable('parent_order_id', 'string', 'The entry order a gateway-placed exit leg exits.'),
  nullable('reduce_only', 'boolean'),
  nullable('post_only', 'boolean'),
  nullable('hidden', 'boolean'),
  { name: 'created_at', type: datetime },
  { name: 'updated_at', type: datetime },
];

const positionFields: EventFieldDefinition[] = [
  { name: 'id', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'side', type: 'PositionSide', description: 'LONG, SHORT' },
  { name: 'quantity', type: decimal },
  { name: 'average_entry_price', type: decimal },
  { name: 'current_price', type: decimal },
  { name: 'unrealized_pnl', type: decimal },
  { name: 'realized_pnl', type: decimal, description: 'From partial closes.' },
  { name: 'opened_at', type: datetime },
  { name: 'updated_at', type: datetime },
  { name: 'leverage', type: decimal, optional: true },
  { name: 'liquidation_price', type: decimal, optional: true },
  { name: 'margin_mode', type: 'MarginMode', optional: true, description: 'CROSS, ISOLATED' },
];

const accountFields: EventFieldDefinition[] = [
  { name: 'balance', type: decimal },
  { name: 'equity', type: decimal },
  { name: 'margin_used', type: decimal },
  { name: 'margin_available', type: decimal },
  { name: 'unrealized_pnl', type: decimal },
  { name: 'currency', type: 'string' },
];

const tradeFields: EventFieldDefinition[] = [
  { name: 'id', type: 'string' },
  { name: 'order_id', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'side', type: 'Side', description: 'BUY, SELL' },
  { name: 'quantity', type: decimal },
  { name: 'price', type: decimal },
  { name: 'commission', type: decimal },
  { name: 'commission_currency', type: 'string' },
  { name: 'is_maker', type: 'boolean', optional: true },
  { name: 'timestamp', type: datetime },
];

const eventField = (type: string, values: readonly string[]): EventFieldDefinition => ({
  name: 'event',
  type,
  description: values.join(', '),
});

const ORDER_EVENT_TYPES = [
  'ORDER_CREATED',
  'ORDER_MODIFIED',
  'ORDER_CANCELLED',
  'ORDER_REJECTED',
  'ORDER_FILLED',
  'ORDER_PARTIALLY_FILLED',
  'ORDER_EXPIRED',
  'BRACKET_ORDER_CREATED',
  'BRACKET_ORDER_MODIFIED',
] as const;
const POSITION_EVENT_TYPES = ['POSITION_OPENED', 'POSITION_MODIFIED', 'POSITION_CLOSED'] as const;
const ACCOUNT_EVENT_TYPES = ['BALANCE_UPDATED', 'MARGIN_WARNING', 'MARGIN_CALL'] as const;
const TRADE_EVENT_TYPES = ['TRADE_FILLED'] as const;

/**
 * The subscribable events with their payloads, as served by `GET /v1/events` (the spec leaves the
 * definition shape open; payload fields follow the trading gateway's Events section).
 */
export const eventDefinitions: readonly EventDefinition[] = [
  {
    kind: 'candle_<timeframe>',
    wireType: 'candle',
    description:
      'A completed bar of one subscribed timeframe. Subscribe with the candle pattern grammar ' +
      '(see candlePatternGrammar); every subscription needs at least one candle timeframe.',
    eventTypes: [],
    payload: [...envelope('candle'), { name: 'bar', type: 'Bar', fields: barFields }],
  },
  {
    kind: 'order_update',
    wireType: 'order',
    description: 'An order was created, modified, cancelled, rejected, filled or expired.',
    eventTypes: ORDER_EVENT_TYPES,
    payload: [
      ...envelope('order'),
      eventField('OrderEventType', ORDER_EVENT_TYPES),
      { name: 'order', type: 'Order', fields: orderFields },
      {
        name: 'parent_order_id',
        type: 'string',
        optional: true,
        description: 'Set only while the gateway tracks the exit leg it placed.',
      },
    ],
  },
  {
    kind: 'position_update',
    wireType: 'position',
    description: 'A position was opened, modified or closed.',
    eventTypes: POSITION_EVENT_TYPES,
    payload: [
      ...envelope('position'),
      eventField('PositionEventType', POSITION_EVENT_TYPES),
      { name: 'position', type: 'Position', fields: positionFields },
    ],
  },
  {
    kind: 'account_update',
    wireType: 'account',
    description: 'The account balance changed, or a margin warning or call was raised.',
    eventTypes: ACCOUNT_EVENT_TYPES,
    payload: [
      ...envelope('account'),
      eventField('AccountEventType', ACCOUNT_EVENT_TYPES),
      { name: 'account', type: 'Account', fields: accountFields },
    ],
  },
  {
    kind: 'trade_update',
    wireType: 'trade',
    description: 'A fill executed.',
    eventTypes: TRADE_EVENT_TYPES,
    payload: [
      ...envelope('trade'),
      eventField('TradeEventType', TRADE_EVENT_TYPES),
      { name: 'trade', type: 'Trade', fields: tradeFields },
    ],
  },
];
