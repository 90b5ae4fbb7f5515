/**
 * Generic OHLCV, bid/ask bar or bid/ask tick CSV, with a column mapping (header names or 0-based
 * indices; by default recognised header names) and a time zone for timestamps without an offset.
 * What the mapping holds decides the kind: bid and ask OHLC -> bid/ask bars; bid and ask -> ticks (kept,
 * and aggregated to bars); open/high/low/close -> trade bars. Volume columns are optional (0).
 */
import {
  BA,
  bidAskBatch,
  bidAskResult,
  newBidAskRows,
  newTickRows,
  newTradeRows,
  Q,
  T,
  tickResult,
  tradeResult,
} from './build.ts';
import { ImportError } from './errors.ts';
import { sniffDelimiter } from './fields.ts';
import type { ImportResult } from './import-result.ts';
import type { ColumnMapping, ImportOptions } from './options.ts';
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
import {
  civilToMs,
  digitsAt,
  isoParsed,
  MINUTE_MS,
  parseCompact,
  parseDukascopyTime,
  parseIsoLike,
  parseTimeZone,
  type WallClockZone,
} from './time.ts';

/** Parses a time text: epoch ms UTC, or NaN. */
type TextTime = (text: string, start: number, end: number) => number;

interface TimeFormat {
  description: string;
  parse: TextTime;
}

/** Epoch time of exactly `digits` digits; `msDigits` leading digits are the milliseconds (finer digits dropped). */
function unix(digits: number, msDigits: number, scale: number, name: string): TimeFormat {
  return {
    description: `${name} (${digits} digits)`,
    parse: (text, start, end) => {
      if (end - start !== digits) return Number.NaN;
      for (let i = start + msDigits; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c < 48 || c > 57) return Number.NaN;
      }
      const value = digitsAt(text, start, msDigits);
      return value < 0 ? Number.NaN : value * scale;
    },
  };
}

const UNIX: Record<string, TimeFormat> = {
  'unix-s': unix(10, 10, 1000, 'epoch seconds'),
  'unix-ms': unix(13, 13, 1, 'epoch milliseconds'),
  'unix-us': unix(16, 13, 1, 'epoch microseconds'),
  'unix-ns': unix(19, 13, 1, 'epoch nanoseconds'),
};

/**
 * A pattern of `YYYY`, `MM`, `DD`, `HH`, `mm`, `ss`, `SSS` and literal characters (`T` too), read as wall time
 * in `zone`. The text must have exactly the pattern's length.
 */
export function compileTimePattern(pattern: string, zone: WallClockZone): TimeFormat {
  const tokens: { at: number; width: number; field: number }[] = [];
  const literals: { at: number; code: number }[] = [];
  const fields = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss', 'SSS'];
  let at = 0;
  while (at < pattern.length) {
    const token = fields.find((f) => pattern.startsWith(f, at));
    if (token !== undefined) {
      tokens.push({ at, width: token.length, field: fields.indexOf(token) });
      at += token.length;
    } else {
      // Letters that look like a misspelt token (hh, yyyy, dd, M, s) are refused; others (T, Z) are literals.
      if (/[YyMDdHhmsS]/.test(pattern[at] as string))
        throw new Error(`time format ${JSON.stringify(pattern)}: unknown token at ${at}`);
      literals.push({ at, code: pattern.charCodeAt(at) });
      at++;
    }
  }
  const has = (f: number) => tokens.some((t) => t.field === f);
  if (!has(0) || !has(1) || !has(2))
    throw new Error(`time format ${JSON.stringify(pattern)}: needs YYYY, MM and DD`);
  const length = pattern.length;
  const values = [0, 1, 1, 0, 0, 0, 0];
  return {
    description: `${pattern} (${zone.name})`,
    parse: (text, start, end) => {
      if (end - start !== length) return Number.NaN;
      for (const literal of literals)
        if (text.charCodeAt(start + literal.at) !== literal.code) return Number.NaN;
      values[3] = values[4] = values[5] = values[6] = 0;
      for (const token of tokens) {
        const v = digitsAt(text, start + token.at, token.width);
        if (v < 0) return Number.NaN;
        values[token.field] = v;
      }
      return zone.toUtc(
        civilToMs(
          values[0] as number,
          values[1] as number,
          values[2] as number,
          values[3] as number,
          values[4] as number,
          values[5] as number,
          values[6] as number,
        ),
      );
    },
  };
}

