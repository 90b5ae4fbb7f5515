/**
 * HistData.com "Generic ASCII" files, in EST without daylight saving (UTC-5 all year, as HistData
 * documents):
 * - M1 bars `YYYYMMDD HHMMSS;open;high;low;close;volume`: BID prices only, so they become one OHLC set
 *   (`kind: 'trade'`, `priceSide: 'bid'`);
 * - ticks `YYYYMMDD HHMMSSfff,bid,ask,volume`: kept, and aggregated exactly to 1-minute bid/ask bars.
 *   The one volume column is stored as the tick's bid volume (ask volume 0), so bar volume = its sum.
 * No header line. The kind of each file is told by its first line; one import holds one kind.
 */
import { newTickRows, newTradeRows, Q, T, tickResult, tradeResult } from './build.ts';
import { ImportError } from './errors.ts';
import type { FieldSplitter } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ImportOptions } from './options.ts';
import type { RowColumns } from './rows.ts';
import type { TextSource } from './sources.ts';
import { type LayoutChoice, looksLikeHeader, type RowLayout, readSources } from './table.ts';
import { HISTDATA_EST, parseCompact } from './time.ts';

function estTime(text: string, fields: FieldSplitter): number {
  return HISTDATA_EST.toUtc(parseCompact(text, fields.starts[0] as number, fields.ends[0] as number));
}

export const histDataBarLayout: RowLayout = {
  delimiter: ';',
  columns: 6,
  time: estTime,
  timeDescription: 'YYYYMMDD HHMMSS (EST, UTC-5)',
  timeField: 0,
  prices: [
    { field: 1, column: T.open, name: 'open' },
    { field: 2, column: T.high, name: 'high' },
    { field: 3, column: T.low, name: 'low' },
    { field: 4, column: T.close, name: 'close' },
  ],
  volumes: [{ field: 5, column: T.volume, name: 'volume' }],
  minuteAligned: true,
  ohlc: [[T.open, T.high, T.low, T.close]],
};

export const histDataTickLayout: RowLayout = {
  delimiter: ',',
  columns: 4,
  time: estTime,
  timeDescription: 'YYYYMMDD HHMMSSfff (EST, UTC-5)',
  timeField: 0,
  prices: [
    { field: 1, column: Q.bid, name: 'bid' },
    { field: 2, column: Q.ask, name: 'ask' },
  ],
  volumes: [{ field: 3, column: Q.bidVolume, name: 'volume' }],
  minuteAligned: false,
};

type Kind = 'bars' | 'ticks';

function kindOf(firstLine: string): Kind {
  return firstLine.includes(';') ? 'bars' : 'ticks';
}

export async function importHistData(sources: TextSource[], options: ImportOptions): Promise<ImportResult> {
  let kind: Kind | undefined;
  let rows: RowColumns | undefined;
  const read = await readSources(
    sources,
    (source: TextSource) => {
      const choose = (firstLine: string, line: number): LayoutChoice => {
        if (looksLikeHeader(firstLine)) {
          throw new ImportError(
            source.label,
            line,
            'HistData ASCII files have no header: expected YYYYMMDD HHMMSS;open;high;low;close;volume or YYYYMMDD HHMMSSfff,bid,ask,volume',
          );
        }
        const fileKind = kindOf(firstLine);
        if (kind !== undefined && fileKind !== kind) {
          throw new ImportError(
            source.label,
            line,
            `HistData ${fileKind} cannot be imported together with ${kind}`,
          );
        }
        kind = fileKind;
        rows ??= kind === 'bars' ? newTradeRows() : newTickRows();
        return { layout: fileKind === 'bars' ? histDataBarLayout : histDataTickLayout, header: false, rows };
      };
      return choose;
    },
    options.onProgress,
  );
  const finalRows = rows as RowColumns | undefined;
  if (finalRows === undefined || kind === undefined) throw new Error('no sources');
  const outOfOrder = finalRows.outOfOrder;
  const duplicates = finalRows.finish(kind === 'bars' ? 'bars' : 'ticks');
  const counts = { rows: read, duplicates, outOfOrder, sources: sources.map((s) => s.label) };
  if (kind === 'bars') {
    const warnings = ['HistData M1 bars hold BID prices only: imported as one OHLC set (bid side)'];
    return tradeResult(finalRows, options.symbol, { ...counts, warnings }, 'bid');
  }
  return tickResult(finalRows, options.symbol, counts);
}
