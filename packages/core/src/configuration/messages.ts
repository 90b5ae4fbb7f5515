import { z } from 'zod';

/**
 * Wording shared by every configuration rule, so that a client sees one consistent style:
 * "<path>: must be <what>, got <what was sent>". Messages live in the schemas themselves (through zod
 * error functions) rather than in a formatter, so that any code path that parses with the schemas —
 * including the HTTP type provider — produces the same text.
 */

/** A short, safe rendering of any input value: never throws, whatever it is given. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    case 'number':
      return Number.isFinite(value) ? `the number ${value}` : `the number ${String(value)}`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** Decision 20: `null` is never a value; the client must leave the field out instead. */
export const NULL_MESSAGE = 'must not be null (omit the field instead of sending null)';

/** Message for a value of the wrong type, a `null`, or a missing required field. */
export function typeMessage(expected: string, input: unknown): string {
  if (input === null) return `${NULL_MESSAGE}; expected ${expected}`;
  if (input === undefined) return `is required: ${expected}`;
  return `must be ${expected}, got ${describeValue(input)}`;
}

/** Zod error-option for a schema whose only failure worth explaining is the value's type. */
export const expecting =
  (expected: string) =>
  (issue: { input?: unknown }): string =>
    typeMessage(expected, issue.input);

/** Wording for a failed value constraint: "must be <rule>, got <value>". */
export const mustBe = (rule: string, input: unknown): string =>
  `must be ${rule}, got ${describeValue(input)}`;

/** Message for keys a strict object does not know; `hint` explains a key that belongs elsewhere. */
export function unknownKeysMessage(
  keys: readonly string[],
  hint?: (key: string) => string | undefined,
): string {
  const quoted = keys.map((key) => JSON.stringify(key)).join(', ');
  const base = keys.length === 1 ? `unknown key ${quoted}` : `unknown keys ${quoted}`;
  const hints = keys.map((key) => hint?.(key)).filter((text): text is string => text !== undefined);
  return hints.length > 0
    ? `${base} (${hints.join('; ')})`
    : `${base}; remove ${keys.length === 1 ? 'it' : 'them'}`;
}

/**
 * `z.strictObject` whose type and unknown-key failures carry readable messages (decision 20: unknown
 * keys are rejected at every level). `what` names the object, e.g. "a subscription object"; `root` marks a whole request body.
 */
export function strictObject<Shape extends z.ZodRawShape>(
  shape: Shape,
  what: string,
  hint?: (key: string) => string | undefined,
  root = false,
) {
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownKeysMessage(issue.keys, hint);
      // A request body is never "omitted", so the null advice of typeMessage does not fit it.
      return root ? mustBe(what, issue.input) : typeMessage(what, issue.input);
    },
  });
}
