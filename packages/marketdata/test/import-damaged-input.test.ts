/**
 * Damaged input refused in words that say what is wrong: a NUL or other control character anywhere in a
 * line of any importer's file is refused with `file:line` (never trimmed away as a blank, never skipped
 * because its column is unused), and truncated or corrupt .zst/.gz/.zip files and stored chunks are
 * reported as decompression failures naming the file.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ChunkFormatError, decodeBarChunk, encodeBarChunk } from '../src/codec/bars.ts';
import { ImportError, type ImportFormat, importFile } from '../src/import/index.ts';
import { ensureZstd, ZstdDecompressionError, zstdCompress, zstdDecompress } from '../src/zstd.ts';
import { Fixtures } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

/** A small valid file of every format: its name (some formats read hints from it) and lines. */
const VALID: Record<ImportFormat, { name: string; lines: string[] }> = {
  binance: {
    name: 'BTCUSDT-1m.csv',
    lines: [
      'open_time,open,high,low,close,volume,close_time,quote_volume,trades,taker_buy_base,taker_buy_quote,ignore',
      '1704067200000,42283.58,42298.62,42261.02,42298.61,35.92724,1704067259999,1000.0,10,1.0,500.0,0',
      '1704067260000,42298.62,42320.00,42298.61,42320.00,21.16779,1704067319999,1000.0,10,1.0,500.0,0',
    ],
  },
  histdata: {
    name: 'DAT_ASCII_EURUSD_M1_2012.csv',
    lines: [
      '20120201 000000;1.306600;1.306600;1.306560;1.306560;0',
      '20120201 000100;1.306570;1.306590;1.306470;1.306480;0',
    ],
  },
  dukascopy: {
    name: 'EURUSD_Candlestick_1_M_BID_01.01.2020-01.01.2020.csv',
    lines: [
      'Gmt time,Open,High,Low,Close,Volume',
      '01.01.2020 22:00:00.000,1.12121,1.12133,1.12118,1.12130,21.85',
      '01.01.2020 22:01:00.000,1.12130,1.12140,1.12125,1.12139,12.5',
    ],
  },
  csv: {
    name: 'ohlcv.csv',
    lines: [
      'Timestamp,Open,High,Low,Close,Volume',
      '2024-01-01T00:00:00Z,1,2,0.5,1.5,2.5',
      '2024-01-01T00:01:00Z,1.5,2,1,1.75,10',
    ],
  },
  'forex-sample': {
    name: 'fx.csv',
    lines: [
      'time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close',
      '2013-02-01T00:00:00Z,91.715,91.715,91.653,91.653,91.717,91.717,91.655,91.655',
      '2013-02-01T00:01:00Z,91.653,91.707,91.653,91.661,91.655,91.699,91.654,91.666',
    ],
  },
  ninjatrader: {
    name: 'nt.csv',
    lines: [
      'time_end,open,high,low,close,volume',
      '2011-03-01T09:01:00Z,133.9,134.01,133.9,133.98,3778',
      '2011-03-01T09:03:00Z,134,134,134,134,400',
    ],
  },
};
const FORMATS = Object.keys(VALID) as ImportFormat[];

/** Every C0 control but tab, LF and CR; DEL; and C1 controls (NEL, CSI). */
const CONTROLS = [
  ...Array.from({ length: 32 }, (_, code) => code).filter((code) => ![9, 10, 13].includes(code)),
  0x7f,
  0x85,
  0x9b,
];

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
let counter = 0;
const fileFor = (format: ImportFormat, text: string) => fx.file(`${counter++}-${VALID[format].name}`, text);

/**
 * Asserts the import of `path` is refused at `line` because of the control character `code`; `label`
 * is how the message names the source (`archive.zip!member.csv` for a zip member).
 */
async function refusedAt(
  format: ImportFormat,
  path: string,
  line: number,
  code: number,
  label = path,
): Promise<void> {
  await assert.rejects(importFile(format, path, { symbol: 'X:TEST' }), (error: unknown) => {
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(error.file, label);
    assert.equal(error.line, line, error.message);
    assert.ok(
      error.message.startsWith(`${label}:${line}: control character ${hex(code)}`),
      `${JSON.stringify(error.message)} names the character`,
    );
    return true;
  });
}

