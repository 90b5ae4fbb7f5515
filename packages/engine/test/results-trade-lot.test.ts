import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec } from '@hindsight/core';
import { closeLot, formatTradeId, lotCommission, openLot, splitLot } from '../src/index.ts';
import { writeClosedLot, writeOpenLot } from '../src/positions/trade-lot.ts';

const opened = () =>
  openLot({
    id: formatTradeId(7),
    instrumentSymbol: 'F:EURUSD',
    direction: 'Short',
    units: '10000',
    openPrice: '1.10005',
    baseOpenPrice: '1.10000',
    openSlippageBps: '0.5',
    entryCommission: '0.44002',
    openedAt: 1_704_067_200_000,
    openedByOrderId: 'ord-1',
  });

const CLOSE_FIELDS = [
  'close_price',
  'base_close_price',
  'close_slippage_bps',
  'exit_commission',
  'closed_at',
  'closed_by_order_id',
  'realized_pnl',
  'close_reason',
];

describe('trade lots', () => {
  it('zero-pads ids so string order is creation order (decision 7)', () => {
    assert.equal(formatTradeId(1), '000000001');
    const ids = [1, 2, 9, 10, 11, 99, 100, 123456, 999_999_999].map(formatTradeId);
    assert.deepEqual([...ids].sort(), ids);
    assert.throws(() => formatTradeId(0), RangeError);
    assert.throws(() => formatTradeId(1e9), RangeError);
    assert.throws(() => formatTradeId(1.5), RangeError);
  });

  it('an open lot has exactly the open-side fields, canonical decimals', () => {
    const lot = opened();
    assert.deepEqual(lot, {
      id: '000000007',
      state: 'Open',
      instrument_symbol: 'F:EURUSD',
      open_price: '1.10005',
      base_open_price: '1.1',
      open_slippage_bps: '0.5',
      entry_commission: '0.44002',
      units: '10000',
      direction: 'Short',
      opened_at: 1_704_067_200_000,
      opened_by_order_id: 'ord-1',
    });
    for (const field of CLOSE_FIELDS) assert.equal(field in lot, false, field);
  });

  it('omits a zero commission and absent optional inputs (decision 6)', () => {
    const lot = openLot({
      id: formatTradeId(1),
      instrumentSymbol: 'C:BTCUSD',
      direction: 'Long',
      units: '0.5',
      openPrice: '42000',
      entryCommission: '0.000',
      openedAt: 1,
      openedByOrderId: 'a',
    });
    assert.equal('entry_commission' in lot, false);
    assert.equal('base_open_price' in lot, false);
    assert.equal('open_slippage_bps' in lot, false);
    const closed = closeLot(lot, {
      closePrice: '43000',
      exitCommission: new Dec(0),
      closedAt: 2,
      closedByOrderId: 'b',
      realizedPnl: '500',
      closeReason: 'EndOfBacktest',
    });
    assert.equal('exit_commission' in closed, false);
    assert.equal(closed.close_reason, 'EndOfBacktest');
  });

  it('closing returns a new record with the close-side fields and leaves the open one untouched', () => {
    const lot = opened();
    const closed = closeLot(lot, {
      closePrice: '1.09',
      baseClosePrice: '1.08995',
      closeSlippageBps: '0.5',
      exitCommission: '0.436',
      closedAt: 1_704_070_800_000,
      closedByOrderId: 'ord-2',
      realizedPnl: '100.5000',
      closeReason: 'Liquidation',
    });
    assert.equal(lot.state, 'Open');
    assert.equal('closed_at' in lot, false);
    assert.equal(closed.state, 'Closed');
    assert.equal(closed.id, lot.id);
    assert.equal(closed.realized_pnl, '100.5');
    assert.equal(closed.exit_commission, '0.436');
    assert.equal(closed.closed_at, 1_704_070_800_000);
    assert.equal(lotCommission(closed).toString(), '0.87602');
    assert.equal(lotCommission(lot).toString(), '0.44002');
    assert.throws(() => closeLot(lot, { ...closedInput(), closedAt: 0 }), RangeError);
    assert.throws(() => closeLot(closed as never, closedInput()), RangeError);
  });

  it('splits an open lot, sharing the entry commission exactly', () => {
    const { detached, remainder } = splitLot(opened(), '3000', formatTradeId(8));
    assert.equal(detached.id, '000000008');
    assert.equal(remainder.id, '000000007');
    assert.equal(detached.units, '3000');
    assert.equal(remainder.units, '7000');
    assert.equal(
      new Dec(detached.entry_commission as string).plus(remainder.entry_commission as string).toString(),
      '0.44002',
    );
    assert.equal(detached.entry_commission, '0.132006');
    assert.throws(() => splitLot(opened(), '10000', formatTradeId(9)), RangeError);
    assert.throws(() => splitLot(opened(), '0', formatTradeId(9)), RangeError);
  });

  it('refuses non-positive units', () => {
    assert.throws(
      () =>
        openLot({
          id: '1',
          instrumentSymbol: 'X',
          direction: 'Long',
          units: '-1',
          openPrice: '1',
          openedAt: 0,
          openedByOrderId: 'a',
        }),
      RangeError,
    );
  });
});

function closedInput() {
  return {
    closePrice: '1',
    closedAt: 1_704_070_800_000,
    closedByOrderId: 'x',
    realizedPnl: '0',
    closeReason: 'Normal' as const,
  };
}

describe('lot records written from texts', () => {
  const ORDER = [
    'id',
    'state',
    'instrument_symbol',
    'open_price',
    'units',
    'direction',
    'opened_at',
    'opened_by_order_id',
    'base_open_price',
    'open_slippage_bps',
    'entry_commission',
    'close_price',
    'closed_at',
    'closed_by_order_id',
    'realized_pnl',
    'close_reason',
    'base_close_price',
    'close_slippage_bps',
    'exit_commission',
  ];

  it('keep one key order, with every optional field present or absent (and zero commissions omitted)', () => {
    for (let mask = 0; mask < 256; mask++) {
      const pick = (bit: number, text: string) => ((mask >> bit) & 1 ? text : undefined);
      const zeroOr = (bit: number, text: string) => ((mask >> bit) & 1 ? text : '0');
      const open = writeOpenLot({
        id: '000000001',
        instrumentSymbol: 'C:BTCUSD',
        direction: 'Long',
        units: '0.5',
        openPrice: '42000.5',
        baseOpenPrice: pick(0, '42000'),
        openSlippageBps: pick(1, '0.5'),
        entryCommission: mask & 64 ? zeroOr(2, '2.1') : pick(2, '2.1'),
        openedAt: 1_704_067_200_000,
        openedByOrderId: 'ord-000000001',
      });
      const closed = writeClosedLot(open, {
        closePrice: '42100',
        baseClosePrice: pick(3, '42102'),
        closeSlippageBps: pick(4, '0.5'),
        exitCommission: mask & 128 ? zeroOr(5, '2.2') : pick(5, '2.2'),
        closedAt: 1_704_067_260_000,
        closedByOrderId: 'ord-000000002',
        realizedPnl: '49.75',
        closeReason: 'Normal',
      });
      for (const lot of [open, closed]) {
        const keys = Object.keys(lot);
        assert.deepEqual(
          keys,
          ORDER.filter((k) => keys.includes(k)),
          `mask ${mask}`,
        );
        for (const value of Object.values(lot))
          assert.ok(value !== undefined && value !== '0', `mask ${mask}`);
      }
      assert.equal(Object.keys(open).length, 8 + ((mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1)));
    }
  });
});
