import { DataDirLockedError, SettingsError } from '@hindsight/platform';

/** Known startup failures print one line; anything else prints its stack, since it is a bug. */
export function failAndExit(error: unknown): never {
  if (error instanceof SettingsError || error instanceof DataDirLockedError) {
    console.error(`hindsight: ${error.message}`);
    process.exit(2);
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    console.error(
      `hindsight: cannot listen (${code}): ${(error as Error).message}. Choose another HINDSIGHT_PORT or HINDSIGHT_HOST.`,
    );
    process.exit(2);
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === '3D000' || code === '28P01') {
    console.error(`hindsight: DATABASE_URL: cannot use the PostgreSQL server (${(error as Error).message}).`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}
