/**
 * Growable columns of parsed rows, exact at a decimal scale that rises as finer values appear
 * (existing rows are rescaled, so the final scale is the largest number of significant decimals seen),
 * with each row's file and line kept for messages. `finish` sorts (stably) and removes duplicates.
 */
import { ImportError } from './errors.ts';
import { POW10 } from './fields.ts';
import { formatUtc } from './time.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export type ColumnGroup = 'time' | 'price' | 'volume';

/** How rows that share a timestamp are treated. */
export type SameTimePolicy =
  /** Bars: identical rows collapse to one (a duplicate); different rows reject the import. */
  | 'bars'
  /** Ticks: rows identical to an earlier one at that time collapse; different rows are all kept in file order. */
  | 'ticks';

export class RowColumns {
  readonly names: readonly string[];
  readonly groups: readonly ColumnGroup[];
  cols: Float64Array[];
  line: Uint32Array;
  file: Uint16Array;
  length = 0;
  capacity: number;
  priceDecimals = 0;
  volumeDecimals = 0;
  /** Rows whose time is earlier than the row before them in the same file. */
  outOfOrder = 0;
  lastTime = Number.NEGATIVE_INFINITY;
  /** Whether any row (across files) came before an earlier-read row's time. */
  needsSort = false;
  private fileLastTime = Number.NEGATIVE_INFINITY;
  readonly files: string[] = [];
  private readonly priceCols: number[];
  private readonly volumeCols: number[];

  /** Column 0 must be the time. */
  constructor(columns: readonly (readonly [string, ColumnGroup])[], initialCapacity = 1 << 14) {
    this.names = columns.map(([name]) => name);
    this.groups = columns.map(([, group]) => group);
    this.capacity = initialCapacity;
    this.cols = columns.map(() => new Float64Array(initialCapacity));
    this.line = new Uint32Array(initialCapacity);
    this.file = new Uint16Array(initialCapacity);
    this.priceCols = [];
    this.volumeCols = [];
    this.groups.forEach((group, i) => {
      if (group === 'price') this.priceCols.push(i);
      else if (group === 'volume') this.volumeCols.push(i);
    });
  }

  /** Index of a file label for `begin`. */
  addFile(label: string): number {
    this.files.push(label);
    this.fileLastTime = Number.NEGATIVE_INFINITY;
    if (this.files.length > 65535) throw new Error('too many files in one import');
    return this.files.length - 1;
  }

  /** Appends an empty row for (file, line) with its time; returns its index. */
  begin(fileIndex: number, line: number, time: number): number {
    if (this.length === this.capacity) this.grow();
    const i = this.length++;
    (this.cols[0] as Float64Array)[i] = time;
    this.line[i] = line;
    this.file[i] = fileIndex;
    if (time < this.fileLastTime) this.outOfOrder++;
    if (time < this.lastTime) this.needsSort = true;
    else this.lastTime = time;
    this.fileLastTime = time;
    return i;
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    this.cols = this.cols.map((col) => {
      const next = new Float64Array(capacity);
      next.set(col);
      return next;
    });
    const line = new Uint32Array(capacity);
    line.set(this.line);
    this.line = line;
    const file = new Uint16Array(capacity);
    file.set(this.file);
    this.file = file;
    this.capacity = capacity;
  }

  /**
   * Stores a price (mantissa with `decimals` significant decimals) in column `col` of row `row`,
   * rescaling everything stored so far when it is finer than the current scale. False when the scaled
   * value (or a rescaled one) would not be an exact safe integer.
   */
  price(col: number, row: number, mantissa: number, decimals: number): boolean {
    if (
      decimals > this.priceDecimals &&
      !this.rescale(this.priceCols, decimals - this.priceDecimals, 'price')
    ) {
      return false;
    }
    const value = mantissa * (POW10[this.priceDecimals - decimals] as number);
    if (value > MAX_SAFE || value < -MAX_SAFE) return false;
    (this.cols[col] as Float64Array)[row] = value;
    return true;
  }

  /** As `price`, for a volume column (its own scale). */
  volume(col: number, row: number, mantissa: number, decimals: number): boolean {
    if (
      decimals > this.volumeDecimals &&
      !this.rescale(this.volumeCols, decimals - this.volumeDecimals, 'volume')
    ) {
      return false;
    }
    const value = mantissa * (POW10[this.volumeDecimals - decimals] as number);
    if (value > MAX_SAFE || value < -MAX_SAFE) return false;
    (this.cols[col] as Float64Array)[row] = value;
    return true;
  }

