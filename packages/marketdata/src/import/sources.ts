/**
 * Opening downloaded files as text: plain, `.gz` (node zlib, streamed), `.zip` (fflate; every CSV member
 * is a source of its own) and `.zst` (the bundled samples), and walking their lines without copying
 * them: a line is handed over as offsets into a decoded chunk.
 */
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { unzipSync } from 'fflate';
import { ensureZstd, ZSTD_DST_SIZE_TOO_SMALL, ZstdDecompressionError, zstdDecompress } from '../zstd.ts';
import { controlCharacterAt, controlCharacterReason } from './control-characters.ts';
import { decompressionError } from './decompression-errors.ts';
import { ImportError } from './errors.ts';

export interface SourceProgress {
  /** The source being read (`file` or `archive.zip!member.csv`). */
  source: string;
  /** Bytes of the file on disk read so far, and its size (compressed bytes for .gz/.zip/.zst). */
  bytesDone: number;
  bytesTotal: number;
}

export type ProgressListener = (progress: SourceProgress) => void;

/** One text source: a file, or one CSV member of a zip. */
export interface TextSource {
  /** How messages name it: the path as given, or `path!member` for a zip member. */
  readonly label: string;
  /** File name (or member name) without directories, for format hints such as BID/ASK. */
  readonly name: string;
  /** Decoded text in chunks; lines may span chunks. */
  chunks(onProgress?: ProgressListener): AsyncIterable<string>;
}

const READ_CHUNK = 1 << 20;
const TEXT_CHUNK = 4 << 20;

export type Compression = 'none' | 'gzip' | 'zip' | 'zstd';

/** Compression of a file by its name, then by its magic bytes. */
export async function detectCompression(path: string): Promise<Compression> {
  const lower = path.toLowerCase();
  if (lower.endsWith('.gz')) return 'gzip';
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.zst') || lower.endsWith('.zstd')) return 'zstd';
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
    if (bytesRead >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
    if (bytesRead >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
    return 'none';
  } finally {
    await handle.close();
  }
}

/**
 * UTF-8 decoding of consecutive chunks (a character may span two), with a fast path while the input
 * is ASCII (market data nearly always is): latin1 slicing then gives the same text, several times
 * faster. A leading byte-order mark is dropped.
 */
class Utf8Chunks {
  private decoder: TextDecoder | undefined;
  private first = true;

  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.first && bytes.length > 0) {
      this.first = false;
      if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
        bytes = bytes.subarray(3);
    }
    if (this.decoder === undefined && isAscii(bytes)) {
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
    this.decoder ??= new TextDecoder('utf-8');
    return this.decoder.decode(bytes, { stream: true });
  }

  end(): string {
    return this.decoder === undefined ? '' : this.decoder.decode();
  }
}

async function* decodeStream(
  stream: AsyncIterable<Buffer>,
  label: string,
  total: number,
  counted: { bytes: number } | undefined,
  onProgress?: ProgressListener,
): AsyncIterable<string> {
  const decoder = new Utf8Chunks();
  let plain = 0;
  for await (const chunk of stream) {
    if (counted === undefined) plain += chunk.length;
    const text = decoder.decode(chunk);
    onProgress?.({ source: label, bytesDone: counted?.bytes ?? plain, bytesTotal: total });
    if (text.length > 0) yield text;
  }
  const rest = decoder.end();
  if (rest.length > 0) yield rest;
}

function* decodeBytes(
  bytes: Uint8Array,
  label: string,
  total: number,
  onProgress?: ProgressListener,
): Iterable<string> {
  const decoder = new Utf8Chunks();
  for (let at = 0; at < bytes.length; at += TEXT_CHUNK) {
    const end = Math.min(bytes.length, at + TEXT_CHUNK);
    const text = decoder.decode(bytes.subarray(at, end)) + (end === bytes.length ? decoder.end() : '');
    onProgress?.({ source: label, bytesDone: Math.round((end / bytes.length) * total), bytesTotal: total });
    if (text.length > 0) yield text;
  }
}