function isoFormat(zone: WallClockZone): TimeFormat {
  return {
    description: `ISO-8601 like 2024-01-01T00:00:00Z (no offset: ${zone.name})`,
    parse: (text, start, end) => {
      const ms = parseIsoLike(text, start, end);
      return isoParsed.zoned || Number.isNaN(ms) ? ms : zone.toUtc(ms);
    },
  };
}

function compactFormat(zone: WallClockZone): TimeFormat {
  return {
    description: `YYYYMMDD HHMMSS[fff] (${zone.name})`,
    parse: (text, start, end) => zone.toUtc(parseCompact(text, start, end)),
  };
}

function dayMonthFormat(zone: WallClockZone): TimeFormat {
  return {
    description: `DD.MM.YYYY HH:MM:SS[.fff] (${zone.name})`,
    parse: (text, start, end) => zone.toUtc(parseDukascopyTime(text, start, end)),
  };
}

/** The time format for `spec`, or (for `auto`) the first that reads `sample`. */
export function timeFormatFor(spec: string, zone: WallClockZone, sample: string): TimeFormat | undefined {
  const named = UNIX[spec];
  if (named) return named;
  if (spec === 'iso') return isoFormat(zone);
  if (spec !== 'auto') return compileTimePattern(spec, zone);
  const candidates = [
    ...Object.values(UNIX),
    isoFormat(zone),
    compactFormat(zone),
    dayMonthFormat(zone),
    compileTimePattern('YYYYMMDD', zone),
    compileTimePattern('YYYYMMDDHHmmss', zone),
  ];
  const ambiguous = zone.ambiguous;
  const found = candidates.find((format) => !Number.isNaN(format.parse(sample, 0, sample.length)));
  zone.ambiguous = ambiguous;
  return found;
}

type MappingKey = keyof ColumnMapping;

const NAME_ALIASES: Record<MappingKey, string[]> = {
  time: [
    'time',
    'timestamp',
    'datetime',
    'date',
    'opentime',
    'gmttime',
    'localtime',
    'utctime',
    'timeutc',
    'ts',
  ],
  date: [],
  open: ['open', 'o', 'openprice'],
  high: ['high', 'h', 'highprice'],
  low: ['low', 'l', 'lowprice'],
  close: ['close', 'c', 'closeprice', 'last'],
  volume: ['volume', 'vol', 'v', 'tickvolume', 'basevolume'],
  bidOpen: ['bidopen', 'openbid', 'bido'],
  bidHigh: ['bidhigh', 'highbid', 'bidh'],
  bidLow: ['bidlow', 'lowbid', 'bidl'],
  bidClose: ['bidclose', 'closebid', 'bidc'],
  askOpen: ['askopen', 'openask', 'asko'],
  askHigh: ['askhigh', 'highask', 'askh'],
  askLow: ['asklow', 'lowask', 'askl'],
  askClose: ['askclose', 'closeask', 'askc'],
  bid: ['bid', 'bidprice', 'bestbid'],
  ask: ['ask', 'askprice', 'bestask', 'offer'],
  bidVolume: ['bidvolume', 'bidsize', 'bidqty', 'bidvol'],
  askVolume: ['askvolume', 'asksize', 'askqty', 'askvol'],
};

const BIDASK_KEYS = [
  'bidOpen',
  'bidHigh',
  'bidLow',
  'bidClose',
  'askOpen',
  'askHigh',
  'askLow',
  'askClose',
] as const;
const TRADE_KEYS = ['open', 'high', 'low', 'close'] as const;

