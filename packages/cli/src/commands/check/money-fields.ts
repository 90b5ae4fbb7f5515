/**
 * Finds money sent as JSON numbers in a request body (trading-gateway.md, Resources and their
 * fields: "Prices, quantities, balances and P&L are JSON strings holding decimals"). The raw text is
 * what is judged, before anything parses it: `0.1` and `"0.1"` parse to different types, but the
 * evidence shown is the text the strategy sent, cut around the offending field.
 */

/** Every decimal-string field a request body can carry (orders, modifications, positions). */
export const DECIMAL_FIELDS: ReadonlySet<string> = new Set([
  'quantity',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'display_quantity',
  'leverage',
  'trailing_distance',
]);

export interface MoneyAsNumber {
  /** The fields sent as numbers, in the order found. */
  fields: string[];
  /** The raw body around the first of them. */
  excerpt: string;
}

/** The decimal fields of `rawBody` written as JSON numbers, at any depth; undefined when none. */
export function moneyAsNumbers(rawBody: string): MoneyAsNumber | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return undefined; // not JSON: the gateway answers 400 INVALID_REQUEST, no money to judge
  }
  const fields: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (DECIMAL_FIELDS.has(key) && typeof inner === 'number') fields.push(key);
        else walk(inner);
      }
    }
  };
  walk(parsed);
  if (fields.length === 0) return undefined;
  return { fields, excerpt: excerptAround(rawBody, fields[0] as string) };
}

/** Up to 60 characters either side of `"field":` in the raw text. */
export function excerptAround(raw: string, field: string): string {
  const at = raw.search(new RegExp(`"${field}"\\s*:`));
  if (at < 0) return raw.slice(0, 120);
  const from = Math.max(0, at - 60);
  const to = Math.min(raw.length, at + field.length + 60);
  return `${from > 0 ? '...' : ''}${raw.slice(from, to)}${to < raw.length ? '...' : ''}`;
}
