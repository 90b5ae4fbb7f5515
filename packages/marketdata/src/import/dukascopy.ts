/**
 * Dukascopy CSV exports (JForex / "Historical Data Feed"):
 * - candles `Gmt time,Open,High,Low,Close,Volume`, one file per side (BID and ASK), joined here into
 *   bid/ask bars; a side is told by `side` or by BID/ASK in the file name. One side alone gives one
 *   OHLC set of that side. Volume = bid volume + ask volume (Dukascopy candle volume is the sum of the
 *   side's tick volumes, so this matches bars aggregated from the ticks). Zero-volume candles are
 *   minutes without ticks that Dukascopy fills flat; they are dropped (gaps stay gaps) unless
 *   `keepEmptyBars`.
 * - ticks `Gmt time,Ask,Bid,AskVolume,BidVolume`: kept, and aggregated exactly to 1-minute bars.
 * Times `DD.MM.YYYY HH:MM:SS.fff` in GMT (a ` GMT+hhmm` suffix, as in "Local time" exports, is applied),
 * or epoch milliseconds. Without a header, 6 columns are candles and 5 are ticks in the order above.
 */
import {
  bidAskResult,
  joinSides,
  newTickRows,
  newTradeRows,
  Q,
  T,
  tickResult,
  tradeResult,
} from './build.ts';
import { ImportError } from './errors.ts';
import { type FieldSplitter, scanDigits, sniffDelimiter } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ImportOptions } from './options.ts';
import type { RowColumns } from './rows.ts';
import type { TextSource } from './sources.ts';
import {
  type FieldTarget,
  type LayoutChoice,
  looksLikeHeader,
  normaliseName,
  type RowLayout,
  readSources,
} from './table.ts';
import { parseDukascopyTime } from './time.ts';

type Side = 'bid' | 'ask';

function timeReader(field: number) {
  return (text: string, fields: FieldSplitter): number => {
    const s = fields.starts[field] as number;
    const e = fields.ends[field] as number;
    if (e - s === 13) {
      const c = text.charCodeAt(s + 2);
      if (c >= 48 && c <= 57) return scanDigits(text, s, e);
    }
    return parseDukascopyTime(text, s, e);
  };
}

const TIME_NAMES = ['gmttime', 'localtime', 'time', 'timestamp', 'date', 'datetime', 'utctime'];

function find(names: string[], candidates: string[]): number {
  for (const candidate of candidates) {
    const index = names.indexOf(candidate);
    if (index >= 0) return index;
  }
  return -1;
}

interface Shape {
  kind: 'bars' | 'ticks';
  layout: RowLayout;
}

function shapeOf(firstLine: string, label: string, line: number): { shape: Shape; header: boolean } {
  const delimiter = sniffDelimiter(firstLine);
  const cells = firstLine.split(delimiter);
  const header = looksLikeHeader(cells[0] ?? '');
  const names = header
    ? cells.map(normaliseName)
    : cells.length === 6
      ? ['gmttime', 'open', 'high', 'low', 'close', 'volume']
      : cells.length === 5
        ? ['gmttime', 'ask', 'bid', 'askvolume', 'bidvolume']
        : [];
  const fail = (reason: string): never => {
    throw new ImportError(label, line, reason);
  };
  if (names.length === 0) {
    fail(`expected a Dukascopy header, or 6 (candles) or 5 (ticks) columns, got ${cells.length}`);
  }
  const time = find(names, TIME_NAMES);
  if (time < 0) fail(`no time column in the header (expected "Gmt time")`);
  const base = {
    delimiter,
    columns: names.length,
    time: timeReader(time),
    timeDescription: 'DD.MM.YYYY HH:MM:SS.fff (GMT) or epoch milliseconds',
    timeField: time,
  };
  const at = (candidates: string[], column: number, name: string): FieldTarget => {
    const field = find(names, candidates);
    if (field < 0) fail(`no ${name} column in the header`);
    return { field, column, name };
  };
  const askIndex = find(names, ['ask', 'askprice']);
  if (askIndex >= 0) {
    return {
      header,
      shape: {
        kind: 'ticks',
        layout: {
          ...base,
          prices: [at(['bid', 'bidprice'], Q.bid, 'Bid'), at(['ask', 'askprice'], Q.ask, 'Ask')],
          volumes: [
            at(['bidvolume', 'bidsize'], Q.bidVolume, 'BidVolume'),
            at(['askvolume', 'asksize'], Q.askVolume, 'AskVolume'),
          ],
          minuteAligned: false,
        },
      },
    };
  }
  return {
    header,
    shape: {
      kind: 'bars',
      layout: {
        ...base,
        prices: [
          at(['open'], T.open, 'Open'),
          at(['high'], T.high, 'High'),
          at(['low'], T.low, 'Low'),
          at(['close'], T.close, 'Close'),
        ],
        volumes: [at(['volume'], T.volume, 'Volume')],
        minuteAligned: true,
        ohlc: [[T.open, T.high, T.low, T.close]],
      },
    },
  };
}