type Kind = 'trade' | 'bidask' | 'ticks';

interface Resolved {
  kind: Kind;
  fields: Partial<Record<MappingKey, number>>;
}

/** Field indices of the mapping (or of recognised header names when there is no mapping). */
function resolveMapping(
  mapping: ColumnMapping | undefined,
  headerNames: string[] | undefined,
  columns: number,
  fail: (reason: string) => never,
): Resolved {
  const fields: Partial<Record<MappingKey, number>> = {};
  if (mapping !== undefined) {
    for (const [key, ref] of Object.entries(mapping) as [MappingKey, string | number | undefined][]) {
      if (ref === undefined) continue;
      if (!(key in NAME_ALIASES)) fail(`unknown mapping key ${JSON.stringify(key)}`);
      let index: number;
      if (typeof ref === 'number') {
        index = ref;
      } else if (headerNames !== undefined) {
        index = headerNames.indexOf(normaliseName(ref));
        if (index < 0 && /^\d+$/.test(ref)) index = Number(ref);
        if (index < 0) fail(`no column ${JSON.stringify(ref)} in the header (for ${key})`);
      } else if (/^\d+$/.test(ref)) {
        index = Number(ref);
      } else {
        fail(`column ${JSON.stringify(ref)} given by name, but the file has no header`);
        index = -1;
      }
      if (!(Number.isInteger(index) && index >= 0 && index < columns)) {
        fail(`column ${index} for ${key} is out of range (the file has ${columns} columns)`);
      }
      fields[key] = index;
    }
  } else {
    if (headerNames === undefined) fail('the file has no header: give a column mapping');
    const names = headerNames as string[];
    const hasBoth = names.includes('date') && names.includes('time');
    for (const key of Object.keys(NAME_ALIASES) as MappingKey[]) {
      const aliases = hasBoth && key === 'time' ? ['time'] : NAME_ALIASES[key];
      const index = names.findIndex((name) => aliases.includes(name));
      if (index >= 0) fields[key] = index;
    }
    if (hasBoth) fields.date = names.indexOf('date');
  }
  if (fields.time === undefined) fail('no time column (map one with time=...)');
  const all = (keys: readonly MappingKey[]) => keys.every((k) => fields[k] !== undefined);
  if (all(BIDASK_KEYS)) return { kind: 'bidask', fields };
  if (fields.bid !== undefined && fields.ask !== undefined) return { kind: 'ticks', fields };
  if (all(TRADE_KEYS)) return { kind: 'trade', fields };
  return fail(
    'the columns give neither open/high/low/close, bid and ask OHLC, nor bid and ask ticks: map them with a column mapping',
  );
}

