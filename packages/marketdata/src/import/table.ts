/**
 * The shared row engine of the delimited formats: a layout says which field holds the time and which
 * hold prices and volumes (and into which columns they go); `readTable` streams a source through it
 * into `RowColumns`, refusing the file at the first bad line with its line number and reason.
 */
import { ImportError } from './errors.ts';
import { FieldSplitter, quoteField, scanDecimal, scanned } from './fields.ts';
import type { RowColumns } from './rows.ts';
import { forEachLine, type ProgressListener, type TextSource } from './sources.ts';
import { formatUtc, MINUTE_MS } from './time.ts';

/** Reads the row's time (epoch ms UTC) from the split line; NaN when malformed or nonexistent. */
export type TimeReader = (text: string, fields: FieldSplitter) => number;

export interface FieldTarget {
  /** Field index in the line. */
  field: number;
  /** Column index in the RowColumns. */
  column: number;
  /** Name for messages. */
  name: string;
}

export interface RowLayout {
  delimiter: string;
  /** Exact number of fields of every line. */
  columns: number;
  time: TimeReader;
  /** What a valid time looks like, for messages (`expected YYYY-MM-DD HH:MM:SS`). */
  timeDescription: string;
  /** Field of the time, for messages. */
  timeField: number;
  prices: FieldTarget[];
  volumes: FieldTarget[];
  /** Added to the parsed time (-60 000 for bar-end stamps). */
  timeShiftMs?: number;
  /** Bars must start on a whole minute; ticks need not. */
  minuteAligned: boolean;
  /** Column indices of [open, high, low, close] sets whose high/low must bound open and close. */
  ohlc?: (readonly [number, number, number, number])[];
  /** Further per-line check; returns a reason to refuse the line. */
  check?: (text: string, fields: FieldSplitter, time: number) => string | undefined;
}

/**
 * What the first non-empty line of a source decides: the layout, whether that line is a header, and
 * the columns the rows go to.
 */
export interface LayoutChoice {
  layout: RowLayout;
  header: boolean;
  rows: RowColumns;
}

export interface TableStats {
  rows: number;
  lines: number;
}

/**
 * Streams `source` into the rows `choose` picks from its first non-empty line (passed whole), per the
 * layout it picks. Throws ImportError on the first bad line; the caller discards the rows then.
 */
