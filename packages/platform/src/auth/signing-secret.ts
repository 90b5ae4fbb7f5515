import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The secret that signs session tokens and pagination cursors: HINDSIGHT_SECRET when set, otherwise
 * generated once and kept in the data dir so sessions survive restarts.
 */
export function loadSigningSecret(dataDir: string, configured: string | undefined): Uint8Array {
  if (configured !== undefined) return new TextEncoder().encode(configured);
  const path = join(dataDir, 'secret');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return new TextEncoder().encode(readFileSync(path, 'utf8').trim());
}