describe('control characters in market-data files', () => {
  it('every format imports its valid sample (the baseline the refusals are measured against)', async () => {
    for (const format of FORMATS) {
      const result = await importFile(format, fileFor(format, VALID[format].lines.join('\n')), {
        symbol: 'X:TEST',
      });
      assert.ok(result.bars.length > 0, format);
    }
  });

  it('a NUL inside or at the edge of a number, once trimmed as a blank, is refused with file:line', async () => {
    for (const format of FORMATS) {
      const lines = VALID[format].lines;
      const last = lines.length - 1;
      const row = lines[last] as string;
      const field = row.split(/[,;]/)[1] as string;
      for (const damaged of [
        row.replace(field, `${field}\u0000`),
        row.replace(field, `\u0000${field}`),
        row.replace(field, `${field.slice(0, 2)}\u0000${field.slice(2)}`),
      ]) {
        const path = fileFor(format, [...lines.slice(0, last), damaged].join('\n'));
        await refusedAt(format, path, last + 1, 0);
      }
    }
  });

  it('any control character, in any line (header and unused columns too), of any format', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FORMATS),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...CONTROLS),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        async (format, lineChoice, at, code, newline, finalNewline) => {
          const lines = [...VALID[format].lines];
          const index = lineChoice % lines.length;
          const line = lines[index] as string;
          const position = at % (line.length + 1);
          lines[index] = `${line.slice(0, position)}${String.fromCharCode(code)}${line.slice(position)}`;
          const path = fileFor(format, `${lines.join(newline)}${finalNewline ? newline : ''}`);
          await refusedAt(format, path, index + 1, code);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('names the character, where it is and the text around it', async () => {
    const { lines } = VALID.binance;
    const path = fileFor(
      'binance',
      [lines[0], (lines[1] as string).replace(',42283.58', ',42283.58\u0000')].join('\n'),
    );
    await assert.rejects(importFile('binance', path, { symbol: 'X:TEST' }), {
      message:
        `${path}:2: control character U+0000 (NUL) at character 23 of the line ` +
        '("...04067200000,42283.58\\u0000,42298.62,42261.02,...")' +
        '; fields hold only text, so this is a damaged or binary file',
    });
  });

  it('is found in a line that spans read chunks, in the last line, and in compressed files', async () => {
    const { lines } = VALID.binance;
    const [header, first, second] = lines as [string, string, string];
    // Plain files are read 1 MiB at a time: a header padded past that puts line 2 across a chunk border.
    const padded = `${header}${' '.repeat((1 << 20) - header.length - 10)}`;
    const across = fileFor('binance', `${padded}\n${first.replace('42298.62', '42298.62\u0000')}\n${second}`);
    await refusedAt('binance', across, 2, 0);
    const lastLine = fileFor('binance', `${header}\n${first}\n${second.replace(',0', ',\u00010')}`);
    await refusedAt('binance', lastLine, 3, 1);
    const damaged = [header, first, second.replace('42320.00', '\u001b42320.00')].join('\n');
    const gz = fx.file('ctl.csv.gz', gzipSync(Buffer.from(damaged)));
    await refusedAt('binance', gz, 3, 0x1b);
    const zst = await fx.zst('ctl.csv.zst', damaged);
    await refusedAt('binance', zst, 3, 0x1b);
    const zip = fx.zip('ctl.zip', { 'a.csv': damaged });
    await refusedAt('binance', zip, 3, 0x1b, `${zip}!a.csv`);
  });

  it('still trims real blanks (space, tab, CR) around fields', async () => {
    const { lines } = VALID.csv;
    const spaced = lines.map((line, i) => (i === 0 ? line : line.split(',').join(' \t, ')));
    const result = await importFile('csv', fileFor('csv', spaced.join('\r\n')), { symbol: 'X:TEST' });
    assert.equal(result.bars.length, 2);
  });
});

const regexpOf = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A zstd frame that does not record its content size (as `cat x | zstd` writes): raw blocks of up to
 * 128 KiB under a 2 MiB window, so the decoder must be given an output bound.
 */
function unsizedZstdFrame(content: Uint8Array): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58];
  const block = 128 * 1024;
  for (let at = 0; at < content.length; at += block) {
    const size = Math.min(block, content.length - at);
    const last = at + size >= content.length ? 1 : 0;
    const header = last | (size << 3);
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff);
    for (let i = at; i < at + size; i++) parts.push(content[i] as number);
  }
  return Uint8Array.from(parts);
}

