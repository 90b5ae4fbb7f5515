import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '@hindsight/core';
import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Keyset pagination, newest first, on (created_at, id): a page boundary is a row's own key, so rows
 * inserted meanwhile never shift a page. Cursors are signed and bound to one list, so a forged or
 * foreign cursor is rejected instead of silently returning the wrong rows (decision 28).
 */
export interface PageKey {
  createdAt: Date;
  id: string;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export class CursorCodec {
  constructor(private readonly secret: Uint8Array) {}

  encode(list: string, key: PageKey): string {
    const payload = Buffer.from(JSON.stringify([list, key.createdAt.toISOString(), key.id])).toString(
      'base64url',
    );
    return `${payload}.${this.sign(payload)}`;
  }

  decode(list: string, cursor: string): PageKey {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined || !this.verify(payload, signature))
      throw invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (
      !Array.isArray(parsed) ||
      parsed[0] !== list ||
      typeof parsed[1] !== 'string' ||
      typeof parsed[2] !== 'string'
    ) {
      throw invalidCursor();
    }
    return { createdAt: new Date(parsed[1]), id: parsed[2] };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  private verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

const invalidCursor = () =>
  badRequest(
    'cursor: not a cursor this list issued; pass back nextCursor verbatim, or omit cursor for the first page.',
  );

/** The condition "strictly after `key`" in newest-first order. */
export function afterKey(createdAt: PgColumn, id: PgColumn, key: PageKey): SQL {
  return or(lt(createdAt, key.createdAt), and(eq(createdAt, key.createdAt), lt(id, key.id))) as SQL;
}

export const newestFirst = (createdAt: PgColumn, id: PgColumn) => [desc(createdAt), desc(id)];

/** Turns `limit + 1` fetched rows into a page and its cursor. */
export function toPage<R extends PageKey, T>(
  rows: R[],
  limit: number,
  list: string,
  codec: CursorCodec,
  map: (row: R) => T,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const page: Page<T> = { items: items.map(map) };
  if (rows.length > limit && last) page.nextCursor = codec.encode(list, last);
  return page;
}
