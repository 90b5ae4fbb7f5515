import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import {
  Account,
  type BookFill,
  type ClosedTradeLot,
  type FillOutcome,
  PositionBook,
  PositionBookError,
  proRata,
} from '../src/index.ts';
import { scaledOfText, scaledText } from '../src/numbers/scaled-decimal.ts';

const BTCUSD = { symbol: 'C:BTCUSD', underlying: 'BTC', denomination: 'USD' };
const EURUSD = { symbol: 'F:EURUSD', underlying: 'EUR', denomination: 'USD' };
const USDJPY = { symbol: 'F:USDJPY', underlying: 'USD', denomination: 'JPY' };
const EURJPY = { symbol: 'F:EURJPY', underlying: 'EUR', denomination: 'JPY' };

const T0 = 1_704_067_200_000; // 2024-01-01T00:00:00Z
const s = (d: Dec) => toDecimalString(d);

let orderSeq = 0;
function fill(
  symbol: string,
  side: 'BUY' | 'SELL',
  units: string,
  price: string,
  extra: Partial<Omit<BookFill, 'units' | 'price'>> & { commission?: string } = {},
): BookFill {
  orderSeq += 1;
  const { commission, ...rest } = extra;
  return {
    orderId: `ord-${orderSeq}`,
    symbol,
    side,
    units: new Dec(units),
    price: new Dec(price),
    basePrice: new Dec(price),
    slippageBps: new Dec(0),
    commissionUsd: new Dec(commission ?? '0'),
    time: T0 + orderSeq * 60_000,
    ...rest,
  };
}

const mark = (book: PositionBook, symbol: string, bid: string, ask: string) =>
  book.mark(symbol, new Dec(bid), new Dec(ask));

const events = (o: FillOutcome) => o.events.map((e) => `${e.type} ${e.position.id}`);

