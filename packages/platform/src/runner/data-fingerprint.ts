import { createHash } from 'node:crypto';
import { type BarStore, monthRange, tickChunkKey } from '@hindsight/marketdata';

/**
 * A digest of exactly the stored market data a run replays: for each instrument (sorted), the bytes of
 * every monthly bar chunk and daily tick chunk that overlaps the window. Chunks are written
 * deterministically (same data, same bytes), so an equal fingerprint means equal input data, and a
 * re-import that changed nothing keeps it.
 */
export async function dataFingerprint(
  store: BarStore,
  symbols: readonly string[],
  window: { start: number; end: number },
): Promise<string> {
  const digest = createHash('sha256');
  for (const symbol of [...symbols].sort()) {
    digest.update(`instrument ${symbol}\n`);
    for (const month of await store.months(symbol)) {
      const range = monthRange(month);
      if (range.end <= window.start || range.start >= window.end) continue;
      const bytes = await store.readMonthBytes(symbol, month);
      if (bytes) digest.update(`bars ${month} ${sha256(bytes)}\n`);
    }
    for (const day of await store.tickDays(symbol)) {
      const start = Date.parse(`${day}T00:00:00Z`);
      if (start + 86_400_000 <= window.start || start >= window.end) continue;
      const bytes = await store.objects.get(tickChunkKey(symbol, day));
      if (bytes) digest.update(`ticks ${day} ${sha256(bytes)}\n`);
    }
  }
  return `sha256:${digest.digest('hex')}`;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
