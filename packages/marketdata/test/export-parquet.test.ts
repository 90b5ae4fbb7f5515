import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { BarStore } from '../src/bar-store.ts';
import { exportParquet } from '../src/export/parquet.ts';
import { BUNDLED_SAMPLE_DIR, importFiles } from '../src/import/index.ts';
import { MemoryObjectStore } from '../src/object-store.ts';

describe('Parquet export', () => {
  it('writes stored bars with exact decimal columns that a Parquet reader reads back', async () => {
    const store = new BarStore(new MemoryObjectStore());
    const imported = await importFiles(
      'forex-sample',
      [join(BUNDLED_SAMPLE_DIR, 'forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst')],
      {
        symbol: 'F:EURUSD',
      },
    );
    await store.writeBars('F:EURUSD', imported.bars);
    const window = { start: Date.parse('2014-05-02T00:00:00Z'), end: Date.parse('2014-05-03T00:00:00Z') };
    const exported = await exportParquet(store, 'F:EURUSD', window);
    assert.equal(exported.kind, 'bidask');

    const file = new Uint8Array(exported.bytes).buffer as ArrayBuffer;
    const metadata = parquetMetadata(file);
    const priceColumn = metadata.schema.find((s) => s.name === 'bid_open');
    assert.equal(priceColumn?.converted_type, 'DECIMAL');
    assert.equal(priceColumn?.scale, 5);
    const rows = await parquetReadObjects({ file, compressors });
    assert.equal(rows.length, exported.rows);
    const inWindow = [...imported.bars.time].filter((t) => t >= window.start && t < window.end).length;
    assert.equal(rows.length, inWindow);
    const first = rows[0] as Record<string, unknown>;
    assert.equal(new Date(first.time as Date).toISOString(), '2014-05-02T00:00:00.000Z');
    // Raw row: 2014-05-02T00:00:00Z,1.38694,1.38694,1.38683,1.38684,1.38705,1.38706,1.38697,1.38699
    assert.deepEqual(
      ['bid_open', 'bid_high', 'bid_low', 'bid_close', 'ask_open', 'ask_high', 'ask_low', 'ask_close'].map(
        (c) => Number(first[c]).toFixed(5),
      ),
      ['1.38694', '1.38694', '1.38683', '1.38684', '1.38705', '1.38706', '1.38697', '1.38699'],
    );
  });
});