describe('netting: one position per symbol', () => {
  it('makes no position events when asked for none, and the same books', () => {
    const fills = [
      fill('C:BTCUSD', 'BUY', '1', '100', { commission: '0.1' }),
      fill('C:BTCUSD', 'SELL', '3', '110', { commission: '0.33' }),
    ];
    const run = (withEvents: boolean) => {
      const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
      const outcomes = fills.map((f) => book.applyFill(withEvents ? f : { ...f, events: false }));
      return { book, outcomes };
    };
    const quiet = run(false);
    const full = run(true);
    assert.deepEqual(
      quiet.outcomes.map((o) => o.events.length),
      [0, 0],
    );
    assert.deepEqual(
      full.outcomes.map((o) => events(o)),
      [['POSITION_OPENED pos-000000001'], ['POSITION_CLOSED pos-000000001', 'POSITION_OPENED pos-000000002']],
    );
    const figures = (o: FillOutcome) => [o.closedLots, o.openedLots, o.realizedPnlUsd.toString()];
    assert.deepEqual(quiet.outcomes.map(figures), full.outcomes.map(figures));
    assert.deepEqual(quiet.book.lots(), full.book.lots());
  });

  it('adds, reduces FIFO (splitting a lot), and reverses into a new position', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    const account = new Account({ initialCapital: '1000', unrealized: book });
    const book1 = (o: FillOutcome) => {
      account.bookFill(o);
      account.assertIdentity();
      return o;
    };

    const o1 = book1(book.applyFill(fill('C:BTCUSD', 'BUY', '1', '100', { commission: '0.1' })));
    assert.deepEqual(events(o1), ['POSITION_OPENED pos-000000001']);
    assert.equal(o1.openedLots[0]?.id, '000000001');
    assert.equal(o1.openedLots[0]?.entry_commission, '0.1');

    const o2 = book1(book.applyFill(fill('C:BTCUSD', 'BUY', '3', '110', { commission: '0.33' })));
    assert.deepEqual(events(o2), ['POSITION_MODIFIED pos-000000001']);
    mark(book, 'C:BTCUSD', '120', '121');
    const p = book.positionOf('C:BTCUSD');
    assert.ok(p);
    // (100 x 1 + 110 x 3) / 4 = 107.5; long marks at the bid: (120 - 107.5) x 4 = 50.
    assert.equal(p.view.quantity, '4');
    assert.equal(p.view.average_entry_price, '107.5');
    assert.equal(p.view.current_price, '120');
    assert.equal(p.view.unrealized_pnl, '50');
    assert.equal(p.view.side, 'LONG');

    // Sell 2 at 120: lot 1 closes whole (+20), 1 of lot 2's 3 units splits off as lot 3 (+10).
    const o3 = book1(book.applyFill(fill('C:BTCUSD', 'SELL', '2', '120', { commission: '0.24' })));
    assert.deepEqual(events(o3), ['POSITION_MODIFIED pos-000000001']);
    assert.deepEqual(
      o3.closedLots.map((l) => [l.id, l.units, l.realized_pnl, l.exit_commission, l.entry_commission]),
      [
        ['000000001', '1', '20', '0.12', '0.1'],
        ['000000003', '1', '10', '0.12', '0.11'],
      ],
    );
    assert.equal(s(o3.realizedPnlUsd), '30');
    const after3 = book.positionOf('C:BTCUSD');
    assert.equal(after3?.view.quantity, '2');
    assert.equal(after3?.view.realized_pnl, '30');
    // Only lot 2's remaining units (at 110) are open now.
    assert.equal(after3?.view.average_entry_price, '110');
    assert.equal(after3?.openLots[0]?.entry_commission, '0.22');

    // Sell 5 at 90: closes the remaining 2 (-40), opens a short of 3 as a new position.
    const o4 = book1(book.applyFill(fill('C:BTCUSD', 'SELL', '5', '90', { commission: '0.45' })));
    assert.deepEqual(events(o4), ['POSITION_CLOSED pos-000000001', 'POSITION_OPENED pos-000000002']);
    const closedEvent = o4.events[0]?.position;
    assert.equal(closedEvent?.view.quantity, '0');
    assert.equal(closedEvent?.view.realized_pnl, '-10');
    assert.equal(closedEvent?.view.unrealized_pnl, '0');
    assert.equal(closedEvent?.view.average_entry_price, '110');
    assert.deepEqual(
      o4.closedLots.map((l) => [l.id, l.realized_pnl, l.exit_commission]),
      [['000000002', '-40', '0.18']],
    );
    assert.equal(o4.openedLots[0]?.id, '000000004');
    assert.equal(o4.openedLots[0]?.direction, 'Short');
    assert.equal(o4.openedLots[0]?.units, '3');
    assert.equal(o4.openedLots[0]?.entry_commission, '0.27');
    assert.equal(book.position('pos-000000001'), undefined);

    // Short marks at the ask: (90 - 86) x 3 = 12.
    mark(book, 'C:BTCUSD', '85', '86');
    const short = book.position('pos-000000002');
    assert.equal(short?.view.side, 'SHORT');
    assert.equal(short?.view.current_price, '86');
    assert.equal(short?.view.unrealized_pnl, '12');
    assert.equal(short?.view.realized_pnl, '0');

    assert.deepEqual(
      book.lots().map((l) => [l.id, l.state, l.direction, l.units]),
      [
        ['000000001', 'Closed', 'Long', '1'],
        ['000000002', 'Closed', 'Long', '2'],
        ['000000003', 'Closed', 'Long', '1'],
        ['000000004', 'Open', 'Short', '3'],
      ],
    );
    // Balance: 1000 + (20 + 10 - 40) - (0.1 + 0.33 + 0.24 + 0.45) = 988.88; equity + 12.
    assert.equal(s(account.balance), '988.88');
    assert.equal(s(account.equity), '1000.88');
    assert.deepEqual(account.view(new Dec('25')), {
      balance: '988.88',
      equity: '1000.88',
      margin_used: '25',
      margin_available: '975.88',
      unrealized_pnl: '12',
      currency: 'USD',
    });
  });

  it('a fill that exactly flattens closes the position; the next fill opens a new one', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [EURUSD] });
    book.applyFill(fill('F:EURUSD', 'SELL', '1000', '1.1'));
    const flat = book.applyFill(fill('F:EURUSD', 'BUY', '1000', '1.09'));
    assert.deepEqual(events(flat), ['POSITION_CLOSED pos-000000001']);
    assert.equal(flat.openedLots.length, 0);
    // Short: 1000 x (1.1 - 1.09) = 10.
    assert.equal(flat.closedLots[0]?.realized_pnl, '10');
    assert.deepEqual(book.positions(), []);
    const again = book.applyFill(fill('F:EURUSD', 'BUY', '1', '1.09'));
    assert.deepEqual(events(again), ['POSITION_OPENED pos-000000002']);
    // positionId means nothing under netting.
    const ignored = book.applyFill(fill('F:EURUSD', 'BUY', '1', '1.09', { positionId: 'pos-000000009' }));
    assert.deepEqual(events(ignored), ['POSITION_MODIFIED pos-000000002']);
  });

  it('writes the close side of the fill on the lot, with the caller-supplied close reason', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    book.applyFill(
      fill('C:BTCUSD', 'BUY', '0.1', '42287.89775305688082', {
        basePrice: new Dec('42283.58'),
        slippageBps: new Dec('1.02114179'),
      }),
    );
    const out = book.applyFill(
      fill('C:BTCUSD', 'SELL', '0.1', '41995.8', {
        basePrice: new Dec('42000'),
        slippageBps: new Dec('0.5'),
        closeReason: 'Liquidation',
      }),
    );
    const lot = out.closedLots[0] as ClosedTradeLot;
    assert.equal(lot.base_open_price, '42283.58');
    assert.equal(lot.open_slippage_bps, '1.02114179');
    assert.equal(lot.close_price, '41995.8');
    assert.equal(lot.base_close_price, '42000');
    assert.equal(lot.close_slippage_bps, '0.5');
    assert.equal(lot.close_reason, 'Liquidation');
    assert.equal(lot.closed_by_order_id, out.orderId);
    assert.equal('exit_commission' in lot, false, 'zero commission omitted (decision 6)');
    // 0.1 x (41995.8 - 42287.89775305688082)
    assert.equal(lot.realized_pnl, '-29.209775305688082');
  });
});

