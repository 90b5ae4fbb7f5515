/**
 * Lists read from cursor-paged `/v1` endpoints ({data, nextCursor}): `useCursorList` shows a page at
 * a time with "Load more" (strategies, configurations, a strategy's versions); `allPages` reads every
 * page, for lists that feed a <select> or are short by nature (API keys).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api/client.ts';

export type Loaded<T> = { ok: true; items: T[] } | { ok: false; message: string };

type Page<T> = { data?: { data: T[]; nextCursor?: string | null }; error?: unknown };

/** Every page of a list; `what` names it in the error ("Could not load your strategies."). */
export async function allPages<T>(
  fetchPage: (cursor?: string) => Promise<Page<T>>,
  what: string,
): Promise<Loaded<T>> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await fetchPage(cursor);
    if (!data) return { ok: false, message: errorMessage(error, `Could not load ${what}.`) };
    items.push(...data.data);
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
  return { ok: true, items };
}

/** One page, or the message to show when it could not be read. */
export type PageResult<T> = { items: T[]; nextCursor?: string | null } | { error: string };

/**
 * `fetchPage` must be memoized (useCallback) on the query it reads: a new one starts the list again.
 * Returns the items (null while the first page loads), the cursor of the next page, and `loadMore`.
 */
export function useCursorList<T>(fetchPage: (cursor?: string) => Promise<PageResult<T>>) {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  // The query a page was asked for: an answer for an earlier one (a filter toggled meanwhile) is dropped.
  const current = useRef(fetchPage);
  current.current = fetchPage;

  const load = useCallback(
    async (after?: string) => {
      const page = await fetchPage(after);
      if (current.current !== fetchPage) return;
      if ('error' in page) {
        setError(page.error);
        return;
      }
      setError(null);
      setItems((shown) => (after ? [...(shown ?? []), ...page.items] : page.items));
      setCursor(page.nextCursor ?? undefined);
    },
    [fetchPage],
  );

  // A new query starts over: the shown items and the cursor belong to the old one.
  useEffect(() => {
    setItems(null);
    setCursor(undefined);
    void load();
  }, [load]);

  const loadMore = useCallback(() => {
    if (cursor) void load(cursor);
  }, [cursor, load]);

  return { items, setItems, cursor, error, setError, loadMore };
}
