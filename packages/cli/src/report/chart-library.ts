/**
 * The charting library inlined into every report: TradingView Lightweight Charts' standalone build
 * (it defines `window.LightweightCharts`), read once from the installed package. Its licence header
 * stays at the top of the source.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The package exports no `dist/` subpaths, so the file is found next to its package.json. */
const STANDALONE = 'dist/lightweight-charts.standalone.production.js';

let source: string | undefined;

export function chartLibrarySource(): string {
  if (source === undefined) {
    const manifest = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
    source = readFileSync(join(dirname(manifest), STANDALONE), 'utf8');
  }
  return source;
}
