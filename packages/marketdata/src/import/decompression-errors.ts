/**
 * Refusals of compressed input, worded as what they are: the file, its container (gzip, zstd, zip) and
 * whether the data is truncated or corrupt, rather than a library's own words (zstd-wasm calls every
 * decompression failure "Failed to compress").
 */
import { ZstdDecompressionError } from '../zstd.ts';
import { ImportError } from './errors.ts';

export type Container = 'gzip' | 'zstd' | 'zip';

/** zlib's codes for the two ways gzip input goes wrong. */
const GZIP_REASONS: Record<string, string> = {
  Z_BUF_ERROR: 'the data is truncated',
  Z_DATA_ERROR: 'the data is corrupt or not gzip',
};

function reasonOf(container: Container, error: unknown): string {
  if (error instanceof ZstdDecompressionError) return error.reason;
  const { message, code } = error as { message?: string; code?: string };
  const why = container === 'gzip' && code !== undefined ? GZIP_REASONS[code] : undefined;
  return why === undefined ? String(message) : `${why} (${message})`;
}

/** `file: cannot decompress the <container> file: <reason>`. */
export function decompressionError(path: string, container: Container, error: unknown): ImportError {
  if (error instanceof ImportError) return error;
  return new ImportError(
    path,
    undefined,
    `cannot decompress the ${container} file: ${reasonOf(container, error)}`,
  );
}