/** BID or ASK from a file name (`EURUSD_Candlestick_1_M_BID_01.01.2020-31.12.2020.csv`). */
export function sideFromName(name: string): Side | undefined {
  const bid = /(^|[^a-z])bid([^a-z]|$)/i.test(name);
  const ask = /(^|[^a-z])ask([^a-z]|$)/i.test(name);
  if (bid === ask) return undefined;
  return bid ? 'bid' : 'ask';
}

/** Drops zero-volume rows of finished columns (both given columns zero); returns how many. */
function dropEmpty(rows: RowColumns[], volumeColumn: number): number {
  const n = (rows[0] as RowColumns).length;
  const keep: number[] = [];
  for (let i = 0; i < n; i++) {
    if (rows.some((r) => (r.cols[volumeColumn] as Float64Array)[i] !== 0)) keep.push(i);
  }
  if (keep.length === n) return 0;
  for (const r of rows) {
    r.cols = r.cols.map((col) => Float64Array.from(keep, (i) => col[i] as number));
    r.line = Uint32Array.from(keep, (i) => r.line[i] as number);
    r.file = Uint16Array.from(keep, (i) => r.file[i] as number);
    r.length = keep.length;
  }
  return n - keep.length;
}

export async function importDukascopy(sources: TextSource[], options: ImportOptions): Promise<ImportResult> {
  const sides: Record<Side, RowColumns | undefined> = { bid: undefined, ask: undefined };
  let ticks: RowColumns | undefined;
  let kind: 'bars' | 'ticks' | undefined;
  const read = await readSources(
    sources,
    (source: TextSource) => {
      const choose = (firstLine: string, line: number): LayoutChoice => {
        const { shape, header } = shapeOf(firstLine, source.label, line);
        if (kind !== undefined && kind !== shape.kind) {
          throw new ImportError(
            source.label,
            line,
            `Dukascopy ${shape.kind} cannot be imported together with ${kind}`,
          );
        }
        kind = shape.kind;
        if (shape.kind === 'ticks') {
          ticks ??= newTickRows();
          return { layout: shape.layout, header, rows: ticks };
        }
        const side = sideFromName(source.name) ?? options.side;
        if (side === undefined) {
          throw new ImportError(
            source.label,
            line,
            'cannot tell whether these candles are BID or ASK: put BID or ASK in the file name or pass the side',
          );
        }
        sides[side] ??= newTradeRows();
        return { layout: shape.layout, header, rows: sides[side] };
      };
      return choose;
    },
    options.onProgress,
  );
  const labels = sources.map((s) => s.label);
  const tickRows = ticks as RowColumns | undefined;
  if (tickRows !== undefined) {
    const outOfOrder = tickRows.outOfOrder;
    const duplicates = tickRows.finish('ticks');
    return tickResult(tickRows, options.symbol, { rows: read, duplicates, outOfOrder, sources: labels });
  }
  const present = (['bid', 'ask'] as const).filter((side) => sides[side] !== undefined);
  let outOfOrder = 0;
  let duplicates = 0;
  for (const side of present) {
    const rows = sides[side] as RowColumns;
    outOfOrder += rows.outOfOrder;
    duplicates += rows.finish('bars');
  }
  const warnings: string[] = [];
  const bid = sides.bid;
  const ask = sides.ask;
  if (bid !== undefined && ask !== undefined) {
    const bars = joinSides(bid, ask, options.symbol);
    let dropped = 0;
    if (!options.keepEmptyBars) {
      dropped = dropEmpty([bid, ask], T.volume);
    }
    const joined = dropped > 0 ? joinSides(bid, ask, options.symbol) : bars;
    if (dropped > 0) warnings.push(`${dropped} zero-volume (filled, no ticks) bars dropped`);
    return bidAskResult(joined, { rows: read, duplicates, outOfOrder, sources: labels, warnings });
  }
  const side = present[0] as Side;
  const rows = sides[side] as RowColumns;
  const dropped = options.keepEmptyBars ? 0 : dropEmpty([rows], T.volume);
  warnings.push(`only ${side.toUpperCase()} candles given: imported as one OHLC set (${side} side)`);
  if (dropped > 0) warnings.push(`${dropped} zero-volume (filled, no ticks) bars dropped`);
  return tradeResult(
    rows,
    options.symbol,
    { rows: read, duplicates, outOfOrder, sources: labels, warnings },
    side,
  );
}