export async function importGenericCsv(sources: TextSource[], options: ImportOptions): Promise<ImportResult> {
  const zone = parseTimeZone(options.tz ?? 'UTC');
  const timeSpec = options.timeFormat ?? 'auto';
  if (timeSpec !== 'auto' && timeSpec !== 'iso' && !(timeSpec in UNIX)) compileTimePattern(timeSpec, zone);
  let kind: Kind | undefined;
  let rows: RowColumns | undefined;
  const barShift = options.barTime === 'end' ? -MINUTE_MS : 0;
  const read = await readSources(
    sources,
    (source: TextSource) => {
      const label = source.label;
      const choose = (firstLine: string, line: number): LayoutChoice => {
        const fail = (reason: string): never => {
          throw new ImportError(label, line, reason);
        };
        const delimiter = options.delimiter ?? sniffDelimiter(firstLine);
        const cells = firstLine.split(delimiter);
        const header = options.header ?? looksLikeHeader(cells[0] ?? '');
        const resolved = resolveMapping(
          options.columns,
          header ? cells.map(normaliseName) : undefined,
          cells.length,
          fail,
        );
        if (kind !== undefined && kind !== resolved.kind)
          fail(`${resolved.kind} cannot be imported together with ${kind}`);
        kind = resolved.kind;
        rows ??= kind === 'trade' ? newTradeRows() : kind === 'bidask' ? newBidAskRows() : newTickRows();
        const f = resolved.fields;
        const target = (key: MappingKey, column: number): FieldTarget => ({
          field: f[key] as number,
          column,
          name: header ? (cells[f[key] as number] ?? key).trim() : key,
        });
        const prices: FieldTarget[] =
          kind === 'trade'
            ? [target('open', T.open), target('high', T.high), target('low', T.low), target('close', T.close)]
            : kind === 'bidask'
              ? BIDASK_KEYS.map((key) => target(key, BA[key]))
              : [target('bid', Q.bid), target('ask', Q.ask)];
        const volumes: FieldTarget[] = [];
        if (kind === 'ticks') {
          if (f.bidVolume !== undefined) volumes.push(target('bidVolume', Q.bidVolume));
          if (f.askVolume !== undefined) volumes.push(target('askVolume', Q.askVolume));
          if (f.bidVolume === undefined && f.askVolume === undefined && f.volume !== undefined) {
            volumes.push(target('volume', Q.bidVolume));
          }
        } else if (f.volume !== undefined) {
          volumes.push(target('volume', kind === 'trade' ? T.volume : BA.volume));
        }
        const ohlc: RowLayout['ohlc'] =
          kind === 'trade'
            ? [[T.open, T.high, T.low, T.close]]
            : kind === 'bidask'
              ? [
                  [BA.bidOpen, BA.bidHigh, BA.bidLow, BA.bidClose],
                  [BA.askOpen, BA.askHigh, BA.askLow, BA.askClose],
                ]
              : undefined;
        const timeField = f.time as number;
        const dateField = f.date;
        let format: TimeFormat | undefined;
        const layout: RowLayout = {
          delimiter,
          columns: cells.length,
          timeField,
          timeDescription: 'a recognisable time: give a time format',
          time: (text, fields) => {
            let t = text;
            let s = fields.starts[timeField] as number;
            let e = fields.ends[timeField] as number;
            if (dateField !== undefined) {
              t = `${fields.field(text, dateField)} ${t.slice(s, e)}`;
              s = 0;
              e = t.length;
            }
            if (format === undefined) {
              // The first data row decides the format (auto), and later rows must follow it.
              format = timeFormatFor(timeSpec, zone, t.slice(s, e));
              if (format === undefined) return Number.NaN;
              layout.timeDescription = format.description;
            }
            return format.parse(t, s, e);
          },
          prices,
          volumes,
          minuteAligned: kind !== 'ticks',
          ...(kind !== 'ticks' && barShift !== 0 ? { timeShiftMs: barShift } : {}),
          ...(ohlc !== undefined ? { ohlc } : {}),
        };
        return { layout, header, rows };
      };
      return choose;
    },
    options.onProgress,
  );
  const finalRows = rows as RowColumns | undefined;
  const finalKind = kind as Kind | undefined;
  if (finalRows === undefined || finalKind === undefined) throw new Error('no sources');
  const outOfOrder = finalRows.outOfOrder;
  const duplicates = finalRows.finish(finalKind === 'ticks' ? 'ticks' : 'bars');
  const counts = {
    rows: read,
    duplicates,
    outOfOrder,
    sources: sources.map((s) => s.label),
    warnings: [] as string[],
  };
  if (zone.ambiguous > 0) {
    counts.warnings.push(
      `${zone.ambiguous} times fell in a DST fold of ${zone.name}; the earlier instant was used`,
    );
  }
  if (finalKind === 'ticks') return tickResult(finalRows, options.symbol, counts);
  if (finalKind === 'bidask') return bidAskResult(bidAskBatch(finalRows, options.symbol), counts);
  return tradeResult(finalRows, options.symbol, counts);
}
