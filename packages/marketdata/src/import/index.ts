/**
 * File importers: downloaded market-data files (plain, .gz, .zip, .zst) to exact, validated, sorted,
 * de-duplicated 1-minute batches of one instrument. A malformed file refuses the whole import with
 * `file:line: reason`; nothing partial is ever returned.
 *
 * `npx hindsight data import --format <binance|histdata|dukascopy|csv|forex-sample|ninjatrader>
 * --symbol F:EURUSD FILE...` maps onto `importFiles(parseFormat(format), files, { symbol, ... })`.
 */
import type { ColumnMapping } from './options.ts';

export { binanceLayout } from './binance.ts';
export {
  BUNDLED_SAMPLE,
  BUNDLED_SAMPLE_DIR,
  bundledBidAskBars,
  bundledTradeBars,
  importBundledInstrument,
  importBundledSample,
} from './bundled-sample.ts';
export { sideFromName } from './dukascopy.ts';
export { ImportError } from './errors.ts';
export { compileTimePattern } from './generic-csv.ts';
export { IMPORT_FORMATS, type ImportFormat, importFile, importFiles, parseFormat } from './import-files.ts';
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
export { repositoryDir } from './repository-dir.ts';
export { openSources, type ProgressListener, type SourceProgress, type TextSource } from './sources.ts';
export { aggregateTicksToMinuteBars } from './tick-aggregation.ts';
export { parseTimeZone, type WallClockZone } from './time.ts';

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
