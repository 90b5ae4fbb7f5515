/**
 * Allocation-free scanning of delimited lines: field offsets into the line's text, and exact plain
 * decimals as (integer mantissa, significant decimals), never through a float. The import hot loops
 * run on these; `decimalStringToTicks` from core is the reference they are tested against.
 */
import { isBlank } from './control-characters.ts';

/** Most fields a line may have; more are counted but not located. */
export const MAX_FIELDS = 64;

/** Powers of ten exact in a double (10^0..10^22). */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Splits one line into fields. `starts`/`ends` hold the offsets of field i in the text (surrounding
 * blanks, that is spaces, tabs, CR and LF, and one pair of double quotes trimmed); `split` returns the
 * number of fields.
 */
export class FieldSplitter {
  readonly starts = new Int32Array(MAX_FIELDS);
  readonly ends = new Int32Array(MAX_FIELDS);
  readonly delimiter: string;

  constructor(delimiter: string) {
    if (delimiter.length !== 1)
      throw new Error(`delimiter must be one character, got ${JSON.stringify(delimiter)}`);
    this.delimiter = delimiter;
  }

  split(text: string, start: number, end: number): number {
    const delimiter = this.delimiter;
    const starts = this.starts;
    const ends = this.ends;
    let n = 0;
    let p = start;
    for (;;) {
      let c = text.indexOf(delimiter, p);
      if (c < 0 || c > end) c = end;
      if (n < MAX_FIELDS) {
        let s = p;
        let e = c;
        // Only real blanks are trimmed: a control character is no blank (sources.ts refuses its line).
        if (s < e && (text.charCodeAt(s) <= 32 || text.charCodeAt(e - 1) <= 32)) {
          while (s < e && isBlank(text.charCodeAt(s))) s++;
          while (e > s && isBlank(text.charCodeAt(e - 1))) e--;
        }
        if (e - s >= 2 && text.charCodeAt(s) === 34 && text.charCodeAt(e - 1) === 34) {
          s++;
          e--;
        }
        starts[n] = s;
        ends[n] = e;
      }
      n++;
      if (c === end) return n;
      p = c + 1;
    }
  }

  /** Text of field i (for messages and headers; not for hot loops). */
  field(text: string, i: number): string {
    return text.slice(this.starts[i], this.ends[i]);
  }
}

/** Out-parameters of `scanDecimal`, to keep the hot loop allocation-free. */
export const scanned = { decimals: 0 };

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Reads a plain decimal `-?digits[.digits]` in text[start, end). Returns the integer of its
 * significant digits (trailing fraction zeros dropped) and sets `scanned.decimals` to the number of
 * significant decimals: `"42283.580"` -> 4228358 with 2. NaN when it is not a plain decimal or its
 * significant digits do not fit a safe integer.
 */
export function scanDecimal(text: string, start: number, end: number): number {
  if (start >= end) return Number.NaN;
  let i = start;
  let negative = false;
  if (text.charCodeAt(i) === 45) {
    negative = true;
    i++;
  }
  const intStart = i;
  let m = 0;
  let c = 0;
  for (; i < end; i++) {
    c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    m = m * 10 + c;
  }
  if (i === intStart) return Number.NaN;
  let significant = m;
  let decimals = 0;
  if (i < end) {
    if (c !== -2 /* '.' */) return Number.NaN;
    i++;
    if (i === end) return Number.NaN;
    let digits = 0;
    for (; i < end; i++) {
      c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return Number.NaN;
      m = m * 10 + c;
      digits++;
      if (c !== 0) {
        significant = m;
        decimals = digits;
      }
    }
  }
  if (significant > MAX_SAFE) return Number.NaN;
  scanned.decimals = decimals;
  return negative && significant !== 0 ? -significant : significant;
}

/** Unsigned integer of 1..16 digits in text[start, end); NaN otherwise. */
export function scanDigits(text: string, start: number, end: number): number {
  if (start >= end || end - start > 16) return Number.NaN;
  let m = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number.NaN;
    m = m * 10 + c;
  }
  return m;
}

/** The delimiter a header or first line most likely uses: `,`, `;`, tab or `|`. */
export function sniffDelimiter(line: string): string {
  let best = ',';
  let bestCount = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const count = line.split(candidate).length - 1;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

/** Short, printable excerpt of a field for an error message. */
export function quoteField(text: string, start: number, end: number): string {
  const value = text.slice(start, Math.min(end, start + 40));
  return JSON.stringify(end - start > 40 ? `${value}...` : value);
}
