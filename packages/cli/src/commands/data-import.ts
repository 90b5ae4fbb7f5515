import { instrumentSeed } from '@hindsight/core';
import {
  describeImport,
  IMPORT_FORMATS,
  ImportError,
  type ImportOptions,
  importFiles,
  parseColumnMapping,
  parseFormat,
} from '@hindsight/marketdata/import';
import {
  acquireDirectoryLock,
  marketDir,
  marketImportLockDir,
  openDatabase,
  openMarketStore,
  readSettings,
  readStorageSettings,
  withMarketImportLock,
} from '@hindsight/platform';
import cliProgress from 'cli-progress';
import { failAndExit } from './fail.ts';

export interface DataImportFlags {
  format: string;
  symbol: string;
  tz?: string;
  columns?: string;
  timeFormat?: string;
  delimiter?: string;
  header?: boolean;
  barTime?: string;
  side?: string;
  keepEmptyBars?: boolean;
  dataDir?: string;
}

const usage = (message: string): never => {
  console.error(`hindsight: ${message}`);
  process.exit(2);
};

/** `hindsight data import`: parse every file whole (nothing is written if one is malformed), then store. */
export async function runDataImport(files: string[], flags: DataImportFlags): Promise<void> {
  let format: ReturnType<typeof parseFormat>;
  try {
    format = parseFormat(flags.format);
  } catch {
    usage(`--format: "${flags.format}" is not one of ${IMPORT_FORMATS.join(', ')}.`);
    return;
  }
  if (!instrumentSeed.some((i) => i.symbol === flags.symbol)) {
    const hint = instrumentSeed.find(
      (i) => i.dataSymbol === flags.symbol || i.symbol === flags.symbol.toUpperCase(),
    );
    usage(
      `--symbol: "${flags.symbol}" is not a catalog symbol${hint ? `; did you mean ${hint.symbol}?` : ' (see GET /v1/instruments).'}`,
    );
  }
  if (flags.barTime !== undefined && flags.barTime !== 'start' && flags.barTime !== 'end') {
    usage(`--bar-time: must be "start" or "end", got "${flags.barTime}".`);
  }
  if (flags.side !== undefined && flags.side !== 'bid' && flags.side !== 'ask') {
    usage(`--side: must be "bid" or "ask", got "${flags.side}".`);
  }
  const options: ImportOptions = {
    symbol: flags.symbol,
    ...(flags.tz !== undefined && { tz: flags.tz }),
    ...(flags.timeFormat !== undefined && { timeFormat: flags.timeFormat }),
    ...(flags.delimiter !== undefined && { delimiter: flags.delimiter }),
    ...(flags.header === false && { header: false }),
    ...(flags.barTime !== undefined && { barTime: flags.barTime as 'start' | 'end' }),
    ...(flags.side !== undefined && { side: flags.side as 'bid' | 'ask' }),
    ...(flags.keepEmptyBars !== undefined && { keepEmptyBars: flags.keepEmptyBars }),
  };
  try {
    if (flags.columns !== undefined) options.columns = parseColumnMapping(flags.columns);
  } catch (error) {
    usage(`--columns: ${(error as Error).message}`);
  }

  const { settings, storage } = (() => {
    try {
      return {
        settings: readSettings(process.env, flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        storage: readStorageSettings(process.env),
      };
    } catch (error) {
      return failAndExit(error);
    }
  })();
  const bar = new cliProgress.SingleBar(
    {
      format: '{source} [{bar}] {percentage}%',
      hideCursor: true,
      noTTYOutput: false,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let lock: { release(): void } | undefined;
  let database: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    // One import at a time: a lock file in the data dir, or for a bucket shared through PostgreSQL a lock
    // in the database every process of the platform uses.
    if (storage.kind === 's3' && settings.databaseUrl) {
      database = await openDatabase({ kind: 'postgres', url: settings.databaseUrl });
    } else {
      const dir = storage.kind === 's3' ? marketImportLockDir(settings.dataDir) : marketDir(settings.dataDir);
      lock = acquireDirectoryLock(dir, 'The market-data store');
    }
    const result = await importFiles(format, files, {
      ...options,
      onProgress: ({ source, bytesDone, bytesTotal }) => {
        if (!process.stderr.isTTY) return;
        if (!started) bar.start(Math.max(bytesTotal, 1), 0, { source });
        started = true;
        bar.setTotal(Math.max(bytesTotal, 1));
        bar.update(bytesDone, { source });
      },
    });
    if (started) bar.stop();
    const store = await openMarketStore(settings.dataDir, storage, { cache: false });
    const write = async () => {
      const bars = await store.writeBars(flags.symbol, result.bars);
      if (result.kind === 'bidask' && result.ticks) await store.writeTicks(flags.symbol, result.ticks);
      return bars;
    };
    const written = database ? await withMarketImportLock(database.db, write) : await write();
    for (const warning of result.warnings) console.error(`warning: ${warning}`);
    console.log(`Imported ${flags.symbol}: ${describeImport(result)}`);
    const list = (months: string[]) => (months.length > 0 ? months.join(', ') : 'none');
    console.log(`Stored chunks: written ${list(written.written)}; unchanged ${list(written.unchanged)}.`);
  } catch (error) {
    if (started) bar.stop();
    if (error instanceof ImportError) {
      console.error(`hindsight: ${error.message} (nothing was written)`);
      process.exit(1);
    }
    failAndExit(error);
  } finally {
    lock?.release();
    await database?.close();
  }
}
