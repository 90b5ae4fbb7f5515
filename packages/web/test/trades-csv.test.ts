import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvField, TRADE_FIELDS, type TradeRecord, tradesCsv } from '../src/components/trades-csv.ts';

/** The run page's trades CSV carries the trades file's exact values, in the spec's column order. */
describe('trades CSV', () => {
  const closed: TradeRecord = {
    id: '0000000001',
    state: 'Closed',
    instrument_symbol: 'C:BTCUSD',
    open_price: '42000.123456789',
    base_open_price: '42000',
    open_slippage_bps: '0',
    close_price: '42100.5',
    base_close_price: '42100.5',
    close_slippage_bps: '0',
    entry_commission: '0.0105',
    exit_commission: '0.01052512',
    units: '0.01',
    direction: 'Long',
    opened_at: 1704067200000,
    opened_by_order_id: 'o-1',
    closed_at: 1704070800000,
    closed_by_order_id: 'o-2',
    realized_pnl: '1.00376543211',
    close_reason: 'Normal',
  };
  const open: TradeRecord = {
    id: '0000000002',
    state: 'Open',
    instrument_symbol: 'C:BTCUSD',
    open_price: '42100.5',
    units: '0.02',
    direction: 'Short',
    opened_at: 1704070800000,
    opened_by_order_id: 'o-2',
  };

  test('a header of the file fields, then each lot with exact strings and empty omitted cells', () => {
    const lines = tradesCsv([closed, open]).split('\r\n');
    assert.equal(lines[0], TRADE_FIELDS.join(','));
    assert.equal(
      lines[1],
      '0000000001,Closed,C:BTCUSD,42000.123456789,42000,0,42100.5,42100.5,0,0.0105,0.01052512,0.01,Long,1704067200000,o-1,1704070800000,o-2,1.00376543211,Normal',
    );
    assert.equal(lines[2], '0000000002,Open,C:BTCUSD,42100.5,,,,,,,,0.02,Short,1704070800000,o-2,,,,');
    assert.equal(lines[3], '', 'the last record ends with CRLF');
    assert.equal(lines.length, 4);
  });

  test('the columns follow the spec order and cover every field', () => {
    assert.deepEqual(Object.keys(closed).sort(), [...TRADE_FIELDS].sort());
    assert.equal(TRADE_FIELDS[0], 'id');
    assert.equal(TRADE_FIELDS.at(-1), 'close_reason');
  });

  test('fields that need it are quoted, quotes doubled (RFC 4180)', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(0), '0');
  });

  test('no trades is a header only', () => {
    assert.equal(tradesCsv([]), `${TRADE_FIELDS.join(',')}\r\n`);
  });
});
