import { DEC_ZERO, type Dec, isDecimalString, toDecimalString } from '@hindsight/core';
import { isOneOf } from '@hindsight/engine';
import { requestDecimal } from './request-decimals.ts';

/**
 * The parts every request-body parser shares (trading-gateway.md, Errors): the three kinds of 400 a
 * body gets, a reader of one field at a time, and the strictness rule (decision 38). The first failing
 * stage answers:
 * 1. shape: the body is a JSON object, names no field its schema lacks, and holds every required field
 *    -> `INVALID_REQUEST` (an unknown field is named in `details.field`);
 * 2. each field alone, in the spec's table order -> `INVALID_VALUE` with `details.field` and
 *    `details.provided` (the value exactly as sent);
 * 3. fields together -> `VALIDATION_ERROR` with `details.errors`, every contradiction found.
 * A field sent as `null` counts as omitted.
 */

/** One entry of a VALIDATION_ERROR report. */
export interface ValidationIssue {
  field: string;
  message: string;
}

export type WireErrorCode = 'INVALID_REQUEST' | 'INVALID_VALUE' | 'VALIDATION_ERROR';

/** A 400 ApiError (the gateway throws it as a `GatewayError`). */
export interface WireError {
  ok: false;
  code: WireErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/** A parsed body, or why it is not one. */
export type Parsed<T> = { ok: true; value: T } | WireError;

/** Longest accepted `client_order_id`, `oco_group_id` and `position_id`. */
export const MAX_ID_LENGTH = 128;

export type Body = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

export const invalidRequest = (message: string, details: Record<string, unknown>): WireError => ({
  ok: false,
  code: 'INVALID_REQUEST',
  message,
  details,
});

export const invalidValue = (
  field: string,
  provided: unknown,
  message: string,
  extra: Record<string, unknown> = {},
): WireError => ({
  ok: false,
  code: 'INVALID_VALUE',
  message,
  details: { field, provided, ...extra },
});

export const validationError = (errors: readonly ValidationIssue[]): WireError => ({
  ok: false,
  code: 'VALIDATION_ERROR',
  message: errors.map((e) => e.message).join('; '),
  details: { errors },
});

export const isError = (value: unknown): value is WireError =>
  isPlainObject(value) && value.ok === false && typeof value.code === 'string';

/** A field's value, `undefined` when omitted or `null`. */
export const read = (body: Body, field: string): unknown => (body[field] === null ? undefined : body[field]);

/**
 * Decision 38: request bodies are strict. The first own field of `names` that `fields` (the body's
 * schema, `http/schemas.ts`) does not list, as an INVALID_REQUEST naming it; a near miss of a known
 * field is suggested ("stop_los": did you mean stop_loss?).
 */
export function unknownField(
  names: readonly string[],
  fields: ReadonlySet<string>,
  what: string,
): WireError | undefined {
  for (const name of names) {
    if (fields.has(name)) continue;
    const near = nearestField(name, fields);
    const hint = near === undefined ? '' : ` Did you mean ${near}?`;
    return invalidRequest(
      `${what} has no field ${JSON.stringify(name)}.${hint} Its fields: ${[...fields].join(', ')}.`,
      near === undefined ? { field: name } : { field: name, suggestion: near },
    );
  }
  return undefined;
}

/** The known field within two edits of `name` (a typo), if exactly one is nearest. */
function nearestField(name: string, fields: ReadonlySet<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const field of fields) {
    const distance = editDistance(name.toLowerCase(), field);
    if (distance < bestDistance) {
      best = field;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance (short field names only). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** Field-by-field checks; each returns the parsed value or an INVALID_VALUE error. */
export class FieldReader {
  constructor(
    private readonly body: Body,
    private readonly tickSize: Dec | undefined,
  ) {}

  /** A reader checking prices against `tickSize` (a text: its decimal is shared from request to request). */
  static of(body: Body, tickSize: string | undefined): FieldReader {
    return new FieldReader(body, tickSize === undefined ? undefined : requestDecimal(tickSize));
  }

  enumValue<T extends string>(field: string, values: readonly T[]): T | undefined | WireError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (!isOneOf(values, value)) {
      return invalidValue(field, value, `${field} must be one of ${values.join(', ')}.`, { allowed: values });
    }
    return value;
  }

  boolean(field: string): boolean | undefined | WireError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return invalidValue(field, value, `${field} must be true or false.`);
    return value;
  }

  id(field: string): string | undefined | WireError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ID_LENGTH) {
      return invalidValue(
        field,
        value,
        `${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters.`,
      );
    }
    return value;
  }

  /** A decimal string (decision 23) greater than 0, on the tick size when `onTick`. */
  positive(field: string, onTick = false): Dec | undefined | WireError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isDecimalString(value)) {
      return invalidValue(
        field,
        value,
        `${field} must be a decimal string such as "1.5" (not a JSON number).`,
      );
    }
    const parsed = requestDecimal(value);
    if (!parsed.gt(DEC_ZERO)) return invalidValue(field, value, `${field} must be greater than 0.`);
    if (onTick && this.tickSize && !parsed.mod(this.tickSize).isZero()) {
      const tick = toDecimalString(this.tickSize);
      return invalidValue(field, value, `${field} must be a multiple of the tick size ${tick}.`, {
        tick_size: tick,
      });
    }
    return parsed;
  }
}
