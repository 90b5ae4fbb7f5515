/**
 * NinjaTrader minute bars, stamped at the bar END (bar start = end - 60 s). Two spellings:
 * - the bundled sample: `time_end,open,high,low,close,volume` with ISO-8601 UTC times;
 * - NinjaTrader's own export: `YYYYMMDD HHMMSS;open;high;low;close;volume`, no header, in the
 *   export's time zone (UTC unless `tz` says otherwise).
 * Trade bars.
 */
import { newTradeRows, T, tradeResult } from './build.ts';
import type { FieldSplitter } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ImportOptions } from './options.ts';
import type { TextSource } from './sources.ts';
import { type LayoutChoice, looksLikeHeader, type RowLayout, readSources } from './table.ts';
import { MINUTE_MS, parseCompact, parseIsoLike, parseTimeZone, type WallClockZone } from './time.ts';

const prices = [
  { field: 1, column: T.open, name: 'open' },
  { field: 2, column: T.high, name: 'high' },
  { field: 3, column: T.low, name: 'low' },
  { field: 4, column: T.close, name: 'close' },
];

function isoLayout(): RowLayout {
  return {
    delimiter: ',',
    columns: 6,
    time: (text: string, fields: FieldSplitter) =>
      parseIsoLike(text, fields.starts[0] as number, fields.ends[0] as number),
    timeDescription: 'ISO-8601 UTC like 2011-03-01T09:01:00Z',
    timeField: 0,
    timeShiftMs: -MINUTE_MS,
    prices,
    volumes: [{ field: 5, column: T.volume, name: 'volume' }],
    minuteAligned: true,
    ohlc: [[T.open, T.high, T.low, T.close]],
  };
}

function nativeLayout(zone: WallClockZone): RowLayout {
  return {
    ...isoLayout(),
    delimiter: ';',
    time: (text: string, fields: FieldSplitter) =>
      zone.toUtc(parseCompact(text, fields.starts[0] as number, fields.ends[0] as number)),
    timeDescription: `YYYYMMDD HHMMSS (${zone.name})`,
  };
}

export async function importNinjaTrader(
  sources: TextSource[],
  options: ImportOptions,
): Promise<ImportResult> {
  const zone = parseTimeZone(options.tz ?? 'UTC');
  const rows = newTradeRows();
  const choose = (firstLine: string): LayoutChoice =>
    firstLine.includes(';') && !firstLine.includes(',')
      ? { layout: nativeLayout(zone), header: false, rows }
      : { layout: isoLayout(), header: looksLikeHeader(firstLine), rows };
  const read = await readSources(sources, () => choose, options.onProgress);
  const outOfOrder = rows.outOfOrder;
  const duplicates = rows.finish('bars');
  return tradeResult(rows, options.symbol, {
    rows: read,
    duplicates,
    outOfOrder,
    sources: sources.map((s) => s.label),
  });
}
