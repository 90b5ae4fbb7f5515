import { parquetWriteBuffer } from 'hyparquet-writer';
import type { BarBatch } from '../bar-store.ts';
import { isBidAskBatch } from '../codec/bars.ts';
import type { BarSource } from '../replay.ts';
import { monthRange } from '../store-keys.ts';
import { ensureZstd, zstdCompress } from '../zstd.ts';

/**
 * Exports stored base bars of one instrument as a Parquet file (zstd), so any tool (pandas, DuckDB,
 * Spark) can read what the platform holds. Prices stay exact: each price column is INT64 with the
 * DECIMAL logical type at the data's scale; `time` is the bar start as TIMESTAMP_MILLIS (UTC).
 * Trade-only data exports its traded OHLC (bid/ask are derived at replay, see docs/market-data.md).
 */
export interface ParquetExport {
  bytes: Uint8Array;
  rows: number;
  kind: 'bidask' | 'trade';
}

const BIDASK_COLUMNS = [
  'bidOpen',
  'bidHigh',
  'bidLow',
  'bidClose',
  'askOpen',
  'askHigh',
  'askLow',
  'askClose',
] as const;
const TRADE_COLUMNS = ['open', 'high', 'low', 'close'] as const;
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export async function exportParquet(
  source: BarSource,
  symbol: string,
  window: { start: number; end: number },
): Promise<ParquetExport> {
  await ensureZstd();
  const index = await source.index(symbol);
  if (!index) throw new Error(`no stored bars for ${symbol}`);
  const months = Object.keys(index.months)
    .sort()
    .filter((m) => {
      const range = monthRange(m);
      return range.end > window.start && range.start < window.end;
    });
  const batches: BarBatch[] = [];
  for (const month of months) {
    const batch = await source.readMonth(symbol, month);
    if (batch) batches.push(batch);
  }
  const kinds = new Set(batches.map((b) => (isBidAskBatch(b) ? 'bidask' : 'trade')));
  if (kinds.size > 1) throw new Error(`${symbol} mixes bid/ask and trade months; export them separately`);
  const kind = kinds.has('trade') ? 'trade' : 'bidask';
  const priceDecimals = Math.max(0, ...batches.map((b) => b.priceDecimals));
  const volumeDecimals = Math.max(0, ...batches.map((b) => b.volumeDecimals));
  const priceColumns: readonly string[] = kind === 'bidask' ? BIDASK_COLUMNS : TRADE_COLUMNS;

  const time: bigint[] = [];
  const columns = new Map<string, bigint[]>([...priceColumns, 'volume'].map((c) => [c, []]));
  for (const batch of batches) {
    const priceScale = 10n ** BigInt(priceDecimals - batch.priceDecimals);
    const volumeScale = 10n ** BigInt(volumeDecimals - batch.volumeDecimals);
    const values = batch as unknown as Record<string, Float64Array>;
    for (let i = 0; i < batch.length; i++) {
      const t = batch.time[i] as number;
      if (t < window.start || t >= window.end) continue;
      time.push(BigInt(t));
      for (const c of priceColumns) columns.get(c)?.push(BigInt(values[c]?.[i] as number) * priceScale);
      columns.get('volume')?.push(BigInt(batch.volume[i] as number) * volumeScale);
    }
  }
  const decimal = (name: string, scale: number) => ({
    name,
    type: 'INT64' as const,
    converted_type: 'DECIMAL' as const,
    scale,
    precision: 18,
    repetition_type: 'REQUIRED' as const,
  });
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'time', data: BigInt64Array.from(time), nullable: false },
      ...[...columns].map(([name, data]) => ({
        name: snake(name),
        data: BigInt64Array.from(data),
        nullable: false,
      })),
    ],
    schema: [
      { name: 'root', num_children: 1 + columns.size },
      { name: 'time', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type: 'REQUIRED' },
      ...priceColumns.map((c) => decimal(snake(c), priceDecimals)),
      decimal('volume', volumeDecimals),
    ],
    codec: 'ZSTD',
    compressors: { ZSTD: (input: Uint8Array) => zstdCompress(input) },
    kvMetadata: [{ key: 'hindsight.symbol', value: symbol }],
    createdBy: 'hindsight',
  });
  return { bytes: new Uint8Array(buffer), rows: time.length, kind };
}
