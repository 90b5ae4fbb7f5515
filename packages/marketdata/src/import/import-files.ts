/**
 * The import formats and the entry that runs one on files: `importFiles(format, paths, options)`
 * opens the files (plain, .gz, .zip, .zst) and hands them to that format's importer.
 */
import { importBinance } from './binance.ts';
import { importDukascopy } from './dukascopy.ts';
import { importForexSample } from './forex-sample.ts';
import { importGenericCsv } from './generic-csv.ts';
import { importHistData } from './histdata.ts';
import type { ImportResult } from './import-result.ts';
import { importNinjaTrader } from './ninjatrader.ts';
import type { ImportOptions } from './options.ts';
import { openSources, type TextSource } from './sources.ts';

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