describe('hedging: one position per entry fill', () => {
  it('keeps two positions on one symbol and closes one by positionId', () => {
    const book = new PositionBook({ mode: 'hedging', instruments: [EURUSD] });
    const a = book.applyFill(fill('F:EURUSD', 'BUY', '10000', '1.1'));
    const b = book.applyFill(fill('F:EURUSD', 'BUY', '5000', '1.2'));
    assert.deepEqual(events(a), ['POSITION_OPENED pos-000000001']);
    assert.deepEqual(events(b), ['POSITION_OPENED pos-000000002']);
    assert.deepEqual(
      book.positions('F:EURUSD').map((p) => [p.id, p.view.quantity]),
      [
        ['pos-000000001', '10000'],
        ['pos-000000002', '5000'],
      ],
    );

    const c = book.applyFill(fill('F:EURUSD', 'SELL', '5000', '1.15', { positionId: 'pos-000000002' }));
    assert.deepEqual(events(c), ['POSITION_CLOSED pos-000000002']);
    // 5000 x (1.15 - 1.2)
    assert.equal(c.closedLots[0]?.realized_pnl, '-250');
    assert.equal(c.closedLots[0]?.id, '000000002');
    assert.equal(book.position('pos-000000001')?.view.quantity, '10000');

    // Without positionId a sell opens a short beside the long: no netting.
    const d = book.applyFill(fill('F:EURUSD', 'SELL', '2000', '1.15'));
    assert.deepEqual(events(d), ['POSITION_OPENED pos-000000003']);
    assert.equal(d.closedLots.length, 0);

    mark(book, 'F:EURUSD', '1.1495', '1.1505');
    // Long at the bid: (1.1495 - 1.1) x 10000 = 495; short at the ask: (1.15 - 1.1505) x 2000 = -1.
    assert.equal(book.position('pos-000000001')?.view.unrealized_pnl, '495');
    assert.equal(book.position('pos-000000003')?.view.unrealized_pnl, '-1');
    assert.equal(s(book.unrealizedPnlUsd()), '494');

    // A partial reduction by positionId.
    const e = book.applyFill(fill('F:EURUSD', 'SELL', '4000', '1.16', { positionId: 'pos-000000001' }));
    assert.deepEqual(events(e), ['POSITION_MODIFIED pos-000000001']);
    assert.equal(e.closedLots[0]?.id, '000000004');
    assert.equal(e.closedLots[0]?.realized_pnl, '240');
    const long = book.position('pos-000000001');
    assert.equal(long?.view.quantity, '6000');
    assert.equal(long?.view.average_entry_price, '1.1');
    assert.equal(long?.view.realized_pnl, '240');
  });

  it('refuses a targeted fill that cannot reduce its position', () => {
    const book = new PositionBook({ mode: 'hedging', instruments: [EURUSD, BTCUSD] });
    book.applyFill(fill('F:EURUSD', 'BUY', '100', '1.1'));
    const code = (f: BookFill) => {
      try {
        book.applyFill(f);
      } catch (error) {
        assert.ok(error instanceof PositionBookError);
        return error.code;
      }
      return 'none';
    };
    assert.equal(
      code(fill('F:EURUSD', 'SELL', '1', '1.1', { positionId: 'pos-000000009' })),
      'POSITION_NOT_FOUND',
    );
    assert.equal(
      code(fill('F:EURUSD', 'BUY', '1', '1.1', { positionId: 'pos-000000001' })),
      'POSITION_SAME_SIDE',
    );
    assert.equal(
      code(fill('F:EURUSD', 'SELL', '101', '1.1', { positionId: 'pos-000000001' })),
      'EXCEEDS_POSITION',
    );
    assert.equal(
      code(fill('C:BTCUSD', 'SELL', '1', '1.1', { positionId: 'pos-000000001' })),
      'POSITION_SYMBOL_MISMATCH',
    );
    assert.equal(code(fill('S:NOPE', 'SELL', '1', '1.1')), 'UNKNOWN_SYMBOL');
    assert.equal(code(fill('F:EURUSD', 'SELL', '0', '1.1')), 'INVALID_FILL');
    assert.equal(book.position('pos-000000001')?.view.quantity, '100', 'nothing changed');
    assert.equal(book.lots().length, 1);
  });
});

