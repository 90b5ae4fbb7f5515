/**
 * Binance public klines (data.binance.vision): `open_time,open,high,low,close,volume,close_time,
 * quote_volume,trades,taker_buy_base,taker_buy_quote,ignore`, with or without that header line.
 * open_time is epoch milliseconds (13 digits) or, in spot files from 2025 on, microseconds (16 digits).
 * Only 1-minute klines are accepted (close_time = open_time + 59.999 s). Trade bars; volume = base volume.
 */
import { T, TRADE_COLUMNS, tradeResult } from './build.ts';
import type { FieldSplitter } from './fields.ts';
import { scanDigits } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ImportOptions } from './options.ts';
import { RowColumns } from './rows.ts';
import type { TextSource } from './sources.ts';
import { type LayoutChoice, looksLikeHeader, type RowLayout, readSources } from './table.ts';

const BINANCE_COLUMNS = 12;

/** Reads open_time, and checks close_time = open_time + 59.999 s (only 1m klines are accepted). */
function klineTime(text: string, fields: FieldSplitter): number {
  const s = fields.starts[0] as number;
  const e = fields.ends[0] as number;
  const open = scanDigits(text, s, e);
  const close = scanDigits(text, fields.starts[6] as number, fields.ends[6] as number);
  if (e - s === 13) {
    closeTimeSpan = close - open;
    return open;
  }
  if (e - s === 16) {
    closeTimeSpan = close - open === 59_999_999 ? 59_999 : Number.NaN;
    return open / 1000;
  }
  return Number.NaN;
}

let closeTimeSpan = 0;

function checkCloseTime(text: string, fields: FieldSplitter): string | undefined {
  if (closeTimeSpan === 59_999) return undefined;
  const close = fields.field(text, 6);
  if (Number.isNaN(scanDigits(text, fields.starts[6] as number, fields.ends[6] as number)))
    return `bad close_time ${JSON.stringify(close)}`;
  return `close_time ${close} is not open_time + 59.999 s: only 1m klines can be imported`;
}

export const binanceLayout: RowLayout = {
  delimiter: ',',
  columns: BINANCE_COLUMNS,
  time: klineTime,
  timeDescription: 'epoch milliseconds (13 digits) or microseconds (16 digits)',
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
  check: checkCloseTime,
};

export async function importBinance(sources: TextSource[], options: ImportOptions): Promise<ImportResult> {
  const rows = new RowColumns(TRADE_COLUMNS);
  const choose = (firstLine: string): LayoutChoice => {
    const comma = firstLine.indexOf(',');
    const header = looksLikeHeader(comma < 0 ? firstLine : firstLine.slice(0, comma));
    return { layout: binanceLayout, header, rows };
  };
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
