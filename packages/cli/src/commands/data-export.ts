import { writeFile } from 'node:fs/promises';
import { exportParquet } from '@hindsight/marketdata';
import { openMarketStore, readSettings, readStorageSettings } from '@hindsight/platform';
import { failAndExit } from './fail.ts';

export interface DataExportFlags {
  symbol: string;
  out: string;
  start?: string;
  end?: string;
  dataDir?: string;
}

const instant = (flag: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    console.error(`hindsight: --${flag}: "${value}" is not an ISO-8601 time.`);
    process.exit(2);
  }
  return parsed;
};

export async function runDataExport(flags: DataExportFlags): Promise<void> {
  try {
    const settings = readSettings(process.env, flags.dataDir === undefined ? {} : { dataDir: flags.dataDir });
    const store = await openMarketStore(settings.dataDir, readStorageSettings(process.env), { cache: false });
    if (!(await store.index(flags.symbol))) {
      console.error(
        `hindsight: --symbol: no stored bars for "${flags.symbol}" in ${process.env.HINDSIGHT_STORAGE_URL?.trim() || settings.dataDir}.`,
      );
      process.exit(1);
    }
    const window = {
      start: instant('start', flags.start, Number.NEGATIVE_INFINITY),
      end: instant('end', flags.end, Number.POSITIVE_INFINITY),
    };
    const exported = await exportParquet(store, flags.symbol, window);
    await writeFile(flags.out, exported.bytes);
    console.log(
      `Exported ${exported.rows} ${exported.kind === 'bidask' ? 'bid/ask' : 'trade'} bars of ${flags.symbol} to ${flags.out}.`,
    );
  } catch (error) {
    failAndExit(error);
  }
}