/** Opens a file as one or more text sources; throws ImportError when it cannot be read or unpacked. */
export async function openSources(path: string): Promise<TextSource[]> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a regular file');
    size = info.size;
  } catch (error) {
    throw new ImportError(path, undefined, `cannot read: ${(error as Error).message}`);
  }
  const compression = await detectCompression(path);
  const name = basename(path).replace(/\.(gz|zst|zstd)$/i, '');
  if (compression === 'none' || compression === 'gzip') {
    return [
      {
        label: path,
        name,
        chunks(onProgress) {
          const raw = createReadStream(path, { highWaterMark: READ_CHUNK });
          if (compression === 'none') {
            return decodeStream(raw as AsyncIterable<Buffer>, path, size, undefined, onProgress);
          }
          const counted = { bytes: 0 };
          raw.on('data', (chunk) => {
            counted.bytes += chunk.length;
          });
          const gunzip = createGunzip({ chunkSize: READ_CHUNK });
          raw.on('error', (error) => gunzip.destroy(error));
          raw.pipe(gunzip);
          return rethrowAs(path, decodeStream(gunzip, path, size, counted, onProgress));
        },
      },
    ];
  }
  const bytes = await readFile(path);
  if (compression === 'zstd') {
    const text = await decompressZstd(bytes, path);
    return [
      { label: path, name, chunks: (onProgress) => toAsync(decodeBytes(text, path, size, onProgress)) },
    ];
  }
  let members: Record<string, Uint8Array>;
  const names: string[] = [];
  try {
    members = unzipSync(bytes, {
      filter: (file) => {
        names.push(file.name);
        return isCsvMember(file.name);
      },
    });
  } catch (error) {
    throw decompressionError(path, 'zip', error);
  }
  const csv = Object.keys(members).sort();
  if (csv.length === 0) {
    throw new ImportError(
      path,
      undefined,
      `no CSV member in the zip (members: ${names.length > 0 ? names.join(', ') : 'none'})`,
    );
  }
  return csv.map((member) => {
    const label = `${path}!${member}`;
    const content = members[member] ?? new Uint8Array(0);
    return {
      label,
      name: basename(member),
      chunks: (onProgress?: ProgressListener) => toAsync(decodeBytes(content, label, size, onProgress)),
    };
  });
}

/**
 * Frames written from a stream (`cat x | zstd`) do not record their size, and the wasm decoder needs an
 * output bound: when it is too small, retry with growing bounds; any other failure (truncated, corrupt,
 * not zstd) refuses the file at once.
 */
async function decompressZstd(bytes: Uint8Array, path: string): Promise<Uint8Array> {
  await ensureZstd();
  let last: unknown;
  for (const bound of [undefined, 16, 64, 256]) {
    try {
      return bound === undefined
        ? zstdDecompress(bytes)
        : zstdDecompress(bytes, Math.min(bytes.length * bound, 0x7fff_0000));
    } catch (error) {
      last = error;
      if (!(error instanceof ZstdDecompressionError && error.code === ZSTD_DST_SIZE_TOO_SMALL)) break;
    }
  }
  throw decompressionError(path, 'zstd', last);
}

function isCsvMember(name: string): boolean {
  if (name.endsWith('/') || name.startsWith('__MACOSX/') || basename(name).startsWith('._')) return false;
  return /\.(csv|tsv)$/i.test(name);
}

async function* toAsync(chunks: Iterable<string>): AsyncIterable<string> {
  yield* chunks;
}

async function* rethrowAs(label: string, chunks: AsyncIterable<string>): AsyncIterable<string> {
  try {
    yield* chunks;
  } catch (error) {
    throw decompressionError(label, 'gzip', error);
  }
}

/**
 * Called per non-empty line with the text holding it, the line's [start, end) (without `\r\n`) and its
 * 1-based line number.
 */
export type LineHandler = (text: string, start: number, end: number, line: number) => void;

/**
 * Feeds every non-empty line of a source to `onLine`. Returns the number of lines in the source
 * (empty ones included), so callers can name the line after the last. A line holding a control
 * character is refused before it reaches `onLine` (control-characters.ts): each chunk is searched once,
 * so the lines themselves cost one comparison.
 */
export async function forEachLine(
  source: TextSource,
  onLine: LineHandler,
  onProgress?: ProgressListener,
): Promise<number> {
  let carry = '';
  let line = 0;
  let inHandler = false;
  const refuse = (text: string, start: number, end: number, at: number): never => {
    throw new ImportError(source.label, line, controlCharacterReason(text, start, end, at));
  };
  /** A line kept whole in its own string (it spans chunks, or ends the source). */
  const lastOrJoined = (joined: string) => {
    let end = joined.length;
    if (end > 0 && joined.charCodeAt(end - 1) === 13) end--;
    const bad = controlCharacterAt(joined);
    if (bad < end) refuse(joined, 0, end, bad);
    if (end > 0) onLine(joined, 0, end, line);
  };
  try {
    for await (const text of source.chunks(onProgress)) {
      inHandler = true;
      let start = 0;
      if (carry.length > 0) {
        // The line that spans chunks is handed over on its own, so that the chunk itself stays a flat string.
        const newline = text.indexOf('\n');
        if (newline < 0) {
          carry += text;
          inHandler = false;
          continue;
        }
        line++;
        lastOrJoined(carry + text.slice(0, newline));
        carry = '';
        start = newline + 1;
      }
      const bad = controlCharacterAt(text, start);
      for (;;) {
        const newline = text.indexOf('\n', start);
        if (newline < 0) break;
        line++;
        let end = newline;
        if (end > start && text.charCodeAt(end - 1) === 13) end--;
        if (bad < newline) refuse(text, start, end, bad);
        if (end > start) onLine(text, start, end, line);
        start = newline + 1;
      }
      carry = start < text.length ? text.slice(start) : '';
      inHandler = false;
    }
  } catch (error) {
    if (inHandler || error instanceof ImportError) throw error;
    throw new ImportError(source.label, line + 1, `cannot read: ${(error as Error).message}`);
  }
  if (carry.length > 0) {
    line++;
    lastOrJoined(carry);
  }
  return line;
}