describe('FIFO lots and commission shares', () => {
  it('splits the last lot touched and shares the exit commission exactly, remainder on the last part', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    book.applyFill(fill('C:BTCUSD', 'BUY', '1', '10', { commission: '0.1' }));
    book.applyFill(fill('C:BTCUSD', 'BUY', '1', '11', { commission: '0.1' }));
    book.applyFill(fill('C:BTCUSD', 'BUY', '2', '12', { commission: '0.7' }));
    const out = book.applyFill(fill('C:BTCUSD', 'SELL', '3', '13', { commission: '1' }));
    const third = `0.${'3'.repeat(60)}`;
    const last = `0.${'3'.repeat(59)}4`;
    assert.deepEqual(
      out.closedLots.map((l) => [l.id, l.units, l.realized_pnl, l.exit_commission, l.entry_commission]),
      [
        ['000000001', '1', '3', third, '0.1'],
        ['000000002', '1', '2', third, '0.1'],
        ['000000004', '1', '1', last, '0.35'],
      ],
    );
    const exits = out.closedLots.reduce((sum, l) => sum.plus(l.exit_commission ?? 0), new Dec(0));
    assert.equal(s(exits), '1');
    const open = book.positionOf('C:BTCUSD');
    assert.deepEqual(
      open?.openLots.map((l) => [l.id, l.units, l.entry_commission]),
      [['000000003', '1', '0.35']],
    );
  });

  it('keeps the entry commissions of a split lot adding up exactly', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    book.applyFill(fill('C:BTCUSD', 'BUY', '30', '10', { commission: '1' }));
    const out = book.applyFill(fill('C:BTCUSD', 'SELL', '1', '10'));
    const detached = out.closedLots[0]?.entry_commission as string;
    const remainder = book.positionOf('C:BTCUSD')?.openLots[0]?.entry_commission as string;
    assert.equal(detached, `0.0${'3'.repeat(60)}`);
    assert.equal(remainder, `0.9${'6'.repeat(59)}7`);
    const Wide = Dec.clone({ precision: 200 });
    assert.equal(new Wide(detached).plus(remainder).toFixed(), '1');
  });

  it('proRata puts the rounding remainder on the last share', () => {
    const sharesOf = (total: string, weights: string[]) =>
      proRata(scaledOfText(total), weights.map(scaledOfText)).map(scaledText);
    const shares = sharesOf('2', ['1', '1', '1']);
    assert.deepEqual(shares, [`0.${'6'.repeat(59)}7`, `0.${'6'.repeat(59)}7`, `0.${'6'.repeat(59)}6`]);
    assert.deepEqual(sharesOf('0.45', ['2', '3']), ['0.18', '0.27']);
    assert.deepEqual(sharesOf('0', ['2', '3']), ['0', '0']);
  });
});

