import { z } from 'zod';

/** Shared pieces of every route schema: envelopes, errors, ids and pagination (spec: Response envelope). */
export const errorBody = z
  .object({
    error: z.object({
      code: z
        .string()
        .meta({ description: 'Stable machine-readable code; branch on this, never on message.' }),
      message: z.string(),
      details: z
        .string()
        .optional()
        .meta({ description: 'Serialized report for some codes, e.g. every validation issue.' }),
    }),
  })
  .meta({ id: 'Error' });

export const envelope = <T extends z.ZodType>(data: T) => z.object({ data });

export const collection = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    nextCursor: z
      .string()
      .optional()
      .meta({ description: 'Opaque; pass back as `cursor` for the next page. Omitted on the last page.' }),
  });

export const isoTimestamp = z.string().meta({ description: 'ISO-8601 UTC timestamp.', format: 'date-time' });

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size, 1 to 100.' }),
  cursor: z.string().min(1).optional().meta({ description: '`nextCursor` of the previous page, verbatim.' }),
};

/** `true`/`false` query flags; anything else is a 400 rather than a silent default. */
export const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const errorResponses = (...statuses: (400 | 401 | 403 | 404 | 409 | 410 | 500)[]) =>
  Object.fromEntries(statuses.map((s) => [s, errorBody]));

export const uuidParam = z.string().meta({ description: 'UUID', format: 'uuid' });

type SecurityRequirements = { [scheme: string]: string[] }[];

export const security: Record<'key' | 'session' | 'public', SecurityRequirements> = {
  key: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
  session: [{ SessionAuth: [] }],
  public: [],
};

/** Dates leave the API as ISO-8601 strings. */
export type Wire<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | undefined ? string | undefined : T[K];
};

export function toWire<T extends object>(record: T): Wire<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = v instanceof Date ? v.toISOString() : v;
  return out as Wire<T>;
}
