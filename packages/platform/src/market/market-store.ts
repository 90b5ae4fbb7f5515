import { join } from 'node:path';
import { type BarStore, openFileBarStore } from '@hindsight/marketdata';

/** Market data lives beside the database in the data dir: `$HINDSIGHT_DATA_DIR/market`. */
export const marketDir = (dataDir: string): string => join(dataDir, 'market');

export const openMarketStore = (dataDir: string): BarStore => openFileBarStore(dataDir);
