/** Temp-dir fixtures for the importer tests: plain, .gz, .zip and .zst variants of small CSV texts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ticksToDecimalString } from '@hindsight/core';
import { zipSync } from 'fflate';
import { ensureZstd, zstdCompress } from '../src/zstd.ts';

export class Fixtures {
  readonly dir = mkdtempSync(join(tmpdir(), 'hindsight-import-'));

  /** Writes `text` (or bytes) as `name`. */
  file(name: string, text: string | Uint8Array): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  gz(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, gzipSync(Buffer.from(text)));
    return path;
  }

  zip(name: string, members: Record<string, string>): string {
    const path = join(this.dir, name);
    const files: Record<string, Uint8Array> = {};
    for (const [member, text] of Object.entries(members)) files[member] = new TextEncoder().encode(text);
    writeFileSync(path, zipSync(files));
    return path;
  }

  async zst(name: string, text: string): Promise<string> {
    await ensureZstd();
    const path = join(this.dir, name);
    writeFileSync(path, zstdCompress(new TextEncoder().encode(text), 3));
    return path;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Decimal strings of a price column, for readable assertions. */
export function decimals(column: Float64Array, scale: number): string[] {
  return Array.from(column, (ticks) => ticksToDecimalString(ticks, scale));
}

/** ISO text of epoch ms. */
export const iso = (ms: number) => new Date(ms).toISOString();

/** Epoch ms of ISO text. */
export const ms = (text: string) => Date.parse(text);
