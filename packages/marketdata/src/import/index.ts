/**
 * File importers: downloaded market-data files (plain, .gz, .zip, .zst) to exact, validated, sorted,
 * de-duplicated 1-minute batches of one instrument. A malformed file refuses the whole import with
 * `file:line: reason`; nothing partial is ever returned.
 *
 * `npx hindsight data import --format <binance|histdata|dukascopy|csv|forex-sample|ninjatrader>
 * --symbol F:EURUSD FILE...` maps onto `importFiles(parseFormat(format), files, { symbol, ... })`.
 */
import { importBinance } from './binance.ts';
import { importDukascopy } from './dukascopy.ts';
import { importForexSample } from './forex-sample.ts';
import { importGenericCsv } from './generic-csv.ts';
import { importHistData } from './histdata.ts';
import type { ImportResult } from './import-result.ts';
import { importNinjaTrader } from './ninjatrader.ts';
import type { ColumnMapping, ImportOptions } from './options.ts';
import { openSources, type TextSource } from './sources.ts';

export { binanceLayout } from './binance.ts';
export { BUNDLED_SAMPLE, BUNDLED_SAMPLE_DIR, importBundledSample } from './bundled-sample.ts';
export { sideFromName } from './dukascopy.ts';
export { ImportError } from './errors.ts';
export { compileTimePattern } from './generic-csv.ts';
export {
  type BidAskImportResult,
  describeImport,
  findGaps,
  type ImportResult,
  type ImportSummary,
  type PriceSide,
  type TradeImportResult,
} from './import-result.ts';
export type { ColumnMapping, ImportOptions } from './options.ts';
export { openSources, type ProgressListener, type SourceProgress, type TextSource } from './sources.ts';
export { aggregateTicksToMinuteBars } from './tick-aggregation.ts';
export { parseTimeZone, type WallClockZone } from './time.ts';

export const IMPORT_FORMATS = [
  'binance',
  'histdata',
  'dukascopy',
  'csv',
  'forex-sample',
  'ninjatrader',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const FORMAT_ALIASES: Record<string, ImportFormat> = {
  'generic-csv': 'csv',
  generic: 'csv',
  forex: 'forex-sample',
  ninja: 'ninjatrader',
};

/** The import format named by `text` (case-insensitive); throws naming the formats otherwise. */
export function parseFormat(text: string): ImportFormat {
  const name = text.trim().toLowerCase();
  if ((IMPORT_FORMATS as readonly string[]).includes(name)) return name as ImportFormat;
  const alias = FORMAT_ALIASES[name];
  if (alias !== undefined) return alias;
  throw new Error(
    `unknown import format ${JSON.stringify(text)}: expected one of ${IMPORT_FORMATS.join(', ')}`,
  );
}

const MAPPING_KEYS: readonly (keyof ColumnMapping)[] = [
  'time',
  'date',
  'open',
  'high',
  'low',
  'close',
  'volume',
  'bidOpen',
  'bidHigh',
  'bidLow',
  'bidClose',
  'askOpen',
  'askHigh',
  'askLow',
  'askClose',
  'bid',
  'ask',
  'bidVolume',
  'askVolume',
];

/**
 * A column mapping from `key=column,...` text (`time=Date,open=1,close=Close`): a column is a header
 * name, or a 0-based index when it is all digits.
 */
export function parseColumnMapping(text: string): ColumnMapping {
  const mapping: ColumnMapping = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = (eq < 0 ? '' : part.slice(0, eq).trim()) as keyof ColumnMapping;
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!MAPPING_KEYS.includes(key) || value === '') {
      throw new Error(
        `column mapping ${JSON.stringify(part.trim())}: expected key=column with key one of ${MAPPING_KEYS.join(', ')}`,
      );
    }
    mapping[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return mapping;
}

const IMPORTERS: Record<
  ImportFormat,
  (sources: TextSource[], options: ImportOptions) => Promise<ImportResult>
> = {
  binance: importBinance,
  histdata: importHistData,
  dukascopy: importDukascopy,
  csv: importGenericCsv,
  'forex-sample': importForexSample,
  ninjatrader: importNinjaTrader,
};

/** Imports one file (every CSV member of a zip). */
export function importFile(
  format: ImportFormat,
  path: string,
  options: ImportOptions,
): Promise<ImportResult> {
  return importFiles(format, [path], options);
}

/**
 * Imports files of one instrument together: rows of all files are merged, sorted and de-duplicated
 * (overlapping files are fine; identical rows count as duplicates, different rows at one bar time
 * refuse the import naming both lines). Dukascopy BID and ASK candle files are joined.
 */
export async function importFiles(
  format: ImportFormat,
  paths: readonly string[],
  options: ImportOptions,
): Promise<ImportResult> {
  if (paths.length === 0) throw new Error('no files to import');
  const sources: TextSource[] = [];
  for (const path of paths) sources.push(...(await openSources(path)));
  return IMPORTERS[format](sources, options);
}
