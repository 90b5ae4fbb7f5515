/**
 * The bundled forex sample layout: `time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,
 * ask_close`, time = bar open, ISO-8601 UTC. Quote bars without volume (volume 0).
 */
import { BA, bidAskBatch, bidAskResult, newBidAskRows } from './build.ts';
import type { FieldSplitter } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ImportOptions } from './options.ts';
import type { TextSource } from './sources.ts';
import { type LayoutChoice, looksLikeHeader, type RowLayout, readSources } from './table.ts';
import { parseIsoLike } from './time.ts';

function isoTime(text: string, fields: FieldSplitter): number {
  return parseIsoLike(text, fields.starts[0] as number, fields.ends[0] as number);
}

export const forexSampleLayout: RowLayout = {
  delimiter: ',',
  columns: 9,
  time: isoTime,
  timeDescription: 'ISO-8601 UTC like 2013-02-01T00:00:00Z',
  timeField: 0,
  prices: [
    { field: 1, column: BA.bidOpen, name: 'bid_open' },
    { field: 2, column: BA.bidHigh, name: 'bid_high' },
    { field: 3, column: BA.bidLow, name: 'bid_low' },
    { field: 4, column: BA.bidClose, name: 'bid_close' },
    { field: 5, column: BA.askOpen, name: 'ask_open' },
    { field: 6, column: BA.askHigh, name: 'ask_high' },
    { field: 7, column: BA.askLow, name: 'ask_low' },
    { field: 8, column: BA.askClose, name: 'ask_close' },
  ],
  volumes: [],
  minuteAligned: true,
  ohlc: [
    [BA.bidOpen, BA.bidHigh, BA.bidLow, BA.bidClose],
    [BA.askOpen, BA.askHigh, BA.askLow, BA.askClose],
  ],
};

export async function importForexSample(
  sources: TextSource[],
  options: ImportOptions,
): Promise<ImportResult> {
  const rows = newBidAskRows();
  const choose = (firstLine: string): LayoutChoice => ({
    layout: forexSampleLayout,
    header: looksLikeHeader(firstLine),
    rows,
  });
  const read = await readSources(sources, () => choose, options.onProgress);
  const outOfOrder = rows.outOfOrder;
  const duplicates = rows.finish('bars');
  return bidAskResult(bidAskBatch(rows, options.symbol), {
    rows: read,
    duplicates,
    outOfOrder,
    sources: sources.map((s) => s.label),
  });
}