describe('decompression failures', () => {
  // A header and one bar repeated (identical rows are duplicates, not errors): long enough to cut.
  const [header, row] = VALID.binance.lines as [string, string];
  const text = `${header}\n${`${row}\n`.repeat(2000)}`;

  it('a truncated, corrupt or foreign .zst is a decompression error naming the file', async () => {
    await ensureZstd();
    const packed = zstdCompress(new TextEncoder().encode(text), 3);
    const truncated = fx.file('cut.csv.zst', packed.subarray(0, Math.floor(packed.length / 2)));
    await assert.rejects(importFile('binance', truncated, { symbol: 'X' }), {
      message: `${truncated}: cannot decompress the zstd file: the data is truncated (it ends inside a frame)`,
    });
    const corrupt = packed.slice();
    corrupt.fill(0xff, 20, 60);
    const bad = fx.file('corrupt.csv.zst', corrupt);
    await assert.rejects(importFile('binance', bad, { symbol: 'X' }), {
      message: new RegExp(`^${regexpOf(bad)}: cannot decompress the zstd file: the data is corrupt`),
    });
    const foreign = fx.file('foreign.zst', 'not zstd at all');
    await assert.rejects(importFile('binance', foreign, { symbol: 'X' }), {
      message: `${foreign}: cannot decompress the zstd file: not zstd data (unknown frame header)`,
    });
  });

  it('a frame without its content size still decompresses (growing output bounds)', async () => {
    const big = `${VALID.binance.lines[0]}\n${`${VALID.binance.lines[1]}\n`.repeat(20_000)}`;
    const bytes = new TextEncoder().encode(big);
    assert.ok(bytes.length > 1 << 20, 'more than the decoder allots without a bound');
    const path = fx.file('unsized.csv.zst', unsizedZstdFrame(bytes));
    // Every data line is the same bar: it was decompressed and read to the end.
    const result = await importFile('binance', path, { symbol: 'X' });
    assert.equal(result.summary.rows, 20_000);
    assert.equal(result.bars.length, 1);
  });

  it('a truncated or corrupt .gz is a decompression error naming the file', async () => {
    const packed = gzipSync(Buffer.from(text));
    const truncated = fx.file('cut.csv.gz', packed.subarray(0, Math.floor(packed.length / 2)));
    await assert.rejects(importFile('binance', truncated, { symbol: 'X' }), {
      message: `${truncated}: cannot decompress the gzip file: the data is truncated (unexpected end of file)`,
    });
    const corrupt = Buffer.from(packed);
    corrupt.fill(0xff, 20, 60);
    const bad = fx.file('corrupt.csv.gz', corrupt);
    await assert.rejects(importFile('binance', bad, { symbol: 'X' }), {
      message: new RegExp(
        `^${regexpOf(bad)}: cannot decompress the gzip file: the data is corrupt or not gzip \\(`,
      ),
    });
  });

  it('a truncated .zip is a decompression error naming the file', async () => {
    const zip = fx.zip('whole.zip', { 'a.csv': text });
    const cut = join(fx.dir, 'cut.zip');
    const bytes = readFileSync(zip);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await assert.rejects(importFile('binance', cut, { symbol: 'X' }), {
      message: new RegExp(`^${regexpOf(cut)}: cannot decompress the zip file: `),
    });
  });

  it('zstdDecompress itself says decompression, never "Failed to compress"', async () => {
    await ensureZstd();
    const packed = zstdCompress(new TextEncoder().encode(text), 3);
    assert.throws(
      () => zstdDecompress(packed.subarray(0, packed.length - 4)),
      (error: unknown) => {
        assert.ok(error instanceof ZstdDecompressionError);
        assert.equal(error.code, 72);
        assert.equal(
          error.message,
          'zstd decompression failed: the data is truncated (it ends inside a frame)',
        );
        return true;
      },
    );
  });

  it('a stored chunk whose payload is cut short is a ChunkFormatError saying decompression failed', async () => {
    await ensureZstd();
    const path = fileFor('binance', VALID.binance.lines.join('\n'));
    const { bars } = await importFile('binance', path, { symbol: 'X' });
    const chunk = encodeBarChunk(bars);
    assert.throws(
      () => decodeBarChunk(chunk.subarray(0, chunk.length - 3), 'X'),
      (error: unknown) => {
        assert.ok(error instanceof ChunkFormatError, String(error));
        assert.match(error.message, /^HSB1 chunk: zstd decompression failed: the data is truncated/);
        return true;
      },
    );
  });
});