export async function readTable(
  source: TextSource,
  choose: (firstLine: string, line: number) => LayoutChoice,
  onProgress?: ProgressListener,
): Promise<TableStats> {
  const label = source.label;
  let layout: RowLayout | undefined;
  let rows: RowColumns | undefined;
  let fileIndex = 0;
  let ohlc = new Int32Array(0);
  let fields = new FieldSplitter(',');
  let count = 0;
  const fail = (line: number, reason: string): never => {
    throw new ImportError(label, line, reason);
  };
  const lines = await forEachLine(
    source,
    (text, start, end, line) => {
      if (layout === undefined) {
        const choice = choose(text.slice(start, end), line);
        layout = choice.layout;
        rows = choice.rows;
        fileIndex = rows.addFile(label);
        fields = new FieldSplitter(layout.delimiter);
        ohlc = Int32Array.from((layout.ohlc ?? []).flat());
        if (choice.header) return;
      }
      const l = layout;
      const r = rows as RowColumns;
      const n = fields.split(text, start, end);
      if (n !== l.columns) fail(line, `expected ${l.columns} columns, got ${n}`);
      let time = l.time(text, fields);
      if (Number.isNaN(time)) {
        const f = l.timeField;
        fail(
          line,
          `bad timestamp ${quoteField(text, fields.starts[f] as number, fields.ends[f] as number)} (expected ${l.timeDescription})`,
        );
      }
      if (l.timeShiftMs !== undefined) time += l.timeShiftMs;
      if (l.minuteAligned && time % MINUTE_MS !== 0) {
        fail(line, `bar time ${formatUtc(time)} is not on a whole minute`);
      }
      if (l.check !== undefined) {
        const reason = l.check(text, fields, time);
        if (reason !== undefined) fail(line, reason);
      }
      const row = r.begin(fileIndex, line, time);
      const prices = l.prices;
      for (let k = 0; k < prices.length; k++) {
        const target = prices[k] as FieldTarget;
        const s = fields.starts[target.field] as number;
        const e = fields.ends[target.field] as number;
        const mantissa = scanDecimal(text, s, e);
        if (Number.isNaN(mantissa)) fail(line, badNumber(text, s, e, target.name));
        if (!r.price(target.column, row, mantissa, scanned.decimals)) {
          fail(
            line,
            `${target.name} ${quoteField(text, s, e)} does not fit an exact scale with the rest of the file`,
          );
        }
      }
      const volumes = l.volumes;
      for (let k = 0; k < volumes.length; k++) {
        const target = volumes[k] as FieldTarget;
        const s = fields.starts[target.field] as number;
        const e = fields.ends[target.field] as number;
        const mantissa = scanDecimal(text, s, e);
        if (Number.isNaN(mantissa)) fail(line, badNumber(text, s, e, target.name));
        if (mantissa < 0) fail(line, `negative ${target.name} ${quoteField(text, s, e)}`);
        if (!r.volume(target.column, row, mantissa, scanned.decimals)) {
          fail(
            line,
            `${target.name} ${quoteField(text, s, e)} does not fit an exact scale with the rest of the file`,
          );
        }
      }
      for (let k = 0; k < ohlc.length; k += 4) {
        const cols = r.cols;
        const open = (cols[ohlc[k] as number] as Float64Array)[row] as number;
        const high = (cols[ohlc[k + 1] as number] as Float64Array)[row] as number;
        const low = (cols[ohlc[k + 2] as number] as Float64Array)[row] as number;
        const close = (cols[ohlc[k + 3] as number] as Float64Array)[row] as number;
        if (high < open || high < close || low > open || low > close) {
          const [o, h, lo, c] = [...ohlc.subarray(k, k + 4)].map((i) => r.names[i]);
          fail(line, `inconsistent bar: ${h} must be >= and ${lo} <= ${o} and ${c}`);
        }
      }
      count++;
    },
    onProgress,
  );
  return { rows: count, lines };
}

function badNumber(text: string, start: number, end: number, name: string): string {
  if (start === end) return `empty ${name}`;
  const raw = text.slice(start, end);
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(raw))
    return `${name} ${quoteField(text, start, end)} has too many digits to be exact`;
  return `bad number ${quoteField(text, start, end)} in ${name}`;
}

/** Whether a header-or-data line starts with something that is not a digit (so it is a header). */
export function looksLikeHeader(firstField: string): boolean {
  const t = firstField.trim().replace(/^"/, '');
  return t.length > 0 && !(t.charCodeAt(0) >= 48 && t.charCodeAt(0) <= 57);
}

/** Header names normalised for matching: lower case, without blanks, quotes, `_`, `-` or `.`. */
export function normaliseName(name: string): string {
  return name
    .trim()
    .replace(/^"|"$/g, '')
    .toLowerCase()
    .replace(/[\s_\-.()]/g, '');
}

/** Fails the import when no data rows were read in any of its sources. */
export function requireRows(rowsRead: number, label: string, lines: number): void {
  if (rowsRead === 0) throw new ImportError(label, lines + 1, 'no data rows (empty file)');
}

/**
 * Reads every source whole, with the layout `chooseFor(source)` picks from its first line; each
 * source must hold data rows. Returns the number of rows read across all of them.
 */
export async function readSources(
  sources: readonly TextSource[],
  chooseFor: (source: TextSource) => (firstLine: string, line: number) => LayoutChoice,
  onProgress?: ProgressListener,
): Promise<number> {
  let read = 0;
  for (const source of sources) {
    const stats = await readTable(source, chooseFor(source), onProgress);
    requireRows(stats.rows, source.label, stats.lines);
    read += stats.rows;
  }
  return read;
}

export { MINUTE_MS };