describe('JPY-quoted instruments (decision 1)', () => {
  it('converts realized P&L at the USDJPY mid at the close', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [USDJPY] });
    const account = new Account({ initialCapital: 100000, unrealized: book });
    mark(book, 'F:USDJPY', '92.999', '93');
    account.bookFill(book.applyFill(fill('F:USDJPY', 'BUY', '10000', '93.000')));
    // Long marks at the bid: (93.499 - 93) x 10000 = 4990 JPY, / 93.4995 USD.
    mark(book, 'F:USDJPY', '93.499', '93.5');
    const p = book.positionOf('F:USDJPY');
    assert.equal(p?.view.unrealized_pnl, '4990');
    assert.equal(
      s(p?.unrealizedPnlUsd as Dec),
      '53.369269354381574233017288862507286135219974438365980566741',
    );
    const out = book.applyFill(fill('F:USDJPY', 'SELL', '10000', '93.500'));
    // 10000 x (93.5 - 93) = 5000 JPY, / 93.4995.
    const usd = '53.4762217979775292916004898421916694741683110604869544756924';
    assert.equal(out.closedLots[0]?.realized_pnl, usd);
    assert.equal(s(out.realizedPnlUsd), usd);
    account.bookFill(out);
    account.assertIdentity();
    // Exact: 64 significant digits, not rounded to 60.
    assert.equal(s(account.balance), '100053.4762217979775292916004898421916694741683110604869544756924');
  });

  it('converts a cross (EURJPY) through the USDJPY mid at that moment', () => {
    const book = new PositionBook({ mode: 'hedging', instruments: [EURJPY, USDJPY] });
    mark(book, 'F:USDJPY', '149.99', '150.01');
    mark(book, 'F:EURJPY', '159.99', '160');
    book.applyFill(fill('F:EURJPY', 'SELL', '1000', '161'));
    mark(book, 'F:USDJPY', '124.99', '125.01');
    const out = book.applyFill(fill('F:EURJPY', 'BUY', '1000', '160', { positionId: 'pos-000000001' }));
    // Short: 1000 x (161 - 160) = 1000 JPY, / 125.
    assert.equal(out.closedLots[0]?.realized_pnl, '8');
  });

  it('refuses to value a JPY position before any USDJPY quote', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [EURJPY, USDJPY] });
    mark(book, 'F:EURJPY', '159.99', '160');
    assert.throws(() => book.applyFill(fill('F:EURJPY', 'BUY', '1', '160')), /no quote of F:USDJPY yet/);
  });
});

describe('refused fills leave the book unchanged', () => {
  it('a close dated before the lot opened is refused up front', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    const first = fill('C:BTCUSD', 'BUY', '1', '100');
    book.applyFill(first);
    book.applyFill(fill('C:BTCUSD', 'BUY', '1', '100'));
    const late = fill('C:BTCUSD', 'SELL', '2', '90', { time: first.time + 1 });
    assert.throws(() => book.applyFill(late), PositionBookError);
    assert.equal(book.positionOf('C:BTCUSD')?.view.quantity, '2');
    assert.deepEqual(
      book.lots().map((l) => l.state),
      ['Open', 'Open'],
    );
  });
});

describe('position snapshots', () => {
  it('keep the mark they were taken at, read after later marks', () => {
    const book = new PositionBook({ mode: 'netting', instruments: [BTCUSD] });
    const opened = book.applyFill(fill('C:BTCUSD', 'SELL', '2', '100')).events[0]?.position;
    mark(book, 'C:BTCUSD', '99.5', '100.25');
    const marked = book.position(opened?.id as string);
    mark(book, 'C:BTCUSD', '90', '91');
    assert.equal(s(opened?.currentPrice as Dec), '100');
    assert.equal(marked?.view.current_price, '100.25');
    assert.equal(s(marked?.unrealizedPnl as Dec), '-0.5');
    assert.equal(book.position(opened?.id as string)?.view.current_price, '91');
  });
});

describe('captured positions', () => {
  it('a capture refilled for a later moment values that moment, as a fresh capture does', () => {
    const book = new PositionBook({ mode: 'hedging', instruments: [BTCUSD, EURUSD] });
    book.applyFill(fill('C:BTCUSD', 'BUY', '0.5', '100'));
    book.applyFill(fill('F:EURUSD', 'SELL', '1000', '1.1'));
    mark(book, 'C:BTCUSD', '110', '111');
    mark(book, 'F:EURUSD', '1.0995', '1.1005');
    const reused = book.capture();
    const first = reused.scaled();
    assert.ok(first);
    assert.equal(scaledText(first.unrealizedUsd), '4.5');
    const [btc] = book.positions('C:BTCUSD');
    book.applyFill(fill('C:BTCUSD', 'SELL', '0.5', '120', { positionId: btc?.id as string }));
    mark(book, 'F:EURUSD', '1.0895', '1.0905');
    const refilled = book.capture(reused);
    assert.equal(refilled, reused);
    const fresh = book.capture();
    for (const capture of [refilled, fresh]) {
      const scaled = capture.scaled();
      assert.ok(scaled);
      assert.equal(scaledText(scaled.unrealizedUsd), '9.5');
      assert.deepEqual(
        scaled.notionals.map((n) => [n.symbol, scaledText(n.notionalUsd)]),
        [['F:EURUSD', '1090.5']],
      );
      assert.equal(s(capture.exact().unrealizedUsd), '9.5');
    }
  });
});