  private rescale(cols: number[], by: number, group: 'price' | 'volume'): boolean {
    const current = group === 'price' ? this.priceDecimals : this.volumeDecimals;
    if (current + by > 22) return false;
    const factor = POW10[by] as number;
    const n = this.length;
    for (const c of cols) {
      const col = this.cols[c] as Float64Array;
      for (let i = 0; i < n; i++) {
        const value = (col[i] as number) * factor;
        if (value > MAX_SAFE || value < -MAX_SAFE) return false;
        col[i] = value;
      }
    }
    if (group === 'price') this.priceDecimals += by;
    else this.volumeDecimals += by;
    return true;
  }

  /** Rescales to at least these decimals (to join two sets of columns at one scale). */
  scaleTo(priceDecimals: number, volumeDecimals: number): boolean {
    if (
      priceDecimals > this.priceDecimals &&
      !this.rescale(this.priceCols, priceDecimals - this.priceDecimals, 'price')
    ) {
      return false;
    }
    return !(
      volumeDecimals > this.volumeDecimals &&
      !this.rescale(this.volumeCols, volumeDecimals - this.volumeDecimals, 'volume')
    );
  }

  where(row: number): string {
    return `${this.files[this.file[row] as number]}:${this.line[row]}`;
  }

  errorAt(row: number, reason: string): ImportError {
    return new ImportError(this.files[this.file[row] as number] ?? '?', this.line[row], reason);
  }

  /**
   * Sorts by time (stable: equal times keep reading order) and removes duplicates per `policy`.
   * Returns the number of duplicate rows removed; afterwards the columns hold the result, oldest first.
   * Throws an ImportError naming both lines when two different rows share a bar time.
   */
  finish(policy: SameTimePolicy): number {
    const n = this.length;
    const time = this.cols[0] as Float64Array;
    let order: Uint32Array | undefined;
    if (this.needsSort) {
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((a, b) => (time[a] as number) - (time[b] as number) || a - b);
    }
    const keep = new Uint32Array(n);
    let kept = 0;
    let duplicates = 0;
    const width = this.cols.length;
    let groupStart = 0;
    for (let k = 0; k < n; k++) {
      const i = order ? (order[k] as number) : k;
      if (kept > 0 && time[keep[kept - 1] as number] === time[i]) {
        let duplicate = false;
        for (let g = policy === 'bars' ? kept - 1 : groupStart; g < kept; g++) {
          const j = keep[g] as number;
          let same = true;
          for (let c = 1; c < width; c++) {
            if ((this.cols[c] as Float64Array)[i] !== (this.cols[c] as Float64Array)[j]) {
              same = false;
              break;
            }
          }
          if (same) {
            duplicate = true;
            break;
          }
          if (policy === 'bars') {
            throw this.errorAt(
              i,
              `conflicting duplicate: the row at ${formatUtc(time[i] as number)} differs from the one at ${this.where(j)}`,
            );
          }
        }
        if (duplicate) {
          duplicates++;
          continue;
        }
      } else {
        groupStart = kept;
      }
      keep[kept++] = i;
    }
    if (order || kept !== n) {
      this.cols = this.cols.map((col) => {
        const next = new Float64Array(kept);
        for (let k = 0; k < kept; k++) next[k] = col[keep[k] as number] as number;
        return next;
      });
      const line = new Uint32Array(kept);
      const file = new Uint16Array(kept);
      for (let k = 0; k < kept; k++) {
        line[k] = this.line[keep[k] as number] as number;
        file[k] = this.file[keep[k] as number] as number;
      }
      this.line = line;
      this.file = file;
    } else {
      this.cols = this.cols.map((col) => col.slice(0, kept));
      this.line = this.line.slice(0, kept);
      this.file = this.file.slice(0, kept);
    }
    this.length = kept;
    this.capacity = kept;
    this.lastTime = kept > 0 ? (time[keep[kept - 1] as number] as number) : Number.NEGATIVE_INFINITY;
    this.needsSort = false;
    return duplicates;
  }

  column(name: string): Float64Array {
    const index = this.names.indexOf(name);
    if (index < 0) throw new Error(`no column ${name}`);
    return this.cols[index] as Float64Array;
  }
}
