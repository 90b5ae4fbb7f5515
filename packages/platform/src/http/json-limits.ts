import { z } from 'zod';

/**
 * How deep and how large the JSON a request sends may be (docs/management-api.md, "Limits of request
 * JSON"). Depth: every field of a body may nest objects and arrays at most 32 levels (`{}` is one
 * level), the limit DynamoDB puts on stored documents; the JSON body parser enforces it on every body
 * (json-body.ts), so nothing recursive downstream (validation, `JSON.stringify`, jsonb) ever meets more.
 * Size: each JSON field that is stored whole has a byte budget, checked before its schema runs, so a
 * refused value is never validated piecemeal, serialised or written.
 */
export const MAX_JSON_DEPTH = 32;

/** Byte budgets (UTF-8 of the field's JSON) of the free-form or open-ended JSON fields the API stores. */
export const STORED_JSON_BYTES = {
  /** Version metadata: a free-form object of the caller's (decision 34). */
  metadata: 16 * 1024,
  /** Configuration costs: three small tagged objects of decimal strings. */
  costs: 4 * 1024,
  /** Configuration subscriptions: 50 x 100 event patterns with room to spare. */
  subscriptions: 256 * 1024,
  /** A batch's env grid, expanded into at most 100 stored env maps. */
  envGrid: 256 * 1024,
} as const;

export type StoredJsonField = keyof typeof STORED_JSON_BYTES;

/** The limits in one sentence, for the OpenAPI document. */
export const JSON_LIMITS_SUMMARY =
  `Every field of a body nests at most ${MAX_JSON_DEPTH} levels; stored JSON fields have byte limits as JSON (${Object.entries(
    STORED_JSON_BYTES,
  )
    .map(([field, bytes]) => `\`${field}\` ${bytes / 1024} KiB`)
    .join(', ')}); no string of a body and no query parameter may hold NUL (U+0000) or an unpaired ` +
  'surrogate. A request over a limit is a 400 `BAD_REQUEST` naming the field and the limit, and changes nothing.';

const tooDeepMessage = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Whether `value` nests objects/arrays more than `limit` levels deep. Iterative: any depth is safe. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = (depths.pop() as number) + 1;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth);
      }
    }
  }
  return false;
}

/**
 * The nesting rule applied to a whole body: one issue per top-level field (or array element) nested
 * deeper than MAX_JSON_DEPTH, named by its key, e.g. `metadata: nested deeper than 32 levels`.
 */
export function nestingIssues(body: unknown): { path: PropertyKey[]; message: string }[] {
  if (typeof body !== 'object' || body === null) return [];
  const issues: { path: PropertyKey[]; message: string }[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
      issues.push({ path: [Array.isArray(body) ? Number(key) : key], message: tooDeepMessage });
    }
  }
  return issues;
}

/**
 * `schema` behind the byte limits of the named stored fields: an over-limit field is refused naming it
 * and the limit (`metadata: is 20000 bytes as JSON; at most 16384 bytes are allowed`), and the schema
 * itself is not run. Their depth needs no check here: the body parser refused any body nested deeper
 * than MAX_JSON_DEPTH (json-body.ts), so `JSON.stringify` is safe. The OpenAPI document still shows
 * `schema` (zod publishes the output side of a preprocess).
 */
export function withStoredJsonLimits<T extends z.ZodType>(schema: T, fields: readonly StoredJsonField[]) {
  return z.preprocess((input, ctx) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    for (const field of fields) {
      if (!Object.hasOwn(input, field)) continue;
      const value = (input as Record<string, unknown>)[field];
      const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
      const limit = STORED_JSON_BYTES[field];
      if (bytes > limit) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `is ${bytes} bytes as JSON; at most ${limit} bytes are allowed`,
          input: value,
        });
      }
    }
    return input;
  }, schema);
}
